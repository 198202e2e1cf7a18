// Positions and diagnostics: how every error in `core` points at the user's input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace scalify {

/// A 1-based line and column in a text file; {0, 0} means "unknown".
struct SourcePos {
  uint32_t line = 0;
  uint32_t col = 0;
  bool known() const { return line != 0; }
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

/// One error about a user's file, printed as `FILE:LINE:COL: error: MESSAGE`,
/// then the offending line and a caret under the column.
///
///   Diagnostic d{"a.hlo", {3, 7}, "undefined operand 'x'", "  %y = f32[] negate(%x)"};
///   std::cerr << d.format();
struct Diagnostic {
  std::string file;
  SourcePos pos;
  std::string message;
  std::string line_text;  ///< the source line the position is on, without its newline

  std::string format() const;
};

/// Returns the text of the 1-based line `line` of `text` (without the newline).
std::string_view line_of(std::string_view text, uint32_t line);

}  // namespace scalify
