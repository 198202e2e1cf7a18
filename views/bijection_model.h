// The bijection as a table: each distributed parameter, the reference parameter it holds, the
// layout relating them and how that was inferred.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "verify/check_result.h"

namespace scalify::views {

class BijectionModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kDist, kRef, kLayout, kWhy, kColumnCount };

  explicit BijectionModel(QObject* parent = nullptr);

  /// Shows `result`'s bijection (layouts written on its mesh); an empty result clears.
  void set_result(const verify::CheckResult& result);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString dist, ref, layout, why;
  };
  std::vector<Row> rows_;
};

}  // namespace scalify::views
