#include "views/bijection_model.h"

namespace scalify::views {

BijectionModel::BijectionModel(QObject* parent) : QAbstractTableModel(parent) {}

void BijectionModel::set_result(const verify::CheckResult& result) {
  beginResetModel();
  rows_.clear();
  for (const verify::BijectionEntry& e : result.bijection) {
    rows_.push_back({QString::fromStdString(e.dist), QString::fromStdString(e.ref),
                     QString::fromStdString(e.layout.to_string(result.mesh)),
                     QString::fromStdString(e.why)});
  }
  endResetModel();
}

void BijectionModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int BijectionModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int BijectionModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant BijectionModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case kDist:
      return row.dist;
    case kRef:
      return row.ref;
    case kLayout:
      return row.layout;
    case kWhy:
      return row.why;
    default:
      return {};
  }
}

QVariant BijectionModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kDist:
      return tr("distributed");
    case kRef:
      return tr("reference");
    case kLayout:
      return tr("layout");
    case kWhy:
      return tr("inferred from");
    default:
      return {};
  }
}

}  // namespace scalify::views
