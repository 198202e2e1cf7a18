#include "views/proof_model.h"

#include <utility>

namespace scalify::views {

ProofModel::ProofModel(QObject* parent) : QAbstractItemModel(parent) {}

void ProofModel::set_proof(std::shared_ptr<const verify::CheckResult> result, size_t root) {
  beginResetModel();
  result_ = std::move(result);
  nodes_.clear();
  if (result_ && root < result_->derivation.size()) nodes_.push_back({root, -1, 0, {}});
  endResetModel();
}

void ProofModel::clear() { set_proof(nullptr, 0); }

std::optional<size_t> ProofModel::root_fact() const {
  if (nodes_.empty()) return std::nullopt;
  return nodes_[0].fact;
}

std::optional<size_t> ProofModel::fact_at(const QModelIndex& index) const {
  if (!index.isValid() || index.internalId() >= nodes_.size()) return std::nullopt;
  return nodes_[index.internalId()].fact;
}

const verify::DerivedFact* ProofModel::fact_of(int node) const {
  if (!result_ || node < 0 || static_cast<size_t>(node) >= nodes_.size()) return nullptr;
  const size_t f = nodes_[static_cast<size_t>(node)].fact;
  return f < result_->derivation.size() ? &result_->derivation[f] : nullptr;
}

int ProofModel::child(int node, int row) const {
  const verify::DerivedFact* f = fact_of(node);
  if (!f || row < 0 || static_cast<size_t>(row) >= f->premises.size()) return -1;
  if (nodes_[static_cast<size_t>(node)].children.empty()) {
    // Made all at once: the premises are few, and the rows keep their ids from now on.
    std::vector<int> made;
    for (size_t k = 0; k < f->premises.size(); ++k) {
      made.push_back(static_cast<int>(nodes_.size()));
      nodes_.push_back({f->premises[k], node, static_cast<int>(k), {}});
    }
    nodes_[static_cast<size_t>(node)].children = std::move(made);
  }
  return nodes_[static_cast<size_t>(node)].children[static_cast<size_t>(row)];
}

QModelIndex ProofModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= kColumnCount) return {};
  if (!parent.isValid()) {
    return row == 0 && !nodes_.empty() ? createIndex(0, column, quintptr{0}) : QModelIndex();
  }
  if (parent.column() != 0) return {};
  const int id = child(static_cast<int>(parent.internalId()), row);
  return id < 0 ? QModelIndex() : createIndex(row, column, static_cast<quintptr>(id));
}

QModelIndex ProofModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() >= nodes_.size()) return {};
  const int up = nodes_[child.internalId()].parent;
  if (up < 0) return {};
  return createIndex(nodes_[static_cast<size_t>(up)].row, 0, static_cast<quintptr>(up));
}

int ProofModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return nodes_.empty() ? 0 : 1;
  if (parent.column() != 0) return 0;
  const verify::DerivedFact* f = fact_of(static_cast<int>(parent.internalId()));
  return f ? static_cast<int>(f->premises.size()) : 0;
}

int ProofModel::columnCount(const QModelIndex&) const { return kColumnCount; }

QVariant ProofModel::data(const QModelIndex& index, int role) const {
  const verify::DerivedFact* f =
      index.isValid() ? fact_of(static_cast<int>(index.internalId())) : nullptr;
  if (!f) return {};
  if (role == Qt::ToolTipRole)
    return QString::fromStdString(verify::fact_summary(*f, result_->mesh));
  if (role == kNodeRole) return QString::fromStdString(f->dist);
  if (role == kFactRole) return static_cast<qulonglong>(f->index);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kNode:
      return QString::fromStdString(verify::value_name(*f));
    case kLayout:
      return QString::fromStdString(f->layout.to_string(result_->mesh));
    case kReference:
      return f->ref.empty() ? QStringLiteral("e-class %1").arg(f->eclass)
                            : QString::fromStdString(f->ref);
    case kRule:
      return QString::fromStdString(f->rule);
    default:
      return {};
  }
}

QVariant ProofModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kNode:
      return tr("distributed");
    case kLayout:
      return tr("layout");
    case kReference:
      return tr("of reference");
    case kRule:
      return tr("by rule");
    default:
      return {};
  }
}

}  // namespace scalify::views
