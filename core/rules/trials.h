// The sampling loop the numeric checks of rewrites (rule_check.cpp) and of Datalog rules
// (datalog_check.cpp) share.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "rules/rule_check.h"
#include "support/diagnostic.h"

namespace scalify::rules::check {

/// Samples instances with `attempt` until `options.trials` of them agreed, one gave a
/// counterexample, or `options.max_attempts` ran out, and sets `out`'s verdict. `attempt`
/// returns why it discarded its instance, or nullopt when it checked it (then it has counted an
/// agreeing trial in `out.trials` or recorded `out.counterexample`).
void run_trials(DirectionCheck& out, const CheckOptions& options,
                const std::function<std::optional<std::string>()>& attempt);

/// Why a rule cannot be checked, as a direction's note: "message (at LINE:COL)".
std::string note_of(const Diagnostic& d);

}  // namespace scalify::rules::check
