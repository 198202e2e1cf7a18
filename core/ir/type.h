// The type of an HLO value: an array (element type, dimensions, optional layout), a tuple, or a
// token.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace scalify::ir {

/// A dense layout: `{1,0}` is minor_to_major = [1, 0]. Anything after the ':' in the text
/// (tiling `T(8,128)`, memory space `S(1)`, element size `E(4)`, …) is kept verbatim in `tail`.
struct Layout {
  std::vector<int64_t> minor_to_major;
  std::string tail;  ///< text after ':' without the colon, e.g. "T(8,128)(2,1)"; empty if none
  friend bool operator==(const Layout&, const Layout&) = default;
};

/// The type of a value. Examples of the text form:
///   `f32[8,128]{1,0}`   array with layout      `bf16[]`             scalar
///   `s32[<=16]`         bounded dynamic dim     `(f32[2], token[])`  tuple
///
///   Type t = Type::array(DType::kF32, {8, 128});
///   t.element_count() == 1024; t.to_string() == "f32[8,128]";
///
/// A Type is a value with cheap copies: the data is immutable and shared (the reader gives every
/// occurrence of the same type text one instance); the setters copy it first when it is shared.
class Type {
 public:
  enum class Kind : uint8_t { kArray, kTuple, kToken, kOpaque };

  /// `f32[]`
  Type();
  static Type array(DType dtype, std::vector<int64_t> dims);
  static Type tuple(std::vector<Type> elements);
  static Type token();
  static Type opaque();

  Kind kind() const { return data_->kind; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_tuple() const { return kind() == Kind::kTuple; }
  bool is_token() const { return kind() == Kind::kToken; }

  // Arrays.
  DType dtype() const { return data_->dtype; }
  const std::vector<int64_t>& dims() const { return data_->dims; }
  int64_t rank() const { return static_cast<int64_t>(data_->dims.size()); }
  int64_t dim(int64_t i) const { return data_->dims[static_cast<size_t>(i)]; }
  /// Product of the dimensions (1 for a scalar).
  int64_t element_count() const;
  /// `dynamic(i)`: dimension i is dynamic (`<=N` bounded, or `?` unbounded, where dim(i) == -1).
  bool dynamic(int64_t i) const;
  const std::vector<bool>& dynamic_dims() const { return data_->dynamic; }
  const std::optional<Layout>& layout() const { return data_->layout; }

  void set_dtype(DType d);
  void set_dims(std::vector<int64_t> dims);
  void set_dynamic(int64_t i, bool dynamic);
  void set_layout(std::optional<Layout> layout);

  // Tuples.
  const std::vector<Type>& elements() const { return data_->elements; }
  std::vector<Type>& mutable_elements();

  /// Same kind, element types and dimensions, ignoring layouts (XLA's ShapeUtil::Compatible).
  bool compatible(const Type& other) const;
  /// Same array dimensions (and dynamism), ignoring element type and layout.
  bool same_dims(const Type& other) const;

  /// The HLO text form, e.g. "f32[8,128]{1,0}"; `with_layout=false` drops layouts.
  std::string to_string(bool with_layout = true) const;
  void append_to(std::string& out, bool with_layout = true) const;

  friend bool operator==(const Type& a, const Type& b);

 private:
  struct Data {
    Kind kind = Kind::kArray;
    DType dtype = DType::kF32;
    std::vector<int64_t> dims;
    std::vector<bool> dynamic;  ///< empty when no dimension is dynamic
    std::optional<Layout> layout;
    std::vector<Type> elements;
  };
  explicit Type(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  /// The data, copied first if another Type shares it.
  Data& mutate();

  std::shared_ptr<const Data> data_;
};

/// Whether a value of type `t` holds no numbers: a token or an empty tuple (nothing to prove
/// of it).
inline bool carries_no_values(const Type& t) {
  return t.is_token() || (t.is_tuple() && t.elements().empty());
}

/// Whether `t`'s elements lie in memory in row-major order (dims of size 1 aside): no layout
/// written, or a minor-to-major order that lists the other dims from the last to the first,
/// with no tiling.
///
///   row_major(f32[4,8]{1,0}) && row_major(f32[4,1,8]{1,2,0}) && !row_major(f32[4,8]{0,1})
bool row_major(const Type& t);

/// Whether a `bitcast` from `from` to `to` is a reshape: XLA's bitcast reinterprets the buffer,
/// so it keeps the elements' row-major order only when both layouts do (a bitcast between
/// {1,0} and {0,1} is a transpose).
///
///   bitcast_is_reshape(f32[4,8]{1,0}, f32[32]{0}) && !bitcast_is_reshape(f32[4,8]{0,1}, f32[32])
bool bitcast_is_reshape(const Type& from, const Type& to);

/// What a `bitcast` from `from` to `to` computes, as data movement: its operand transposed by
/// `to_memory` (into the order its elements lie in memory), reshaped to `memory_dims` (the
/// result's dims in its memory order), transposed by `from_memory` (back to the result's
/// logical order). nullopt when the element types or counts differ or a layout is tiled.
///
///   // f32[4,8]{1,0} → f32[8,4]{0,1}: to_memory {0,1}, memory_dims {4,8}, from_memory {1,0}
///   // (a transpose: element (i, j) of the result is the operand's (j, i))
struct BitcastSteps {
  std::vector<int64_t> to_memory, memory_dims, from_memory;
};
std::optional<BitcastSteps> bitcast_steps(const Type& from, const Type& to);

}  // namespace scalify::ir
