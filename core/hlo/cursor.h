// Character-level scanning primitives shared by the HLO reader's parts.
// Internal to core/hlo: errors are thrown as ReadError and turned into a Diagnostic by
// read_module, which is the only entry point users see.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace scalify::hlo {

/// A reader error at a byte offset of the text (converted to LINE:COL at the boundary).
struct ReadError {
  size_t offset;
  std::string message;
};

/// A position in the text with the small vocabulary every HLO construct is made of.
class Cursor {
 public:
  explicit Cursor(std::string_view text)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  const char* ptr() const { return p_; }
  const char* end() const { return end_; }
  void reset(const char* p) { p_ = p; }
  bool at_end() const { return p_ >= end_; }
  /// The current character, or '\0' at the end.
  char peek() const { return p_ < end_ ? *p_ : '\0'; }
  char peek(size_t ahead) const { return p_ + ahead < end_ ? p_[ahead] : '\0'; }
  void advance(size_t n = 1) { p_ += n; }

  /// Skips spaces, newlines and comments (`/* … */`, `// …`). Inline fast path: most calls
  /// find a token right away.
  void skip_ws() {
    if (p_ < end_ && *p_ != ' ' && *p_ != '\n' && *p_ != '\t' && *p_ != '\r' && *p_ != '/') return;
    skip_ws_slow();
  }

  /// Skips white space, then consumes `c` if it is next.
  bool eat(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++p_;
    return true;
  }
  /// Skips white space, then consumes `s` if it is next.
  bool eat(std::string_view s);
  /// Skips white space, then requires `c`; `what` names the construct for the error.
  void expect(char c, std::string_view what);

  /// A name: [A-Za-z0-9_.-]+ with an optional leading '%' (dropped). Empty if none.
  std::string_view name();
  /// Like name() but fails with `what` if there is none.
  std::string_view expect_name(std::string_view what);
  /// An identifier-like word for opcodes and keys: [A-Za-z0-9_.-]+.
  std::string_view word();
  /// A decimal integer (optional '-'), checked for overflow.
  int64_t integer(std::string_view what);
  bool at_integer() const;
  /// A C-escaped string literal; returns the unescaped text.
  std::string string_literal();
  /// A bare value: letters, digits and `_ . + -` (numbers like 1e-05, words like kLoop).
  std::string_view bare_value();
  /// The verbatim text of a balanced value up to a top-level ',' or closing bracket,
  /// or (when `stop_at_newline`) a newline at depth 0. Strings and brackets are respected.
  std::string_view balanced(bool stop_at_newline);
  /// Text from just after an opening bracket (already consumed) to its matching `close`,
  /// which is consumed; the text excludes it.
  std::string_view until_matching(char open, char close, std::string_view what);

  [[noreturn]] void fail(std::string message) const {
    throw ReadError{offset(), std::move(message)};
  }
  [[noreturn]] void fail_at(const char* at, std::string message) const {
    throw ReadError{static_cast<size_t>(at - begin_), std::move(message)};
  }
  /// "'x'" for the current character, "end of file" at the end: for error messages.
  std::string describe_next() const;

 private:
  void skip_ws_slow();

  const char* begin_;
  const char* p_;
  const char* end_;
};

/// [A-Za-z0-9_.-]: the characters of names, opcodes and keys (a table: the reader's inner loop).
inline bool is_name_char(char c) {
  static constexpr auto kTable = [] {
    std::array<bool, 256> t{};
    for (int ch = 0; ch < 256; ++ch) {
      t[static_cast<size_t>(ch)] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                                   (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
    }
    return t;
  }();
  return kTable[static_cast<unsigned char>(c)];
}

}  // namespace scalify::hlo
