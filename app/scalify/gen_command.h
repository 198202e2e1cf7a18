// `scalify gen llama --preset tiny|8b|70b|405b [--layers N] [--seq S] [--batch B] [--decode]
//  [--tp N] [--sp] [--bug KIND[@LAYER]] --out DIR`: write a Llama reference / tensor-parallel
// pair (and the model.py their metadata points into), optionally with a planted bug.
#pragma once

#include <iosfwd>
#include <span>
#include <string_view>

namespace scalify::cli {

inline constexpr std::string_view kGenUsage =
    "gen llama --preset P [--layers N] [--seq S] [--batch B] [--decode] [--tp N] [--sp] "
    "[--experts E] "
    "[--bug KIND[@L]] --out DIR\n       scalify gen example NAME --out DIR | gen example --list";
inline constexpr std::string_view kGenHelp =
    "write a Llama pair DIR/ref.hlo, DIR/dist.hlo (and model.py), optionally with a planted bug;"
    " or a teaching example of the gallery";

/// Runs `gen` with the arguments after the command name. Writes the files, reports them on
/// `out`, errors on `err`; returns the exit code (0 ok, 2 bad usage or a file not written).
int run_gen(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace scalify::cli
