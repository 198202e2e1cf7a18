// A command line run checks once and exits: what it built (two parsed programs, a part module
// per layer, every fact of the proof) goes back to the system with the process, far faster than
// freeing it object by object (clang's -disable-free does the same). Commands called in a
// process that goes on (the tests) free as usual.
#pragma once

#include <iosfwd>

namespace scalify::cli {

/// Called once by main(): commands that finish may end the process (the default is no).
void exit_when_done(bool enabled);

/// A command's last word: with exit_when_done(true), flushes `out`, `err` and the C streams and
/// ends the process with `code`, skipping every destructor; otherwise returns `code`.
///
///   return finish(result->verdict == Verdict::kEquivalent ? 0 : 1, out, err);
int finish(int code, std::ostream& out, std::ostream& err);

}  // namespace scalify::cli
