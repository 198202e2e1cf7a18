// The window's second opinion: after every check, the independent proof checker
// (proofcheck/proof_check.h, what `scalify proof verify` runs) re-checks the result's proof on the
// thread pool, and the verdict shows whether it agrees. A stale re-check (another pair or result
// came meanwhile) is dropped by its generation.
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <string>

#include "verify/check_result.h"

namespace scalify::views {

class ProofRecheck : public QObject {
  Q_OBJECT

 public:
  /// What the re-check said.
  enum class Outcome { kAccepted, kRejected, kNotCheckable, kError };

  explicit ProofRecheck(QObject* parent = nullptr) : QObject(parent) {}

  /// Re-checks `result`'s proof from both programs' text (`ref_path`/`dist_path` label it).
  /// Results with no proven goal have nothing to re-check: nothing is emitted.
  void start(std::shared_ptr<const std::string> ref_text,
             std::shared_ptr<const std::string> dist_text, const QString& ref_path,
             const QString& dist_path, std::shared_ptr<const verify::CheckResult> result);
  /// Forgets a re-check in flight (its answer will be dropped).
  void cancel() {
    ++generation_;
    running_ = false;
  }
  bool running() const { return running_; }

 signals:
  /// One line for people: "proof re-checked independently: 178 facts, 3 of 3 goals" or why not.
  void finished(int outcome, const QString& summary);

 private:
  uint64_t generation_ = 0;
  bool running_ = false;
};

}  // namespace scalify::views
