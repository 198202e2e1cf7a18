// The proof of the selected distributed node: a line naming the fact (`dot.2 ~ rep of dot.3`)
// and the tree of rule applications that derived it (ProofModel), or a line saying the check
// derived no layout for the node. Clicking a row asks to select that node in the graph panes.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <string>

#include "verify/check_result.h"

class QLabel;
class QTreeView;

namespace scalify::views {

class ProofModel;

class ProofPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ProofPanel(QWidget* parent = nullptr);

  /// The result whose derivation the proofs come from; shows no proof until show_node().
  void set_result(std::shared_ptr<const verify::CheckResult> result);
  /// No result (a new pair is loading).
  void clear();
  /// Shows the proof of distributed node `name` (as verify::fact_of_node picks its fact), or a
  /// line saying it has none.
  void show_node(const std::string& name);
  /// Shows the proof of fact `index` of the derivation (a goal's, say).
  void show_fact(size_t index);

  ProofModel* model() const { return model_; }
  QTreeView* tree() const { return tree_; }
  /// The line above the tree.
  QString message() const;

 signals:
  /// A row was clicked: the distributed node it names.
  void nodeActivated(const QString& name);

 private:
  QLabel* message_;
  QTreeView* tree_;
  ProofModel* model_;
  std::shared_ptr<const verify::CheckResult> result_;
};

}  // namespace scalify::views
