// json::parse: a strict recursive-descent JSON parser with positioned diagnostics.
#include <charconv>
#include <cstdlib>
#include <optional>
#include <unordered_set>

#include "support/json.h"

namespace scalify::json {

/// One parse. Methods return false after recording the first error (no exceptions: this runs on
/// untrusted files, and the first error is the one worth reporting).
class Parser {
 public:
  Parser(std::string_view text, std::string_view file, const ParseOptions& options)
      : text_(text), file_(file), options_(options) {}

  Expected<Value> run() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a UTF-8 byte order mark
    Value v;
    skip_ws();
    if (parse_value(v, 0)) {
      skip_ws();
      if (i_ < text_.size()) fail(i_, "unexpected " + describe(i_) + " after the JSON value");
    }
    if (error_) return std::move(*error_);
    return v;
  }

 private:
  bool at_end() const { return i_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[i_]; }

  void skip_ws() {
    while (!at_end() &&
           (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r')) {
      ++i_;
    }
  }

  bool fail(size_t at, std::string message) {
    if (!error_) {
      // Line and column are computed only on error: the fast path never counts lines.
      SourcePos pos{1, 1};
      for (size_t k = 0; k < at && k < text_.size(); ++k) {
        if (text_[k] == '\n') {
          ++pos.line;
          pos.col = 1;
        } else {
          ++pos.col;
        }
      }
      error_ = Diagnostic{std::string(file_), pos, std::move(message),
                          std::string(line_of(text_, pos.line))};
    }
    return false;
  }

  /// "'x'", "end of input" or "byte 0x01": what the parser found at `at`, for messages.
  std::string describe(size_t at) const {
    if (at >= text_.size()) return "end of input";
    const unsigned char c = static_cast<unsigned char>(text_[at]);
    if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
    static constexpr char kHex[] = "0123456789ABCDEF";
    return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xF];
  }

  bool parse_value(Value& out, int depth) {
    const char c = peek();
    switch (c) {
      case '{':
        return parse_object(out, depth);
      case '[':
        return parse_array(out, depth);
      case '"': {
        std::string s;
        if (!parse_string(s)) return false;
        out = std::move(s);
        return true;
      }
      default:
        break;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(out);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return parse_word(out);
    return fail(i_, "expected a JSON value, found " + describe(i_));
  }

  bool parse_word(Value& out) {
    const size_t start = i_;
    while (!at_end() && ((peek() >= 'a' && peek() <= 'z') || (peek() >= 'A' && peek() <= 'Z'))) {
      ++i_;
    }
    const std::string_view word = text_.substr(start, i_ - start);
    if (word == "true") {
      out = true;
    } else if (word == "false") {
      out = false;
    } else if (word == "null") {
      out = nullptr;
    } else {
      return fail(start, "unknown word '" + std::string(word) +
                             "' (a value is true, false, null, a number, a string, an array or "
                             "an object)");
    }
    return true;
  }

  bool enter(int depth) {
    if (depth >= options_.max_depth) {
      return fail(i_, "arrays and objects nested deeper than " +
                          std::to_string(options_.max_depth) + " levels");
    }
    return true;
  }

  bool parse_array(Value& out, int depth) {
    if (!enter(depth)) return false;
    ++i_;  // '['
    Array a;
    skip_ws();
    if (peek() == ']') {
      ++i_;
      out = std::move(a);
      return true;
    }
    while (true) {
      skip_ws();
      if (!parse_value(a.emplace_back(), depth + 1)) return false;
      skip_ws();
      if (peek() == ',') {
        ++i_;
        skip_ws();
        if (peek() == ']') return fail(i_, "trailing ',' before ']'");
        continue;
      }
      if (peek() == ']') {
        ++i_;
        out = std::move(a);
        return true;
      }
      return fail(i_, "expected ',' or ']' in array, found " + describe(i_));
    }
  }

  bool parse_object(Value& out, int depth) {
    if (!enter(depth)) return false;
    ++i_;  // '{'
    Object o;
    skip_ws();
    if (peek() == '}') {
      ++i_;
      out = std::move(o);
      return true;
    }
    // Duplicate keys: linear search while small, a hash set once the object grows.
    constexpr size_t kLinearLimit = 16;
    std::unordered_set<std::string> seen;
    while (true) {
      skip_ws();
      if (peek() != '"') {
        if (peek() == '}' && !o.empty()) return fail(i_, "trailing ',' before '}'");
        return fail(i_, "expected a string key in object, found " + describe(i_));
      }
      const size_t key_at = i_;
      std::string key;
      if (!parse_string(key)) return false;
      bool duplicate;
      if (o.size() < kLinearLimit) {
        duplicate = o.contains(key);
      } else {
        if (seen.empty()) {
          for (const auto& m : o) seen.insert(m.first);
        }
        duplicate = !seen.insert(key).second;
      }
      if (duplicate) return fail(key_at, "duplicate key " + quote(key) + " in object");
      skip_ws();
      if (peek() != ':') return fail(i_, "expected ':' after the key, found " + describe(i_));
      ++i_;
      skip_ws();
      Value& slot = o.members_.emplace_back(std::move(key), nullptr).second;
      if (!parse_value(slot, depth + 1)) return false;
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == '}') {
        ++i_;
        out = std::move(o);
        return true;
      }
      return fail(i_, "expected ',' or '}' in object, found " + describe(i_));
    }
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  /// Four hex digits after `\u` at i_ (which points at the 'u').
  std::optional<uint32_t> read_hex4() {
    if (i_ + 5 > text_.size()) return std::nullopt;
    uint32_t v = 0;
    for (size_t k = 1; k <= 4; ++k) {
      const char h = text_[i_ + k];
      v <<= 4;
      if (h >= '0' && h <= '9') {
        v |= static_cast<uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        v |= static_cast<uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        v |= static_cast<uint32_t>(h - 'A' + 10);
      } else {
        return std::nullopt;
      }
    }
    i_ += 5;
    return v;
  }

  /// `\uXXXX`, possibly the first half of a surrogate pair; i_ points at the 'u'.
  bool parse_unicode_escape(std::string& out, size_t escape_at) {
    const std::optional<uint32_t> hi = read_hex4();
    if (!hi) return fail(escape_at, "invalid \\u escape: expected four hex digits");
    uint32_t cp = *hi;
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return fail(escape_at, "unpaired UTF-16 low surrogate in \\u escape");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const size_t low_at = i_;
      if (text_.substr(i_, 2) != "\\u") {
        return fail(escape_at, "unpaired UTF-16 high surrogate in \\u escape");
      }
      ++i_;
      const std::optional<uint32_t> lo = read_hex4();
      if (!lo) return fail(low_at, "invalid \\u escape: expected four hex digits");
      if (*lo < 0xDC00 || *lo > 0xDFFF) {
        return fail(escape_at, "UTF-16 high surrogate not followed by a low surrogate");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (*lo - 0xDC00);
    }
    append_utf8(out, cp);
    return true;
  }

  bool parse_string(std::string& out) {
    const size_t open = i_++;
    while (true) {
      // Copy the run of plain ASCII in one go.
      const size_t run = i_;
      while (!at_end()) {
        const unsigned char c = static_cast<unsigned char>(text_[i_]);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++i_;
      }
      out.append(text_, run, i_ - run);
      if (at_end()) return fail(open, "unterminated string");
      const unsigned char c = static_cast<unsigned char>(text_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c >= 0x80) {
        const size_t len = detail::utf8_sequence_length(text_, i_);
        if (len == 0) return fail(i_, "invalid UTF-8 in string");
        out.append(text_, i_, len);
        i_ += len;
        continue;
      }
      if (c < 0x20) {
        return fail(i_, c == '\n' ? "unterminated string (a newline must be written \\n)"
                                  : "control character " + describe(i_) +
                                        " in string (escape it as \\u00XX)");
      }
      // A backslash escape.
      const size_t escape_at = i_++;
      if (at_end()) return fail(open, "unterminated string");
      const char e = text_[i_];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          if (!parse_unicode_escape(out, escape_at)) return false;
          continue;  // parse_unicode_escape advanced i_
        default:
          return fail(escape_at, "invalid escape '\\" + std::string(1, e) + "' in string");
      }
      ++i_;
    }
  }

