// The proof panel: its model passes QAbstractItemModelTester; a proven node's tree has the node
// at the root and the bijection's facts (or constants) as leaves; clicking a row names its node.
#include "views/proof_panel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>

#include "modelgen/llama_config.h"
#include "verify/check.h"
#include "views/pair_files.h"
#include "views/proof_model.h"
#include "views_test_support.h"

namespace scalify::views {

namespace {

int g_warnings = 0;

/// QAbstractItemModelTester reports in Warning mode through qWarning: count them.
void count_warnings(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtWarningMsg || type == QtCriticalMsg || type == QtFatalMsg) {
    ++g_warnings;
    fprintf(stderr, "%s\n", qPrintable(message));
  }
}

/// The tiny generated pair (tp 2, layer by layer), loaded and checked.
struct Checked {
  LoadedPair pair;
  std::shared_ptr<const verify::CheckResult> result;
};

Checked tiny_checked() {
  QTemporaryDir dir;
  const modelgen::GenOptions options = test::tiny_llama();
  QString error;
  Checked c;
  c.pair = load_pair(write_llama_pair(options, dir.path(), &error));
  REQUIRE(c.pair.error.isEmpty());
  auto r = verify::check(*c.pair.ref, *c.pair.dist, {});
  REQUIRE(r);
  REQUIRE(r->verdict == verify::Verdict::kEquivalent);
  c.result = std::make_shared<const verify::CheckResult>(std::move(*r));
  return c;
}

/// A matched node computed by a dot (a fact with a real derivation behind it), the last one.
std::string proven_dot(const Checked& c) {
  const ir::Computation& d = c.pair.dist->entry();
  std::string found;
  for (const verify::NodeMatch& m : c.result->matches) {
    const auto id = d.find(m.dist);
    if (id && d[*id].opcode == ir::Opcode::kDot) found = m.dist;
  }
  return found;
}

}  // namespace

TEST_CASE("ProofModel passes QAbstractItemModelTester through set, walk and clear") {
  const Checked c = tiny_checked();
  const std::string node = proven_dot(c);
  REQUIRE(!node.empty());
  const size_t fact = verify::fact_of_node(c.result->derivation, node);
  REQUIRE(fact < c.result->derivation.size());
  g_warnings = 0;
  const QtMessageHandler previous = qInstallMessageHandler(count_warnings);
  {
    ProofModel model;
    QAbstractItemModelTester tester(&model,
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    CHECK(model.rowCount() == 0);
    model.set_proof(c.result, fact);
    REQUIRE(model.rowCount() == 1);
    CHECK(model.columnCount() == ProofModel::kColumnCount);
    const QModelIndex root = model.index(0, 0);
    CHECK(model.rowCount(root) == static_cast<int>(c.result->derivation[fact].premises.size()));
    CHECK(model.rowCount(model.index(0, ProofModel::kRule)) == 0);
    const QModelIndex first = model.index(0, 0, root);
    REQUIRE(first.isValid());
    CHECK(model.parent(first) == root);
    CHECK(model.index(0, 0, root) == first);  // the same row, asked again
    CHECK(model.headerData(ProofModel::kRule, Qt::Horizontal).toString() == "by rule");
    model.clear();
    CHECK(model.rowCount() == 0);
    model.set_proof(c.result, fact);
    model.set_proof(c.result, c.result->derivation.size());  // out of range: nothing
    CHECK(model.rowCount() == 0);
    model.set_proof(c.result, 0);
  }
  qInstallMessageHandler(previous);
  CHECK(g_warnings == 0);
}

TEST_CASE("ProofPanel: a proven node's tree rests on the bijection; a row click names its node") {
  const Checked c = tiny_checked();
  const std::string node = proven_dot(c);
  REQUIRE(!node.empty());
  ProofPanel panel;
  panel.set_result(c.result);
  panel.show_node(node);
  const ProofModel& model = *panel.model();
  REQUIRE(model.rowCount() == 1);
  const QModelIndex root = model.index(0, ProofModel::kNode);
  CHECK(model.data(root, ProofModel::kNodeRole).toString().toStdString() == node);
  CHECK(model.data(root).toString().toStdString() == node);
  CHECK(model.data(model.index(0, ProofModel::kRule)).toString() == "factor:dot");
  CHECK(panel.message().contains(QString::fromStdString(node)));

  // Walk every distinct fact of the tree once: the leaves (rows without children) are the
  // bijection's facts, or values with no operands (constants, iotas).
  const ir::Computation& d = c.pair.dist->entry();
  std::set<size_t> seen;
  std::set<std::string> leaf_rules;
  size_t bijection_leaves = 0;
  std::vector<QModelIndex> todo{root};
  while (!todo.empty()) {
    const QModelIndex at = todo.back();
    todo.pop_back();
    const size_t f = *model.fact_at(at);
    if (!seen.insert(f).second) continue;
    const verify::DerivedFact& fact = c.result->derivation[f];
    CHECK(model.data(at, ProofModel::kFactRole).toULongLong() == f);
    const int rows = model.rowCount(at);
    CHECK(rows == static_cast<int>(fact.premises.size()));
    for (int r = 0; r < rows; ++r) {
      const QModelIndex kid = model.index(r, 0, at);
      CHECK(*model.fact_at(kid) < f);  // a premise comes before the fact resting on it
      todo.push_back(kid);
    }
    if (rows > 0) continue;
    leaf_rules.insert(fact.rule);
    const auto id = d.find(fact.dist);
    REQUIRE(id);
    INFO("leaf " << fact.dist << " by " << fact.rule);
    CHECK((fact.rule == "bijection" || fact.rule == "assumption" || d[*id].operands.empty()));
    bijection_leaves += fact.rule == "bijection" ? 1 : 0;
  }
  CHECK(bijection_leaves >= 2);  // a dot of two values derived from parameters
  CHECK(seen.size() == verify::proof_closure(c.result->derivation, *model.root_fact()).size());

  // Clicking a premise row names its node.
  QSignalSpy activated(&panel, &ProofPanel::nodeActivated);
  const QModelIndex premise = model.index(0, ProofModel::kLayout, root);
  emit panel.tree()->clicked(premise);
  REQUIRE(activated.count() == 1);
  CHECK(activated.at(0).at(0).toString() == model.data(premise, ProofModel::kNodeRole).toString());

  // A node with no fact says so.
  panel.show_node("no-such-node.1");
  CHECK(model.rowCount() == 0);
  CHECK(panel.message().contains("has no layout fact"));
  panel.clear();
  CHECK(model.rowCount() == 0);
}

}  // namespace scalify::views
