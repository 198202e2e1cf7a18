// The window's second opinion: after a check, the independent proof checker re-checks the proof
// and the verdict says whether it agrees; a divergent result with nothing proven has nothing to
// re-check; a result the independent checker rejects shows in red (ProofRecheck alone, fed a
// tampered result).
#include "views/proof_recheck.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "verify/check.h"
#include "views/divergence_panel.h"
#include "views/main_window.h"
#include "views/pair_files.h"
#include "views_test_support.h"

namespace scalify::views {

namespace {

using test::wait_until;

}  // namespace

TEST_CASE("MainWindow: the independent checker re-checks each proven result") {
  MainWindow w;
  w.set_interactive(false);
  QTemporaryDir dir;
  REQUIRE(test::open_generated(w, test::tiny_llama(1), dir.path()));
  REQUIRE(w.result());
  REQUIRE(w.result()->verdict == verify::Verdict::kEquivalent);
  CHECK(w.divergence_panel()->recheck_text().startsWith("proof re-checked independently: "));
  CHECK(w.divergence_panel()->recheck_text().endsWith(" of 1 goals"));

  // The same pair with a planted bug: nothing proven, nothing to re-check.
  QTemporaryDir bug_dir;
  REQUIRE(test::open_generated(w, test::tiny_llama(1, "missing-allreduce@0"), bug_dir.path()));
  REQUIRE(w.result());
  REQUIRE(w.result()->verdict == verify::Verdict::kDivergent);
  CHECK(w.divergence_panel()->recheck_text().isEmpty());
}

TEST_CASE("ProofRecheck: a tampered proof is rejected, and a stale answer dropped") {
  QTemporaryDir dir;
  QString error;
  const PairPaths paths = write_llama_pair(test::tiny_llama(1), dir.path(), &error);
  REQUIRE(error.isEmpty());
  const LoadedPair pair = load_pair(paths);
  REQUIRE(pair.error.isEmpty());
  auto result = verify::check(*pair.ref, *pair.dist, {});
  REQUIRE(result);
  auto tampered = std::make_shared<verify::CheckResult>(*result);
  for (verify::DerivedFact& f : tampered->derivation) {
    if (f.rule == "all-reduce") {
      f.layout = verify::Layout::on(tampered->mesh, 0,
                                    verify::AxisLayout::partial(verify::ReduceOp::kSum));
      break;
    }
  }
  ProofRecheck recheck;
  QSignalSpy answers(&recheck, &ProofRecheck::finished);
  recheck.start(pair.ref_text, pair.dist_text, paths.ref, paths.dist, tampered);
  REQUIRE(wait_until([&] { return !recheck.running(); }));
  REQUIRE(answers.count() == 1);
  CHECK(answers[0][0].toInt() == static_cast<int>(ProofRecheck::Outcome::kRejected));
  CHECK(answers[0][1].toString().contains("rejects this proof: fact ["));

  // Cancelled before it answers: no answer.
  recheck.start(pair.ref_text, pair.dist_text, paths.ref, paths.dist,
                std::make_shared<verify::CheckResult>(*result));
  recheck.cancel();
  CHECK_FALSE(recheck.running());
  wait_until([] { return false; }, 1'000);  // events processed meanwhile: the late answer comes
  CHECK(answers.count() == 1);
}

}  // namespace scalify::views