  bool digit_at(size_t k) const { return k < text_.size() && text_[k] >= '0' && text_[k] <= '9'; }

  bool parse_number(Value& out) {
    const size_t start = i_;
    if (peek() == '-') ++i_;
    const size_t int_start = i_;
    if (!digit_at(i_)) return fail(i_, "expected a digit after '-'");
    if (peek() == '0' && digit_at(i_ + 1)) {
      return fail(i_, "invalid number: leading zeros are not allowed");
    }
    while (digit_at(i_)) ++i_;
    const std::string_view int_part = text_.substr(int_start, i_ - int_start);
    std::string_view frac_part;
    bool integral = true;
    if (peek() == '.') {
      integral = false;
      ++i_;
      if (!digit_at(i_)) return fail(i_, "invalid number: expected a digit after '.'");
      const size_t frac_start = i_;
      while (digit_at(i_)) ++i_;
      frac_part = text_.substr(frac_start, i_ - frac_start);
    }
    long exponent = 0;
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++i_;
      bool negative = false;
      if (peek() == '+' || peek() == '-') negative = text_[i_++] == '-';
      if (!digit_at(i_)) return fail(i_, "invalid number: expected a digit in the exponent");
      while (digit_at(i_)) {
        if (exponent < 1000000) exponent = exponent * 10 + (text_[i_] - '0');
        ++i_;
      }
      if (negative) exponent = -exponent;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + i_;
    if (integral && text_.substr(start, i_ - start) != "-0") {
      int64_t n = 0;
      if (std::from_chars(first, last, n).ec == std::errc()) {
        out = Number::from_int(n);
        return true;
      }
      // Beyond int64: fall through to a double.
    }
    double d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Overflow or underflow? Estimate the decimal magnitude of the value.
      long magnitude = static_cast<long>(int_part.size());
      if (int_part == "0") {
        const size_t nonzero = frac_part.find_first_not_of('0');
        magnitude =
            -static_cast<long>(nonzero == std::string_view::npos ? frac_part.size() : nonzero);
      }
      if (magnitude + exponent > 0) {
        return fail(start, "number " + std::string(text_.substr(start, i_ - start)) +
                               " is too large for a double");
      }
      d = text_[start] == '-' ? -0.0 : 0.0;  // underflow: the nearest double is zero
    } else if (r.ec != std::errc()) {
      return fail(start, "invalid number");
    }
    out = Number::from_double(d);
    return true;
  }

  std::string_view text_;
  std::string_view file_;
  const ParseOptions& options_;
  size_t i_ = 0;
  std::optional<Diagnostic> error_;
};

Expected<Value> parse(std::string_view text, std::string_view file_name,
                      const ParseOptions& options) {
  return Parser(text, file_name, options).run();
}

}  // namespace scalify::json
