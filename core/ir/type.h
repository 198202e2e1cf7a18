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

}  // namespace scalify::ir
