// A fact's proof as a tree of rule applications: the fact at the root, the facts it was derived
// from as its children, theirs below them, down to the bijection's facts (the leaves). Rows are
// made as the view asks for them, so a proof shared by many branches costs only what is shown.
#pragma once

#include <QAbstractItemModel>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "verify/check_result.h"

namespace scalify::views {

class ProofModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column { kNode, kLayout, kReference, kRule, kColumnCount };
  /// data(): the distributed node's name (QString) and the fact's index (qulonglong).
  static constexpr int kNodeRole = Qt::UserRole + 1;
  static constexpr int kFactRole = Qt::UserRole + 2;

  explicit ProofModel(QObject* parent = nullptr);

  /// Shows the proof of fact `root` of `result`'s derivation (an index out of range: nothing).
  void set_proof(std::shared_ptr<const verify::CheckResult> result, size_t root);
  void clear();
  /// The fact at the root, when there is one.
  std::optional<size_t> root_fact() const;
  /// The fact a row shows.
  std::optional<size_t> fact_at(const QModelIndex& index) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  /// One row of the tree: a fact, where it hangs, and its children once asked for.
  struct Node {
    size_t fact = 0;
    int parent = -1;  ///< -1: the root
    int row = 0;      ///< among its parent's children
    std::vector<int> children;
  };
  const verify::DerivedFact* fact_of(int node) const;
  /// The node of child `row` of `node`, made on first use.
  int child(int node, int row) const;

  std::shared_ptr<const verify::CheckResult> result_;
  mutable std::vector<Node> nodes_;  ///< nodes_[0] is the root; internalId() indexes it
};

}  // namespace scalify::views
