#include "ir/type.h"

namespace scalify::ir {

Type Type::array(DType dtype, std::vector<int64_t> dims) {
  Type t;
  t.kind_ = Kind::kArray;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  return t;
}

Type Type::tuple(std::vector<Type> elements) {
  Type t;
  t.kind_ = Kind::kTuple;
  t.elements_ = std::move(elements);
  return t;
}

Type Type::token() {
  Type t;
  t.kind_ = Kind::kToken;
  t.dtype_ = DType::kToken;
  return t;
}

Type Type::opaque() {
  Type t;
  t.kind_ = Kind::kOpaque;
  t.dtype_ = DType::kOpaque;
  return t;
}

int64_t Type::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d < 0 ? 0 : d;
  return n;
}

bool Type::dynamic(int64_t i) const {
  return !dynamic_.empty() && dynamic_[static_cast<size_t>(i)];
}

void Type::set_dims(std::vector<int64_t> dims) {
  dims_ = std::move(dims);
  dynamic_.clear();
}

void Type::set_dynamic(int64_t i, bool dynamic) {
  if (dynamic_.empty()) {
    if (!dynamic) return;
    dynamic_.assign(dims_.size(), false);
  }
  dynamic_[static_cast<size_t>(i)] = dynamic;
}

bool Type::same_dims(const Type& other) const {
  if (dims_ != other.dims_) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dynamic(static_cast<int64_t>(i)) != other.dynamic(static_cast<int64_t>(i))) return false;
  }
  return true;
}

bool Type::compatible(const Type& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kArray:
      return dtype_ == other.dtype_ && same_dims(other);
    case Kind::kTuple:
      if (elements_.size() != other.elements_.size()) return false;
      for (size_t i = 0; i < elements_.size(); ++i) {
        if (!elements_[i].compatible(other.elements_[i])) return false;
      }
      return true;
    default:
      return true;
  }
}

void Type::append_to(std::string& out, bool with_layout) const {
  switch (kind_) {
    case Kind::kToken:
      out += "token[]";
      return;
    case Kind::kOpaque:
      out += "opaque[]";
      return;
    case Kind::kTuple:
      out += '(';
      for (size_t i = 0; i < elements_.size(); ++i) {
        if (i) out += ", ";
        elements_[i].append_to(out, with_layout);
      }
      out += ')';
      return;
    case Kind::kArray:
      break;
  }
  out += dtype_name(dtype_);
  out += '[';
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ',';
    if (dynamic(static_cast<int64_t>(i))) {
      if (dims_[i] < 0) {
        out += '?';
        continue;
      }
      out += "<=";
    }
    out += std::to_string(dims_[i]);
  }
  out += ']';
  if (with_layout && layout_) {
    out += '{';
    for (size_t i = 0; i < layout_->minor_to_major.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(layout_->minor_to_major[i]);
    }
    if (!layout_->tail.empty()) {
      out += ':';
      out += layout_->tail;
    }
    out += '}';
  }
}

std::string Type::to_string(bool with_layout) const {
  std::string out;
  append_to(out, with_layout);
  return out;
}

}  // namespace scalify::ir
