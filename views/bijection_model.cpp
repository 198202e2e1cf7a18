#include "views/bijection_model.h"

#include <QFont>
#include <utility>

namespace scalify::views {

namespace {

const QString kUser = QStringLiteral("user (edited here)");

}  // namespace

BijectionModel::BijectionModel(QObject* parent) : QAbstractTableModel(parent) {}

void BijectionModel::set_programs(std::shared_ptr<const ir::Module> ref,
                                  std::shared_ptr<const ir::Module> dist) {
  ref_ = std::move(ref);
  dist_ = std::move(dist);
  overrides_.clear();
  last_error_.clear();
  clear();
}

void BijectionModel::set_result(const verify::CheckResult& result) {
  beginResetModel();
  rows_.clear();
  mesh_ = result.mesh;
  have_mesh_ = true;
  for (const verify::BijectionEntry& e : result.bijection) {
    rows_.push_back({QString::fromStdString(e.dist), QString::fromStdString(e.ref),
                     QString::fromStdString(e.layout.to_string(result.mesh)),
                     QString::fromStdString(e.why)});
  }
  // A parameter pinned to no counterpart is not in the bijection: keep it in the table, so that
  // its override shows and can be cleared.
  for (const std::string& name : result.unmatched_dist_parameters) {
    const ParameterOverride* o = overrides_.find(name);
    if (!o || o->ref) continue;
    rows_.push_back({QString::fromStdString(name), QString::fromLatin1(kNoRef), QString(),
                     tr("no counterpart")});
  }
  endResetModel();
}

void BijectionModel::restore_overrides(BijectionOverrides overrides, const verify::Mesh& mesh) {
  overrides_ = std::move(overrides);
  mesh_ = mesh;
  have_mesh_ = true;
  if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
}

void BijectionModel::clear() {
  beginResetModel();
  rows_.clear();
  have_mesh_ = false;
  endResetModel();
}

std::shared_ptr<const verify::Spec> BijectionModel::spec() const {
  if (overrides_.empty() || !have_mesh_) return nullptr;
  return std::make_shared<const verify::Spec>(overrides_.to_spec(mesh_));
}

bool BijectionModel::is_overridden(int row) const {
  return row >= 0 && static_cast<size_t>(row) < rows_.size() &&
         overrides_.find(rows_[static_cast<size_t>(row)].dist.toStdString()) != nullptr;
}

void BijectionModel::clear_override(int row) {
  if (!is_overridden(row)) return;
  overrides_.erase(rows_[static_cast<size_t>(row)].dist.toStdString());
  emit dataChanged(index(row, 0), index(row, kColumnCount - 1));
  emit overridesChanged();
}

void BijectionModel::clear_overrides() {
  if (overrides_.empty()) return;
  overrides_.clear();
  if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
  emit overridesChanged();
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
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const bool user = is_overridden(index.row());
  if (role == Qt::FontRole) {
    if (!user) return {};
    QFont font;
    font.setItalic(true);
    return font;
  }
  if (role == Qt::ToolTipRole && user) {
    return tr("Set by you (right-click to clear). The check says: %1").arg(row.why);
  }
  if (role != Qt::DisplayRole && role != Qt::EditRole && role != Qt::ToolTipRole) return {};
  switch (index.column()) {
    case kDist:
      return row.dist;
    case kRef:
      return row.ref;
    case kLayout:
      return row.layout;
    case kWhy:
      return user && role != Qt::ToolTipRole ? kUser : row.why;
    default:
      return {};
  }
}

Qt::ItemFlags BijectionModel::flags(const QModelIndex& index) const {
  // The model's root (an invalid index) is asked for too: it is no cell, and no warning.
  if (!index.isValid() || index.model() != this || index.row() >= rowCount()) {
    return Qt::NoItemFlags;
  }
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  const bool editable_column = index.column() == kRef || index.column() == kLayout;
  if (editable_column && ref_ && dist_ && have_mesh_) f |= Qt::ItemIsEditable;
  return f;
}

bool BijectionModel::refuse(const QString& reason) {
  last_error_ = reason;
  emit editRefused(reason);
  return false;
}

std::optional<ParameterOverride> BijectionModel::edited(const Row& row, int column,
                                                        const QString& text) {
  const auto layout_of = [this](const QString& t) {
    return verify::Layout::parse(t.toStdString(), mesh_);
  };
  if (column == kRef && text.isEmpty()) {
    refuse(tr("give the name of a reference parameter for %1, or %2 when it has no counterpart")
               .arg(row.dist, QLatin1String(kNoRef)));
    return std::nullopt;
  }
  ParameterOverride o;
  const QString ref_text = column == kRef ? text : row.ref;
  if (ref_text.isEmpty() || ref_text == QLatin1String(kNoRef)) {
    if (column == kLayout) {
      refuse(tr("%1 has no reference parameter: give one before its layout").arg(row.dist));
      return std::nullopt;
    }
    o.layout = verify::Layout::replicated(mesh_.rank());
    return o;  // no counterpart
  }
  o.ref = (ref_text.startsWith(QLatin1Char('%')) ? ref_text.mid(1) : ref_text).toStdString();
  if (column == kLayout) {
    const std::optional<verify::Layout> layout = layout_of(text);
    if (!layout) {
      const QString mesh = QString::fromStdString(mesh_.to_string());
      refuse(tr("“%1” is not a layout on the mesh %2: write rep, shard(DIM,AXIS) (with ,pad N "
                "when padded), or partial(sum,AXIS) (also max, min, mean); several axes are "
                "joined by +, as in a spec file")
                 .arg(text, mesh));
      return std::nullopt;
    }
    o.layout = *layout;
  } else {
    // A new reference keeps the row's layout (replicated when the row had none).
    o.layout = layout_of(row.layout).value_or(verify::Layout::replicated(mesh_.rank()));
  }
  return o;
}

bool BijectionModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable)) return false;
  const size_t r = static_cast<size_t>(index.row());
  const QString text = value.toString().trimmed();
  const Row& row = rows_[r];
  if (text == (index.column() == kRef ? row.ref : row.layout)) {
    last_error_.clear();
    return true;  // unchanged: nothing to check again
  }
  const std::optional<ParameterOverride> o = edited(row, index.column(), text);
  if (!o) return false;
  BijectionOverrides next = overrides_;
  next.set(row.dist.toStdString(), *o);
  const std::string misfit = next.misfit(*ref_, *dist_, mesh_);
  if (!misfit.empty()) return refuse(QString::fromStdString(misfit));
  overrides_ = std::move(next);
  last_error_.clear();
  show_override(r, *o);
  emit dataChanged(this->index(index.row(), 0), this->index(index.row(), kColumnCount - 1));
  emit overridesChanged();
  return true;
}

void BijectionModel::show_override(size_t row, const ParameterOverride& o) {
  Row& shown = rows_[row];
  shown.ref = o.ref ? QString::fromStdString(*o.ref) : QString::fromLatin1(kNoRef);
  shown.layout = o.ref ? QString::fromStdString(o.layout.to_string(mesh_)) : QString();
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
