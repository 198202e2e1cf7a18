#include "egraph/union_find.h"

#include <utility>

namespace scalify::egraph {

ClassId UnionFind::make_set() {
  const auto id = static_cast<ClassId>(parent_.size());
  parent_.push_back(id);
  return id;
}

ClassId UnionFind::unite(ClassId a, ClassId b) {
  a = find(a);
  b = find(b);
  if (a == b) return a;
  if (size_.size() < parent_.size()) size_.resize(parent_.size(), 1);  // sets made since
  if (size_[a] < size_[b] || (size_[a] == size_[b] && b < a)) std::swap(a, b);
  parent_[b] = a;
  size_[a] += size_[b];
  return a;
}

void UnionFind::reserve(size_t n) { parent_.reserve(n); }

}  // namespace scalify::egraph
