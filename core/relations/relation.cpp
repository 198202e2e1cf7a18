#include "relations/relation.h"

#include <cstring>

namespace scalify::relations {

Relation::Relation(std::string name, std::vector<Column> columns)
    : name_(std::move(name)),
      columns_(std::move(columns)),
      by_column_(columns_.size()),
      column_indexed_(columns_.size(), false) {}

std::string Relation::key(std::span<const uint32_t> row) const {
  std::string k(row.size() * sizeof(uint32_t), '\0');
  std::memcpy(k.data(), row.data(), k.size());
  return k;
}

bool Relation::insert(std::span<const uint32_t> row, egraph::Reason reason, uint32_t stamp) {
  const auto index = static_cast<uint32_t>(stamps_.size());
  if (!index_of_.try_emplace(key(row), index).second) return false;
  rows_.insert(rows_.end(), row.begin(), row.end());
  stamps_.push_back(stamp);
  reasons_.push_back(reason);
  for (size_t c = 0; c < arity(); ++c) {
    if (column_indexed_[c]) by_column_[c][row[c]].push_back(index);
  }
  return true;
}

int64_t Relation::find(std::span<const uint32_t> row) const {
  auto it = index_of_.find(key(row));
  if (it == index_of_.end()) return -1;
  return it->second;
}

bool Relation::contains(std::span<const uint32_t> row) const { return find(row) >= 0; }

std::span<const uint32_t> Relation::with(size_t column, uint32_t value) {
  if (!column_indexed_[column]) {
    for (uint32_t i = 0; i < size(); ++i) by_column_[column][row(i)[column]].push_back(i);
    column_indexed_[column] = true;
  }
  auto it = by_column_[column].find(value);
  if (it == by_column_[column].end()) return {};
  return it->second;
}

size_t Relation::canonicalize(const egraph::EGraph& g, uint32_t stamp) {
  size_t changed = 0;
  std::vector<uint32_t> rows;
  std::vector<uint32_t> stamps;
  std::vector<egraph::Reason> reasons;
  rows.reserve(rows_.size());
  index_of_.clear();
  std::vector<uint32_t> canonical(arity());
  for (size_t i = 0; i < size(); ++i) {
    bool moved = false;
    for (size_t c = 0; c < arity(); ++c) {
      canonical[c] = row(i)[c];
      if (columns_[c] == Column::kClass) {
        canonical[c] = g.find(canonical[c]);
        moved = moved || canonical[c] != row(i)[c];
      }
    }
    if (!index_of_.try_emplace(key(canonical), static_cast<uint32_t>(stamps.size())).second) {
      ++changed;  // a duplicate of an earlier fact now
      continue;
    }
    rows.insert(rows.end(), canonical.begin(), canonical.end());
    stamps.push_back(moved ? stamp : stamps_[i]);
    reasons.push_back(reasons_[i]);
    changed += moved;
  }
  if (changed == 0) return 0;
  rows_ = std::move(rows);
  stamps_ = std::move(stamps);
  reasons_ = std::move(reasons);
  for (auto& index : by_column_) index.clear();
  column_indexed_.assign(arity(), false);
  return changed;
}

Expected<uint32_t> Database::declare(const std::string& name, std::vector<Column> columns) {
  if (auto existing = find(name)) {
    if (relations_[*existing].columns() == columns) return *existing;
    return Diagnostic{
        "", {}, "relation '" + name + "' is declared twice with different columns", ""};
  }
  relations_.emplace_back(name, std::move(columns));
  return static_cast<uint32_t>(relations_.size() - 1);
}

std::optional<uint32_t> Database::find(std::string_view name) const {
  for (uint32_t i = 0; i < relations_.size(); ++i) {
    if (relations_[i].name() == name) return i;
  }
  return std::nullopt;
}

size_t Database::fact_count() const {
  size_t n = 0;
  for (const Relation& r : relations_) n += r.size();
  return n;
}

size_t Database::canonicalize(const egraph::EGraph& g) {
  size_t changed = 0;
  for (Relation& r : relations_) changed += r.canonicalize(g, stamp_);
  return changed;
}

}  // namespace scalify::relations
