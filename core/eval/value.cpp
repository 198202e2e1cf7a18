#include "eval/value.h"

#include <charconv>
#include <cmath>

namespace scalify::eval {
namespace {

/// The shortest text that reads back to `x`: "0.5", "-inf", "nan".
std::string number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string dims_string(std::span<const int64_t> dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

/// Appends the elements of `t` from `*next` on, nested by dimension from `level`.
void append_nested(std::string& out, const Tensor& t, size_t level, size_t& next,
                   size_t max_elements) {
  if (level == t.dims.size()) {
    if (next < max_elements) out += number(t.data[next]);
    ++next;
    return;
  }
  out += '{';
  for (int64_t i = 0; i < t.dims[level]; ++i) {
    if (next >= max_elements) {
      out += i ? ", ..." : "...";
      // Skip the rest of this sub-array without printing it.
      int64_t rest = t.dims[level] - i;
      for (size_t d = level + 1; d < t.dims.size(); ++d) rest *= t.dims[d];
      next += static_cast<size_t>(rest);
      break;
    }
    if (i) out += ", ";
    append_nested(out, t, level + 1, next, max_elements);
  }
  out += '}';
}

/// Both NaN, or equal (infinities included), or within the tolerance.
bool close(double x, double y, double rtol, double atol) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (x == y) return true;
  if (std::isinf(x) || std::isinf(y)) return false;
  return std::fabs(x - y) <= atol + rtol * std::fabs(y);
}

bool all_close_at(const Value& a, const Value& b, double rtol, double atol, std::string* why,
                  const std::string& where) {
  auto fail = [&](const std::string& text) {
    if (why) *why = where.empty() ? text : where + ": " + text;
    return false;
  };
  if (a.is_tuple() != b.is_tuple()) {
    return fail("a " + std::string(a.is_tuple() ? "tuple" : "tensor") + " " + a.shape_string() +
                " vs a " + (b.is_tuple() ? "tuple" : "tensor") + " " + b.shape_string());
  }
  if (a.is_tuple()) {
    if (a.elements().size() != b.elements().size()) {
      return fail("tuples of " + std::to_string(a.elements().size()) + " and " +
                  std::to_string(b.elements().size()) + " elements");
    }
    for (size_t i = 0; i < a.elements().size(); ++i) {
      const std::string inner =
          (where.empty() ? "" : where + ", ") + "tuple element " + std::to_string(i);
      if (!all_close_at(a.elements()[i], b.elements()[i], rtol, atol, why, inner)) return false;
    }
    return true;
  }
  const Tensor& x = a.tensor();
  const Tensor& y = b.tensor();
  if (x.dims != y.dims) return fail("shapes " + x.shape_string() + " vs " + y.shape_string());
  if (x.data.size() != y.data.size()) return fail("tensors of different element counts");
  std::vector<int64_t> index(x.dims.size(), 0);
  for (size_t i = 0; i < x.data.size(); ++i) {
    if (close(x.data[i], y.data[i], rtol, atol)) {
      next_index(index, x.dims);
      continue;
    }
    std::string text =
        "element " + dims_string(index) + ": " + number(x.data[i]) + " vs " + number(y.data[i]);
    if (std::isfinite(x.data[i]) && std::isfinite(y.data[i])) {
      text += " (difference " + number(std::fabs(x.data[i] - y.data[i])) + ")";
    }
    return fail(text);
  }
  return true;
}

}  // namespace

Tensor Tensor::filled(std::vector<int64_t> dims, double x) {
  Tensor t{std::move(dims), {}};
  t.data.assign(static_cast<size_t>(t.element_count()), x);
  return t;
}

int64_t Tensor::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t Tensor::linear_index(std::span<const int64_t> index) const {
  int64_t at = 0;
  for (size_t i = 0; i < dims.size(); ++i) at = at * dims[i] + index[i];
  return at;
}

std::string Tensor::shape_string() const { return dims_string(dims); }

std::vector<int64_t> row_major_strides(std::span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

bool next_index(std::span<int64_t> index, std::span<const int64_t> dims) {
  for (size_t i = dims.size(); i-- > 0;) {
    if (++index[i] < dims[i]) return true;
    index[i] = 0;
  }
  return false;
}

Value Value::tuple(std::vector<Value> elements) {
  Value v;
  v.data_ = std::move(elements);
  return v;
}

std::string Value::shape_string() const {
  if (!is_tuple()) return tensor().shape_string();
  std::string out = "(";
  for (size_t i = 0; i < elements().size(); ++i) {
    if (i) out += ", ";
    out += elements()[i].shape_string();
  }
  return out + ")";
}

std::string Value::to_string(size_t max_elements) const {
  if (is_tuple()) {
    std::string out = "(";
    for (size_t i = 0; i < elements().size(); ++i) {
      if (i) out += ", ";
      out += elements()[i].to_string(max_elements);
    }
    return out + ")";
  }
  std::string out;
  size_t next = 0;
  append_nested(out, tensor(), 0, next, max_elements);
  return out;
}

bool all_close(const Value& a, const Value& b, double rtol, double atol, std::string* why) {
  return all_close_at(a, b, rtol, atol, why, "");
}

}  // namespace scalify::eval
