// `scalify inspect FILE [--json]`: read an HLO module and summarise it.
#pragma once

#include <iosfwd>
#include <span>
#include <string_view>

namespace scalify::cli {

inline constexpr std::string_view kInspectUsage = "inspect FILE [--json]";
inline constexpr std::string_view kInspectHelp = "read an HLO module and summarise it";

/// Runs `inspect` with the arguments after the command name. Writes the summary (or, with
/// `--json`, one JSON object) to `out` and errors to `err`; returns the exit code
/// (0 ok, 2 bad input or usage).
int run_inspect(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace scalify::cli
