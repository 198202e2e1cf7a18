// Values of the reference interpreter: dense row-major tensors of doubles, and tuples of values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace scalify::eval {

/// A dense array in row-major order (the last dimension varies fastest), every element a double
/// whatever the HLO element type (integers and pred hold whole numbers; pred is 0 or 1). The
/// element type is not stored: the interpreter takes it from the instruction's ir::Type.
///
///   Tensor t{{2, 3}, {0, 1, 2, 3, 4, 5}};
///   t.element_count() == 6;  t.rank() == 2;
///   t.linear_index({{1, 2}}) == 5;  t.at({{1, 0}}) == 3.0;
///   Tensor::scalar(7.0).dims.empty();
struct Tensor {
  std::vector<int64_t> dims;
  std::vector<double> data;  ///< element_count() elements

  /// A rank-0 tensor holding `x`.
  static Tensor scalar(double x) { return Tensor{{}, {x}}; }
  /// A tensor of `dims` with every element `x`.
  static Tensor filled(std::vector<int64_t> dims, double x);

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  /// Product of the dimensions (1 for a scalar, 0 if a dimension is 0).
  int64_t element_count() const;
  /// The row-major position of `index` (one entry per dimension, each within its dimension).
  int64_t linear_index(std::span<const int64_t> index) const;
  double at(std::span<const int64_t> index) const {
    return data[static_cast<size_t>(linear_index(index))];
  }
  /// The element of a rank-0 (or one-element) tensor.
  double scalar_value() const { return data.front(); }
  /// "[2,3]"
  std::string shape_string() const;

  friend bool operator==(const Tensor&, const Tensor&) = default;
};

/// Row-major strides of `dims`: strides({2, 3, 4}) == {12, 4, 1}.
std::vector<int64_t> row_major_strides(std::span<const int64_t> dims);

/// Advances `index` to the next multi-index of `dims` in row-major order; false after the last
/// one (the index is then all zeros again). Visits every index of a shape:
///
///   std::vector<int64_t> i(dims.size(), 0);
///   if (element_count > 0) do { visit(i); } while (next_index(i, dims));
bool next_index(std::span<int64_t> index, std::span<const int64_t> dims);

/// What an HLO instruction produces: one tensor, or a tuple of values (tuple, while state,
/// variadic reduce, …). A token is the empty tuple.
///
///   Value v = Tensor::scalar(1.0);
///   Value t = Value::tuple({v, Tensor{{2}, {3, 4}}});
///   t.is_tuple() && t.elements()[1].tensor().data[0] == 3.0;
///   t.to_string() == "(1, {3, 4})";
class Value {
 public:
  Value() : data_(Tensor::scalar(0.0)) {}   ///< the scalar 0
  Value(Tensor t) : data_(std::move(t)) {}  // NOLINT: implicit by design
  static Value tuple(std::vector<Value> elements);

  bool is_tuple() const { return data_.index() == 1; }
  /// The tensor (the value must not be a tuple).
  const Tensor& tensor() const { return std::get<0>(data_); }
  Tensor& tensor() { return std::get<0>(data_); }
  /// The tuple's elements (the value must be a tuple).
  const std::vector<Value>& elements() const { return std::get<1>(data_); }
  std::vector<Value>& elements() { return std::get<1>(data_); }

  /// "[2,3]" for a tensor, "([2], [])" for a tuple.
  std::string shape_string() const;
  /// The numbers, nested by dimension as in HLO literals: "{{1, 2}, {3, 4}}", "(1, {2})".
  /// Long tensors are cut after `max_elements` elements ("…").
  std::string to_string(size_t max_elements = 64) const;

  friend bool operator==(const Value&, const Value&) = default;

 private:
  std::variant<Tensor, std::vector<Value>> data_;
};

/// True when `a` and `b` have the same structure and dimensions and every pair of elements x (of
/// a) and y (of b) satisfies |x - y| <= atol + rtol * |y|. NaN equals NaN, and an infinity only
/// the same infinity. Otherwise false, and `why` (if given) explains the first mismatch:
///
///   all_close(Tensor{{2}, {1, 2}}, Tensor{{2}, {1, 2.5}}, 1e-6, 1e-6, &why) == false;
///   why == "element [1]: 2 vs 2.5 (difference 0.5)"
bool all_close(const Value& a, const Value& b, double rtol, double atol,
               std::string* why = nullptr);

}  // namespace scalify::eval
