#include "views/proof_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>
#include <utility>
#include <vector>

#include "views/proof_model.h"

namespace scalify::views {

namespace {

/// How many facts the proof of fact `root` has, and how many of them are the bijection's.
std::pair<size_t, size_t> proof_size(const std::vector<verify::DerivedFact>& derivation,
                                     size_t root) {
  const std::vector<size_t> closure = verify::proof_closure(derivation, root);
  size_t leaves = 0;
  for (size_t f : closure) leaves += derivation[f].premises.empty() ? 1 : 0;
  return {closure.size(), leaves};
}

}  // namespace

ProofPanel::ProofPanel(QWidget* parent)
    : QWidget(parent),
      message_(new QLabel(this)),
      tree_(new QTreeView(this)),
      model_(new ProofModel(this)) {
  auto* layout = new QVBoxLayout(this);
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tree_->setModel(model_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->header()->setStretchLastSection(true);
  tree_->setToolTip(
      tr("Each row: a distributed value, its layout, the reference value it "
         "holds and the rule that derived it from the rows below it. Click a "
         "row to select its node."));
  layout->addWidget(message_);
  layout->addWidget(tree_, 1);
  connect(tree_, &QTreeView::clicked, this, [this](const QModelIndex& index) {
    const QString name = model_->data(index, ProofModel::kNodeRole).toString();
    if (!name.isEmpty()) emit nodeActivated(name);
  });
  clear();
}

QString ProofPanel::message() const { return message_->text(); }

void ProofPanel::set_result(std::shared_ptr<const verify::CheckResult> result) {
  result_ = std::move(result);
  model_->clear();
  message_->setText(result_ && !result_->derivation.empty()
                        ? tr("Select a distributed node to see how its layout was proved.")
                        : tr("The check derived no layout facts."));
}

void ProofPanel::clear() {
  result_.reset();
  model_->clear();
  message_->setText(tr("No proof yet: the check has not ended."));
}

void ProofPanel::show_node(const std::string& name) {
  if (!result_) return;
  const QString node = QString::fromStdString(name);
  const size_t f = verify::fact_of_node(result_->derivation, name);
  if (f == std::string::npos) {
    model_->clear();
    const bool divergent = result_->divergence && result_->divergence->dist_node == name;
    message_->setText(
        divergent ? tr("%1 has no layout fact: it is where the check diverges.").arg(node)
                  : tr("%1 has no layout fact: the check proved nothing of its value.").arg(node));
    return;
  }
  show_fact(f);
}

void ProofPanel::show_fact(size_t f) {
  if (!result_ || f >= result_->derivation.size()) return;
  model_->set_proof(result_, f);
  const auto [facts, leaves] = proof_size(result_->derivation, f);
  message_->setText(
      tr("%1\n%n fact(s) in its proof; %2 of them rest on no other fact (the bijection's "
         "facts and constants)",
         nullptr, static_cast<int>(facts))
          .arg(QString::fromStdString(verify::fact_summary(result_->derivation[f], result_->mesh)))
          .arg(leaves));
  tree_->expandToDepth(1);
  tree_->resizeColumnToContents(ProofModel::kNode);
  tree_->resizeColumnToContents(ProofModel::kLayout);
  tree_->resizeColumnToContents(ProofModel::kReference);
}

}  // namespace scalify::views
