#include "hlo/cursor.h"

#include <cctype>
#include <cstring>
#include <limits>

namespace scalify::hlo {

void Cursor::skip_ws_slow() {
  while (p_ < end_) {
    const char c = *p_;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++p_;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
      const char* close =
          static_cast<const char*>(memmem(p_ + 2, static_cast<size_t>(end_ - p_ - 2), "*/", 2));
      if (!close) fail("unterminated comment");
      p_ = close + 2;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '/') {
      const char* nl = static_cast<const char*>(memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
      p_ = nl ? nl : end_;
    } else {
      return;
    }
  }
}

bool Cursor::eat(std::string_view s) {
  skip_ws();
  if (static_cast<size_t>(end_ - p_) < s.size() || std::memcmp(p_, s.data(), s.size()) != 0) {
    return false;
  }
  p_ += s.size();
  return true;
}

void Cursor::expect(char c, std::string_view what) {
  if (!eat(c))
    fail("expected '" + std::string(1, c) + "' " + std::string(what) + ", found " +
         describe_next());
}

std::string_view Cursor::name() {
  skip_ws();
  const char* start = p_;
  if (p_ < end_ && *p_ == '%') ++start, ++p_;
  while (p_ < end_ && is_name_char(*p_)) ++p_;
  return {start, static_cast<size_t>(p_ - start)};
}

std::string_view Cursor::expect_name(std::string_view what) {
  const char* start = p_;
  std::string_view n = name();
  if (n.empty()) {
    p_ = start;
    skip_ws();
    fail("expected " + std::string(what) + ", found " + describe_next());
  }
  return n;
}

std::string_view Cursor::word() {
  skip_ws();
  const char* start = p_;
  while (p_ < end_ && is_name_char(*p_)) ++p_;
  return {start, static_cast<size_t>(p_ - start)};
}

bool Cursor::at_integer() const {
  const char c = peek();
  return (c >= '0' && c <= '9') || (c == '-' && peek(1) >= '0' && peek(1) <= '9');
}

int64_t Cursor::integer(std::string_view what) {
  skip_ws();
  if (!at_integer())
    fail("expected an integer (" + std::string(what) + "), found " + describe_next());
  const char* start = p_;
  const bool negative = *p_ == '-';
  if (negative) ++p_;
  uint64_t value = 0;
  constexpr uint64_t kLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
    value = value * 10 + static_cast<uint64_t>(*p_ - '0');
    if (value > kLimit + (negative ? 1 : 0))
      fail_at(start, "integer out of range (" + std::string(what) + ")");
    ++p_;
  }
  if (negative)
    return value == kLimit + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(value);
  return static_cast<int64_t>(value);
}

std::string Cursor::string_literal() {
  skip_ws();
  if (peek() != '"') fail("expected a string, found " + describe_next());
  const char* start = p_++;
  // Fast path: no escape before the closing quote (two vectorised scans).
  const auto* quote = static_cast<const char*>(memchr(p_, '"', static_cast<size_t>(end_ - p_)));
  if (quote && !memchr(p_, '\\', static_cast<size_t>(quote - p_))) {
    std::string out(p_, quote);
    p_ = quote + 1;
    return out;
  }
  std::string out;
  while (true) {
    if (p_ >= end_) fail_at(start, "unterminated string");
    const char c = *p_++;
    if (c == '"') return out;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (p_ >= end_) fail_at(start, "unterminated string");
    const char e = *p_++;
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '0':
        out += '\0';
        break;
      case 'x': {
        int v = 0, digits = 0;
        while (digits < 2 && p_ < end_ && std::isxdigit(static_cast<unsigned char>(*p_))) {
          const char h = *p_++;
          v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
          ++digits;
        }
        if (digits == 0) fail("bad \\x escape in string");
        out += static_cast<char>(v);
        break;
      }
      default:
        out += e;  // \" \\ \' and anything else stand for themselves
    }
  }
}

std::string_view Cursor::bare_value() {
  skip_ws();
  const char* start = p_;
  while (p_ < end_ && (is_name_char(*p_) || *p_ == '+')) ++p_;
  return {start, static_cast<size_t>(p_ - start)};
}

std::string_view Cursor::balanced(bool stop_at_newline) {
  skip_ws();
  const char* start = p_;
  int depth = 0;
  constexpr int kMaxDepth = 256;
  while (p_ < end_) {
    const char c = *p_;
    if (c == '"') {
      string_literal();
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      if (++depth > kMaxDepth) fail("value nested too deeply");
    } else if (c == '}' || c == ')' || c == ']') {
      if (depth == 0) break;
      --depth;
    } else if (depth == 0 && (c == ',' || (stop_at_newline && c == '\n'))) {
      break;
    }
    ++p_;
  }
  if (depth != 0) fail_at(start, "unbalanced brackets in value");
  std::string_view text(start, static_cast<size_t>(p_ - start));
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

std::string_view Cursor::until_matching(char open, char close, std::string_view what) {
  const char* start = p_;
  int depth = 1;
  while (p_ < end_) {
    const char c = *p_;
    if (c == '"') {
      string_literal();
      continue;
    }
    if (c == open) {
      ++depth;
    } else if (c == close && --depth == 0) {
      std::string_view text(start, static_cast<size_t>(p_ - start));
      ++p_;
      return text;
    }
    ++p_;
  }
  fail_at(start - 1,
          "unterminated " + std::string(what) + ": no matching '" + std::string(1, close) + "'");
}

std::string Cursor::describe_next() const {
  if (p_ >= end_) return "end of file";
  const unsigned char c = static_cast<unsigned char>(*p_);
  if (c == '\n') return "end of line";
  if (c < 0x20 || c >= 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 0xf];
  }
  if (is_name_char(*p_)) {
    const char* e = p_;
    while (e < end_ && is_name_char(*e) && e - p_ < 40) ++e;
    return "'" + std::string(p_, e) + "'";
  }
  return "'" + std::string(1, *p_) + "'";
}

}  // namespace scalify::hlo
