#include "views/proof_recheck.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "proofcheck/proof_check.h"

namespace scalify::views {

namespace {

struct Answer {
  ProofRecheck::Outcome outcome = ProofRecheck::Outcome::kError;
  QString summary;
};

Answer recheck(const proofcheck::ProofFile& proof) {
  auto report = proofcheck::check_proof(proof);
  if (!report) {
    return {ProofRecheck::Outcome::kError,
            QStringLiteral("proof not re-checked: %1")
                .arg(QString::fromStdString(report.error().message))};
  }
  using O = proofcheck::ProofCheckReport::Outcome;
  const QString why = QString::fromStdString(report->why);
  switch (report->outcome) {
    case O::kAccepted:
      return {ProofRecheck::Outcome::kAccepted,
              QStringLiteral("proof re-checked independently: %1 facts, %2 of %3 goals")
                  .arg(report->facts)
                  .arg(report->goals)
                  .arg(report->goals_in_all)};
    case O::kRejected:
      return {ProofRecheck::Outcome::kRejected,
              QStringLiteral("the independent proof checker rejects this proof: %1").arg(why)};
    case O::kNotCheckable:
      return {ProofRecheck::Outcome::kNotCheckable,
              QStringLiteral("proof not re-checked independently: %1").arg(why)};
  }
  return {};
}

}  // namespace

void ProofRecheck::start(std::shared_ptr<const std::string> ref_text,
                         std::shared_ptr<const std::string> dist_text, const QString& ref_path,
                         const QString& dist_path,
                         std::shared_ptr<const verify::CheckResult> result) {
  const uint64_t generation = ++generation_;
  running_ = false;
  const bool proven = result && std::any_of(result->goals.begin(), result->goals.end(),
                                            [](const verify::Goal& g) { return g.proven; });
  if (!proven || !ref_text || !dist_text) return;
  running_ = true;
  auto* watcher = new QFutureWatcher<Answer>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != generation_) return;  // another result came meanwhile
    running_ = false;
    const Answer a = watcher->result();
    emit finished(static_cast<int>(a.outcome), a.summary);
  });
  watcher->setFuture(QtConcurrent::run(
      [ref_text, dist_text, result, ref = ref_path.toStdString(), dist = dist_path.toStdString()] {
        return recheck({ref, *ref_text, dist, *dist_text, *result});
      }));
}

}  // namespace scalify::views
