// The lines of a file around one line: the source site of a divergent node (`model.py:42`), or
// the HLO text of a node, for reports and the command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scalify::report {

struct SnippetLine {
  int64_t number = 0;  ///< 1-based
  std::string text;
  bool marked = false;  ///< the line asked for
};

struct Snippet {
  std::string path;  ///< the file read
  std::vector<SnippetLine> lines;
};

/// The file a recorded source path names here: the path itself when it exists, else (when it is
/// relative) the same path beside `beside_file` (a generated pair keeps its model.py beside the
/// HLO files); nullopt when neither exists.
///
///   locate_source("model.py", "/tmp/pair/dist.hlo")   // "/tmp/pair/model.py" if it exists
std::optional<std::string> locate_source(const std::string& recorded,
                                         const std::string& beside_file);

/// Lines `line - context … line + context` of `path`, the middle one marked; nullopt when the
/// file cannot be read or has no line `line`.
///
///   snippet("model.py", 42, 2)->lines.size() == 5   // lines 40 to 44, line 42 marked
std::optional<Snippet> snippet(const std::string& path, int64_t line, int64_t context = 2);

}  // namespace scalify::report
