// Element types of HLO arrays (XLA's PrimitiveType), with their text names.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace scalify::ir {

// clang-format off
#define SCALIFY_DTYPES(X)                                                          \
  X(kPred, "pred")                                                                 \
  X(kS1, "s1") X(kS2, "s2") X(kS4, "s4") X(kS8, "s8")                              \
  X(kS16, "s16") X(kS32, "s32") X(kS64, "s64")                                     \
  X(kU1, "u1") X(kU2, "u2") X(kU4, "u4") X(kU8, "u8")                              \
  X(kU16, "u16") X(kU32, "u32") X(kU64, "u64")                                     \
  X(kF4E2M1FN, "f4e2m1fn") X(kF8E3M4, "f8e3m4") X(kF8E4M3, "f8e4m3")               \
  X(kF8E4M3FN, "f8e4m3fn") X(kF8E4M3B11FNUZ, "f8e4m3b11fnuz")                      \
  X(kF8E4M3FNUZ, "f8e4m3fnuz") X(kF8E5M2, "f8e5m2") X(kF8E5M2FNUZ, "f8e5m2fnuz")   \
  X(kF8E8M0FNU, "f8e8m0fnu") X(kBF16, "bf16") X(kF16, "f16") X(kF32, "f32")        \
  X(kF64, "f64") X(kC64, "c64") X(kC128, "c128")                                   \
  X(kToken, "token") X(kOpaque, "opaque")
// clang-format on

/// An HLO element type. `kToken` and `kOpaque` are the non-array leaf types.
enum class DType : uint8_t {
#define SCALIFY_DTYPE_ENUM(e, s) e,
  SCALIFY_DTYPES(SCALIFY_DTYPE_ENUM)
#undef SCALIFY_DTYPE_ENUM
};

/// "f32" for DType::kF32.
std::string_view dtype_name(DType t);
/// parse_dtype("bf16") == DType::kBF16; nullopt for an unknown name.
std::optional<DType> parse_dtype(std::string_view name);

bool is_float(DType t);    ///< floating point, any width (including the f8/f4 formats)
bool is_complex(DType t);  ///< c64, c128
bool is_signed_int(DType t);
bool is_unsigned_int(DType t);
inline bool is_integer(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
/// Storage width in bits (pred: 8, token/opaque: 0).
int bit_width(DType t);

}  // namespace scalify::ir
