// `scalify proof verify FILE`: re-check an exported proof with the independent checker.
#pragma once

#include <iosfwd>
#include <span>
#include <string_view>

namespace scalify::cli {

inline constexpr std::string_view kProofUsage = "proof verify FILE [--json]";
inline constexpr std::string_view kProofHelp =
    "re-check an exported proof (check --proof, a report, a session) independently";

/// Runs `proof` with the arguments after the command name. FILE is a proof written by `check
/// --proof`, an HTML report (which embeds one) or a `.scalify` session. Prints what was
/// re-checked and what the verdict rests on; returns 0 accepted, 1 rejected (with the first
/// fact or goal that does not hold), 2 bad input or usage, 3 not re-checkable (a step cites a
/// rule or op the independent checker does not model).
int run_proof(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace scalify::cli
