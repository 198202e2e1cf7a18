// Relations: Datalog-style tables of facts over e-class ids and plain values, e.g.
// `Shard(x, X, dim, axis)`, kept canonical as the e-graph merges classes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "egraph/egraph.h"
#include "support/expected.h"

namespace scalify::relations {

/// What a column holds: an e-class id (re-canonicalised after merges), an integer, or an
/// interned word (a Vocabulary symbol).
enum class Column : uint8_t { kClass, kInt, kWord };

/// One relation: its facts in insertion order, each with the iteration that added (or last
/// changed) it — its stamp, for semi-naive evaluation — and its reason.
///
///   Relation rep("Rep", {Column::kClass, Column::kClass});
///   rep.insert({x, X}, Reason{Reason::Kind::kAxiom, 0, 0}, /*stamp=*/0);   // true: new
///   rep.insert({x, X}, …);                                                  // false
///   g.merge(x, y); g.rebuild(); rep.canonicalize(g, 1);   // the fact now names find(x)
class Relation {
 public:
  Relation(std::string name, std::vector<Column> columns);

  const std::string& name() const { return name_; }
  const std::vector<Column>& columns() const { return columns_; }
  size_t arity() const { return columns_.size(); }
  size_t size() const { return stamps_.size(); }

  /// Adds a fact (class columns must be canonical); false if it was already there.
  bool insert(std::span<const uint32_t> row, egraph::Reason reason, uint32_t stamp);
  bool contains(std::span<const uint32_t> row) const;
  /// The index of a fact, or -1.
  int64_t find(std::span<const uint32_t> row) const;

  std::span<const uint32_t> row(size_t i) const {
    return std::span<const uint32_t>(rows_).subspan(i * arity(), arity());
  }
  uint32_t stamp(size_t i) const { return stamps_[i]; }
  egraph::Reason reason(size_t i) const { return reasons_[i]; }

  /// The facts whose `column` holds `value` (an index built on first use and kept up to date).
  std::span<const uint32_t> with(size_t column, uint32_t value);

  /// Rewrites class columns to canonical ids after merges; a fact that changes gets `stamp`
  /// (it is new to rules that join on it); duplicates collapse into the earliest. Returns the
  /// number of facts that changed.
  size_t canonicalize(const egraph::EGraph& g, uint32_t stamp);

 private:
  std::string key(std::span<const uint32_t> row) const;
  void rebuild_index();

  std::string name_;
  std::vector<Column> columns_;
  std::vector<uint32_t> rows_;  ///< arity() numbers per fact
  std::vector<uint32_t> stamps_;
  std::vector<egraph::Reason> reasons_;
  std::unordered_map<std::string, uint32_t> index_of_;  ///< row bytes -> fact index
  /// by column: value -> facts (built lazily; empty vector = not built)
  std::vector<std::unordered_map<uint32_t, std::vector<uint32_t>>> by_column_;
  std::vector<bool> column_indexed_;
};

/// All relations of a run, by name, and the current stamp (the runner's iteration).
class Database {
 public:
  /// Declares a relation; returns its index (the existing one if the same declaration).
  Expected<uint32_t> declare(const std::string& name, std::vector<Column> columns);
  std::optional<uint32_t> find(std::string_view name) const;
  Relation& relation(uint32_t i) { return relations_[i]; }
  const Relation& relation(uint32_t i) const { return relations_[i]; }
  size_t relation_count() const { return relations_.size(); }
  size_t fact_count() const;

  uint32_t stamp() const { return stamp_; }
  void set_stamp(uint32_t stamp) { stamp_ = stamp; }
  /// Canonicalises every relation (after an e-graph rebuild); returns facts changed.
  size_t canonicalize(const egraph::EGraph& g);

 private:
  std::vector<Relation> relations_;
  uint32_t stamp_ = 0;
};

}  // namespace scalify::relations
