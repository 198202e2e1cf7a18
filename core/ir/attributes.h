// Typed instruction attributes: `dimensions={0,1}`, `slice={[0:4:1]}`, `window={…}`,
// `replica_groups=…`, `sharding=…`, `to_apply=%add`, … and the verbatim rest.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/device_list.h"
#include "ir/sharding.h"
#include "support/diagnostic.h"

namespace scalify::ir {

/// `[start:limit:stride]` of a `slice=` attribute.
struct SliceRange {
  int64_t start = 0, limit = 0, stride = 1;
  friend bool operator==(const SliceRange&, const SliceRange&) = default;
};

/// One dimension of a convolution or reduce-window `window={size=3x3 stride=2x2 pad=1_1x1_1 …}`.
struct WindowDim {
  int64_t size = 1, stride = 1, pad_low = 0, pad_high = 0, lhs_dilate = 1, rhs_dilate = 1;
  bool reversal = false;
  friend bool operator==(const WindowDim&, const WindowDim&) = default;
};
struct Window {
  std::vector<WindowDim> dims;
  /// Whether the window is one element along dim `d` (size and stride one, no padding or
  /// dilation): every output position there reads its own input position. False for a dim the
  /// window does not describe.
  bool unit(size_t d) const {
    if (d >= dims.size()) return false;
    const WindowDim& w = dims[d];
    return w.size == 1 && w.stride == 1 && w.pad_low == 0 && w.pad_high == 0 && w.lhs_dilate == 1 &&
           w.rhs_dilate == 1;
  }
  friend bool operator==(const Window&, const Window&) = default;
};

/// `dim_labels=b01f_01io->b01f`: the role of each dimension of input, kernel and output.
/// Letters: b batch, f feature (input/output), i/o kernel input/output feature, digits spatial.
struct ConvDimLabels {
  std::string input, kernel, output;  ///< e.g. "b01f", "01io", "b01f"
  friend bool operator==(const ConvDimLabels&, const ConvDimLabels&) = default;
};

/// `padding=0_0_0x1_2_1` of a pad op: per dimension low, high and interior padding.
struct PadDim {
  int64_t low = 0, high = 0, interior = 0;
  friend bool operator==(const PadDim&, const PadDim&) = default;
};
using PaddingConfig = std::vector<PadDim>;

/// `replica_groups={{0,1},{2,3}}` or `replica_groups=[2,2]<=[4]`. `groups` is always filled;
/// `iota` remembers the compact spelling.
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;
  std::optional<IotaDevices> iota;
  friend bool operator==(const ReplicaGroups&, const ReplicaGroups&) = default;
};

/// `source_target_pairs={{0,1},{1,2}}` of a collective-permute.
using SourceTargetPairs = std::vector<std::pair<int64_t, int64_t>>;

/// `frontend_attributes={_xla_stream="1", key=value}`: ordered key/value strings.
using FrontendAttributes = std::vector<std::pair<std::string, std::string>>;

/// Names of called computations, as written (`to_apply=%add`, `branch_computations={%a, %b}`).
struct ComputationRefs {
  std::vector<std::string> names;
  friend bool operator==(const ComputationRefs&, const ComputationRefs&) = default;
};

/// A bare word value: `direction=LT`, `epsilon=0.001`, `kind=kLoop`, `type=TOTALORDER`.
struct Word {
  std::string text;
  friend bool operator==(const Word&, const Word&) = default;
};

/// A value this reader does not interpret, kept verbatim (balanced brackets, strings intact).
struct Raw {
  std::string text;
  friend bool operator==(const Raw&, const Raw&) = default;
};

using DimList = std::vector<int64_t>;

/// A large, rarely present value held by pointer, so that every attribute stays small; compares
/// by value.
template <class T>
class Boxed {
 public:
  explicit Boxed(T value) : p_(std::make_shared<const T>(std::move(value))) {}
  const T& operator*() const { return *p_; }
  const T* operator->() const { return p_.get(); }
  friend bool operator==(const Boxed& a, const Boxed& b) { return a.p_ == b.p_ || *a.p_ == *b.p_; }

 private:
  std::shared_ptr<const T> p_;
};

using AttrValue =
    std::variant<int64_t, bool, std::string, Word, DimList, std::vector<SliceRange>, Window,
                 ConvDimLabels, PaddingConfig, ReplicaGroups, SourceTargetPairs, Boxed<Sharding>,
                 FrontendAttributes, ComputationRefs, Raw>;

/// One `key=value` attribute. `pos` is where the key starts (not part of equality).
struct Attribute {
  std::string key;
  AttrValue value;
  SourcePos pos;
  friend bool operator==(const Attribute& a, const Attribute& b) {
    return a.key == b.key && a.value == b.value;
  }
};

/// What kind of value the reader expects after `key=` (by key name, as XLA's own reader does).
enum class AttrKind : uint8_t {
  kInt,
  kBool,
  kString,
  kWord,
  kDimList,
  kSlice,
  kWindow,
  kConvDimLabels,
  kPadding,
  kReplicaGroups,
  kSourceTargetPairs,
  kSharding,
  kFrontendAttributes,
  kComputations,
  kStringOrRaw,  ///< backend_config: a quoted string, or a `{…}` proto in newer dumps
  kRaw,
};
AttrKind attr_kind_of(std::string_view key);

/// The canonical text of a value, as the printer writes it after `key=`.
///   attr_value_to_string(DimList{0, 1}) == "{0,1}"
std::string attr_value_to_string(const AttrValue& value);

/// Quote a string with XLA's C-style escapes: `a"b` -> `"a\"b"`.
std::string quote(std::string_view s);

}  // namespace scalify::ir
