#include "ir/type.h"

namespace scalify::ir {
Type::Type() {
  static const std::shared_ptr<const Data> kScalar = std::make_shared<const Data>();
  data_ = kScalar;
}

Type Type::array(DType dtype, std::vector<int64_t> dims) {
  auto d = std::make_shared<Data>();
  d->kind = Kind::kArray;
  d->dtype = dtype;
  d->dims = std::move(dims);
  return Type(std::move(d));
}

Type Type::tuple(std::vector<Type> elements) {
  auto d = std::make_shared<Data>();
  d->kind = Kind::kTuple;
  d->elements = std::move(elements);
  return Type(std::move(d));
}

Type Type::token() {
  static const std::shared_ptr<const Data> kToken = [] {
    auto d = std::make_shared<Data>();
    d->kind = Kind::kToken;
    d->dtype = DType::kToken;
    return d;
  }();
  return Type(kToken);
}

Type Type::opaque() {
  static const std::shared_ptr<const Data> kOpaque = [] {
    auto d = std::make_shared<Data>();
    d->kind = Kind::kOpaque;
    d->dtype = DType::kOpaque;
    return d;
  }();
  return Type(kOpaque);
}

Type::Data& Type::mutate() {
  if (data_.use_count() != 1) data_ = std::make_shared<const Data>(*data_);
  // Sole owner now: the const is ours to drop.
  return const_cast<Data&>(*data_);
}

void Type::set_dtype(DType d) { mutate().dtype = d; }

void Type::set_dims(std::vector<int64_t> dims) {
  Data& d = mutate();
  d.dims = std::move(dims);
  d.dynamic.clear();
}

void Type::set_dynamic(int64_t i, bool dynamic) {
  if (this->dynamic(i) == dynamic) return;
  Data& d = mutate();
  if (d.dynamic.empty()) d.dynamic.assign(d.dims.size(), false);
  d.dynamic[static_cast<size_t>(i)] = dynamic;
}

void Type::set_layout(std::optional<Layout> layout) {
  if (!layout && !data_->layout) return;
  mutate().layout = std::move(layout);
}

std::vector<Type>& Type::mutable_elements() { return mutate().elements; }

int64_t Type::element_count() const {
  int64_t n = 1;
  for (int64_t d : data_->dims) n *= d < 0 ? 0 : d;
  return n;
}

bool Type::dynamic(int64_t i) const {
  return !data_->dynamic.empty() && data_->dynamic[static_cast<size_t>(i)];
}

bool Type::same_dims(const Type& other) const {
  if (data_->dims != other.data_->dims) return false;
  for (size_t i = 0; i < data_->dims.size(); ++i) {
    if (dynamic(static_cast<int64_t>(i)) != other.dynamic(static_cast<int64_t>(i))) return false;
  }
  return true;
}

namespace {

/// `t`'s dims from the most major in memory to the most minor; nullopt when tiled or invalid.
std::optional<std::vector<int64_t>> memory_order(const Type& t) {
  std::vector<int64_t> order;
  if (!t.layout()) {
    for (int64_t d = 0; d < t.rank(); ++d) order.push_back(d);
    return order;
  }
  const Layout& layout = *t.layout();
  if (layout.tail.find('T') != std::string::npos ||
      static_cast<int64_t>(layout.minor_to_major.size()) != t.rank()) {
    return std::nullopt;
  }
  order.assign(layout.minor_to_major.rbegin(), layout.minor_to_major.rend());
  std::vector<bool> seen(static_cast<size_t>(t.rank()), false);
  for (int64_t d : order) {
    if (d < 0 || d >= t.rank() || seen[static_cast<size_t>(d)]) return std::nullopt;
    seen[static_cast<size_t>(d)] = true;
  }
  return order;
}

}  // namespace

bool row_major(const Type& t) {
  if (!t.is_array()) return false;
  const auto order = memory_order(t);
  if (!order) return false;
  int64_t previous = -1;
  for (int64_t d : *order) {
    if (t.dim(d) == 1) continue;
    if (d < previous) return false;
    previous = d;
  }
  return true;
}

bool bitcast_is_reshape(const Type& from, const Type& to) {
  return from.is_array() && to.is_array() && from.dtype() == to.dtype() &&
         from.element_count() == to.element_count() && row_major(from) && row_major(to);
}

std::optional<BitcastSteps> bitcast_steps(const Type& from, const Type& to) {
  if (!from.is_array() || !to.is_array() || from.dtype() != to.dtype() ||
      from.element_count() != to.element_count()) {
    return std::nullopt;
  }
  const auto in = memory_order(from), out = memory_order(to);
  if (!in || !out) return std::nullopt;
  BitcastSteps steps;
  steps.to_memory = *in;
  steps.from_memory.resize(out->size());
  for (size_t k = 0; k < out->size(); ++k) {
    steps.memory_dims.push_back(to.dim((*out)[k]));
    steps.from_memory[static_cast<size_t>((*out)[k])] = static_cast<int64_t>(k);
  }
  return steps;
}

bool Type::compatible(const Type& other) const {
  if (data_ == other.data_) return true;
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::kArray:
      return dtype() == other.dtype() && same_dims(other);
    case Kind::kTuple:
      if (elements().size() != other.elements().size()) return false;
      for (size_t i = 0; i < elements().size(); ++i) {
        if (!elements()[i].compatible(other.elements()[i])) return false;
      }
      return true;
    default:
      return true;
  }
}

bool operator==(const Type& a, const Type& b) {
  if (a.data_ == b.data_) return true;
  const Type::Data& x = *a.data_;
  const Type::Data& y = *b.data_;
  return x.kind == y.kind && x.dtype == y.dtype && x.dims == y.dims && x.dynamic == y.dynamic &&
         x.layout == y.layout && x.elements == y.elements;
}

void Type::append_to(std::string& out, bool with_layout) const {
  switch (kind()) {
    case Kind::kToken:
      out += "token[]";
      return;
    case Kind::kOpaque:
      out += "opaque[]";
      return;
    case Kind::kTuple:
      out += '(';
      for (size_t i = 0; i < elements().size(); ++i) {
        if (i) out += ", ";
        elements()[i].append_to(out, with_layout);
      }
      out += ')';
      return;
    case Kind::kArray:
      break;
  }
  out += dtype_name(dtype());
  out += '[';
  const auto& dims = data_->dims;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    if (dynamic(static_cast<int64_t>(i))) {
      if (dims[i] < 0) {
        out += '?';
        continue;
      }
      out += "<=";
    }
    out += std::to_string(dims[i]);
  }
  out += ']';
  const auto& layout = data_->layout;
  if (with_layout && layout) {
    out += '{';
    for (size_t i = 0; i < layout->minor_to_major.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(layout->minor_to_major[i]);
    }
    if (!layout->tail.empty()) {
      out += ':';
      out += layout->tail;
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
