// Writing a file so that a failure (a full disk, a crash) never leaves half of it, nor loses the
// file that was there: the text goes to `PATH.partial` beside it, which is then renamed over it.
#pragma once

#include <string>
#include <string_view>

#include "support/expected.h"

namespace scalify {

/// Writes `text` to `path` atomically; an error names the path and says why, with `what` ("the
/// report") in the message.
///
///   if (auto ok = write_file_atomically("out.html", html, "the report"); !ok) report(ok.error());
Expected<bool> write_file_atomically(const std::string& path, std::string_view text,
                                     std::string_view what);

}  // namespace scalify
