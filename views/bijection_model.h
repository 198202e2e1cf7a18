// The bijection as an editable table: each distributed parameter, the reference parameter it
// holds, the layout relating them and how that was inferred. The reference and layout cells
// can be edited: a valid edit becomes an override (BijectionOverrides, the spec the check
// reads) and overridesChanged() asks for a new check; an invalid one is refused with a reason.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <vector>

#include "ir/module.h"
#include "verify/check_result.h"
#include "views/bijection_overrides.h"

namespace scalify::views {

class BijectionModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kDist, kRef, kLayout, kWhy, kColumnCount };
  /// What the "reference" cell takes for a parameter with no counterpart.
  static constexpr const char* kNoRef = "none";

  explicit BijectionModel(QObject* parent = nullptr);

  /// The programs the bijection relates, for checking edits against their types. Clears the
  /// overrides (they belong to the previous pair). Without programs nothing is editable.
  void set_programs(std::shared_ptr<const ir::Module> ref, std::shared_ptr<const ir::Module> dist);
  /// Shows `result`'s bijection (layouts written on its mesh); the overrides are kept.
  void set_result(const verify::CheckResult& result);
  /// Empties the table (overrides and programs are kept).
  void clear();

  const BijectionOverrides& overrides() const { return overrides_; }
  /// Puts back overrides saved with a session, their layouts on `mesh`: after set_programs(),
  /// before set_result() or a check (spec() carries them). Asks for no check
  /// (overridesChanged() is not emitted).
  void restore_overrides(BijectionOverrides overrides, const verify::Mesh& mesh);
  /// The spec that carries the overrides into the check; nullptr when there are none.
  std::shared_ptr<const verify::Spec> spec() const;
  bool is_overridden(int row) const;
  /// Drops the override of `row` / every override; overridesChanged() when one was dropped.
  void clear_override(int row);
  void clear_overrides();
  /// Why the last refused edit was refused ("" after an accepted one).
  const QString& last_error() const { return last_error_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 signals:
  /// The overrides changed: the check should run again with spec().
  void overridesChanged();
  /// An edit was refused; `reason` says why in one sentence.
  void editRefused(const QString& reason);

 private:
  struct Row {
    QString dist, ref, layout, why;
  };
  bool refuse(const QString& reason);
  /// The override `row` would get with its reference or layout cell set to `text`; nullopt
  /// (and last_error_ set) when the text is not a parameter or a layout.
  std::optional<ParameterOverride> edited(const Row& row, int column, const QString& text);
  void show_override(size_t row, const ParameterOverride& o);

  std::vector<Row> rows_;
  verify::Mesh mesh_;
  bool have_mesh_ = false;
  std::shared_ptr<const ir::Module> ref_, dist_;
  BijectionOverrides overrides_;
  QString last_error_;
};

}  // namespace scalify::views
