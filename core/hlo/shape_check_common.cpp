// Helpers shared by the result-type checks: type comparison, messages, attributes, arithmetic.
#include <algorithm>
#include <limits>

#include "hlo/shape_check_internal.h"

namespace scalify::hlo::shape_check {

const ir::Computation* Op::callee(std::string_view key, size_t index) const {
  const auto* refs = instr.get<ir::ComputationRefs>(key);
  if (!refs || index >= refs->names.size()) return nullptr;
  std::optional<ir::CompId> id = module.find_computation(refs->names[index]);
  if (!id || *id < 0 || static_cast<size_t>(*id) >= module.computations.size()) return nullptr;
  const ir::Computation& c = module.computations[static_cast<size_t>(*id)];
  if (c.root < 0 || static_cast<size_t>(c.root) >= c.size()) return nullptr;
  return &c;
}

size_t Op::callee_count(std::string_view key) const {
  const auto* refs = instr.get<ir::ComputationRefs>(key);
  return refs ? refs->names.size() : 0;
}

bool same_type(const ir::Type& a, const ir::Type& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ir::Type::Kind::kArray:
      return a.dtype() == b.dtype() && a.dims() == b.dims();
    case ir::Type::Kind::kTuple: {
      const auto& x = a.elements();
      const auto& y = b.elements();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!same_type(x[i], y[i])) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

bool same_dims(const ir::Type& a, const ir::Type& b) {
  return a.is_array() && b.is_array() && a.dims() == b.dims();
}

std::string show(const ir::Type& t) { return t.to_string(/*with_layout=*/false); }

std::string show(const ir::DimList& dims) {
  std::string out = "{";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + '}';
}

ir::Type array(ir::DType dtype, std::vector<int64_t> dims) {
  return ir::Type::array(dtype, std::move(dims));
}

bool has_unbounded(const ir::Type& t) {
  if (t.is_tuple()) {
    return std::any_of(t.elements().begin(), t.elements().end(),
                       [](const ir::Type& e) { return has_unbounded(e); });
  }
  return t.is_array() &&
         std::any_of(t.dims().begin(), t.dims().end(), [](int64_t d) { return d < 0; });
}

std::string say(const Op& op, std::string_view text) {
  std::string out(op.name());
  out += ": ";
  out += text;
  return out;
}

std::string count(size_t n, std::string_view singular, std::string_view plural) {
  return std::to_string(n) + " " + std::string(n == 1 ? singular : plural);
}

Msg expect_result(const Op& op, const ir::Type& expected) {
  if (same_type(expected, op.result())) return std::nullopt;
  return std::string(op.name()) + " result should be " + show(expected) + " but is declared " +
         show(op.result());
}

Msg expect_result_dims(const Op& op, const std::vector<int64_t>& dims) {
  if (op.result().is_array() && op.result().dims() == dims) return std::nullopt;
  // Show the expected type with the declared element type: only the dimensions are wrong.
  ir::DType dtype = op.result().is_array() ? op.result().dtype() : ir::DType::kF32;
  return expect_result(op, array(dtype, dims));
}

Msg expect_arity(const Op& op, size_t n) {
  if (op.arity() == n) return std::nullopt;
  return std::string(op.name()) + " takes " + std::to_string(n) + " operand" + (n == 1 ? "" : "s") +
         " but has " + std::to_string(op.arity());
}

Msg expect_min_arity(const Op& op, size_t n) {
  if (op.arity() >= n) return std::nullopt;
  return std::string(op.name()) + " takes at least " + std::to_string(n) + " operand" +
         (n == 1 ? "" : "s") + " but has " + std::to_string(op.arity());
}

Msg expect_array_operand(const Op& op, size_t i) {
  if (op.operand(i).is_array()) return std::nullopt;
  return say(op,
             "operand " + std::to_string(i) + " must be an array but is " + show(op.operand(i)));
}

Msg expect_array_operands(const Op& op) {
  for (size_t i = 0; i < op.arity(); ++i) {
    if (Msg m = expect_array_operand(op, i)) return m;
  }
  return std::nullopt;
}

Msg expect_array_result(const Op& op) {
  if (op.result().is_array()) return std::nullopt;
  return say(op, "result must be an array but is declared " + show(op.result()));
}

std::optional<int64_t> int_attr(const Op& op, std::string_view key) {
  if (const int64_t* v = op.instr.get<int64_t>(key)) return *v;
  return std::nullopt;
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Msg check_dims_in_range(const Op& op, std::string_view key, const ir::DimList& dims, int64_t rank,
                        bool unique, bool sorted) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank) {
      return say(op, std::string(key) + "=" + show(dims) + " names dimension " +
                         std::to_string(dims[i]) + ", outside [0, " + std::to_string(rank) + ")");
    }
    if (unique && std::find(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(i), dims[i]) !=
                      dims.begin() + static_cast<std::ptrdiff_t>(i)) {
      return say(op, std::string(key) + "=" + show(dims) + " repeats dimension " +
                         std::to_string(dims[i]));
    }
    if (sorted && i > 0 && dims[i - 1] > dims[i]) {
      return say(op, std::string(key) + "=" + show(dims) + " must be in ascending order");
    }
  }
  return std::nullopt;
}

std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> window_output(int64_t base, int64_t size, int64_t stride, int64_t pad_low,
                                     int64_t pad_high, int64_t base_dilation,
                                     int64_t window_dilation) {
  if (size <= 0 || stride <= 0 || base_dilation < 1 || window_dilation < 1 || base < 0) {
    return std::nullopt;
  }
  // A dilated extent of n elements with dilation k is (n - 1) * k + 1 (0 for n == 0).
  auto dilated = [](int64_t n, int64_t k) -> std::optional<int64_t> {
    if (n == 0) return 0;
    std::optional<int64_t> m = checked_mul(n - 1, k);
    return m ? checked_add(*m, 1) : std::nullopt;
  };
  std::optional<int64_t> b = dilated(base, base_dilation);
  std::optional<int64_t> w = dilated(size, window_dilation);
  if (!b || !w) return std::nullopt;
  std::optional<int64_t> padded = checked_add(*b, pad_low);
  if (padded) padded = checked_add(*padded, pad_high);
  if (!padded) return std::nullopt;
  if (*padded < *w) return 0;
  return (*padded - *w) / stride + 1;
}

}  // namespace scalify::hlo::shape_check
