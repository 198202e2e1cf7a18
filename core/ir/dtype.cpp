#include "ir/dtype.h"

#include <array>

#include "support/name_table.h"

namespace scalify::ir {
namespace {

constexpr std::array<std::string_view, static_cast<size_t>(DType::kOpaque) + 1> kNames = {
#define SCALIFY_DTYPE_NAME(e, s) s,
    SCALIFY_DTYPES(SCALIFY_DTYPE_NAME)
#undef SCALIFY_DTYPE_NAME
};

}  // namespace

std::string_view dtype_name(DType t) { return kNames[static_cast<size_t>(t)]; }

std::optional<DType> parse_dtype(std::string_view name) {
  static const NameTable<DType> table(kNames);  // a hash: the reader asks for every type
  return table.find(name);
}

bool is_float(DType t) { return t >= DType::kF4E2M1FN && t <= DType::kF64; }
bool is_complex(DType t) { return t == DType::kC64 || t == DType::kC128; }
bool is_signed_int(DType t) { return t >= DType::kS1 && t <= DType::kS64; }
bool is_unsigned_int(DType t) { return t >= DType::kU1 && t <= DType::kU64; }

int bit_width(DType t) {
  switch (t) {
    case DType::kPred:
      return 8;
    case DType::kS1:
    case DType::kU1:
      return 1;
    case DType::kS2:
    case DType::kU2:
      return 2;
    case DType::kS4:
    case DType::kU4:
    case DType::kF4E2M1FN:
      return 4;
    case DType::kS8:
    case DType::kU8:
      return 8;
    case DType::kS16:
    case DType::kU16:
    case DType::kBF16:
    case DType::kF16:
      return 16;
    case DType::kS32:
    case DType::kU32:
    case DType::kF32:
      return 32;
    case DType::kS64:
    case DType::kU64:
    case DType::kF64:
    case DType::kC64:
      return 64;
    case DType::kC128:
      return 128;
    case DType::kToken:
    case DType::kOpaque:
      return 0;
    default:
      return 8;  // the f8 formats
  }
}

}  // namespace scalify::ir
