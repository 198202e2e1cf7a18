#include "hlo/literal_check.h"

#include <cstdlib>
#include <string>

namespace scalify::hlo {
namespace {

/// `[-+]?digits` (integers) or `[-+]?digits[.digits][e[-+]digits]` with at least one digit.
bool is_plain_decimal(std::string_view s, bool integer) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t mantissa = digits();
  if (integer) return mantissa > 0 && i == s.size();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

class LiteralChecker {
 public:
  LiteralChecker(std::string_view text, const ir::Type& type) : text_(text), type_(type) {}

  std::optional<LiteralError> run() {
    skip_ws();
    if (type_.is_tuple() || type_.is_token())
      return std::nullopt;  // structure only: the reader balanced it
    if (elided()) return std::nullopt;
    // XLA also accepts one scalar for a whole array (a splat): `f32[4,4] constant(0)`.
    const bool splat = type_.rank() > 0 && pos_ < text_.size() && text_[pos_] != '{';
    if (!(splat ? element() : array(0))) return error_;
    skip_ws();
    if (pos_ != text_.size()) return LiteralError{pos_, "unexpected text after the literal"};
    return std::nullopt;
  }

 private:
  bool elided() {
    std::string_view rest = text_.substr(pos_);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\n')) rest.remove_suffix(1);
    return rest == "{...}";
  }

  void skip_ws() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (text_.compare(pos_, 2, "/*") == 0) {
        const size_t close = text_.find("*/", pos_ + 2);
        pos_ = close == std::string_view::npos ? text_.size() : close + 2;
      } else {
        return;
      }
    }
  }

  bool fail(std::string message) {
    error_ = LiteralError{pos_, std::move(message)};
    return false;
  }

  bool eat(char c) {
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool array(size_t level) {
    if (level == static_cast<size_t>(type_.rank())) return element();
    if (!eat('{')) return fail("expected '{' for dimension " + std::to_string(level));
    int64_t count = 0;
    if (!eat('}')) {
      do {
        if (!array(level + 1)) return false;
        ++count;
      } while (eat(','));
      if (!eat('}')) return fail("expected ',' or '}' in the literal");
    }
    const int64_t want = type_.dim(static_cast<int64_t>(level));
    if (!type_.dynamic(static_cast<int64_t>(level)) && count != want) {
      return fail("dimension " + std::to_string(level) + " has " + std::to_string(count) +
                  " elements, the type says " + std::to_string(want));
    }
    return true;
  }

  bool element() {
    if (ir::is_complex(type_.dtype())) {
      if (!eat('(')) return fail("expected '(' for a complex element");
      if (!number()) return false;
      if (!eat(',')) return fail("expected ',' in a complex element");
      if (!number()) return false;
      if (!eat(')')) return fail("expected ')' to close a complex element");
      return true;
    }
    return number();
  }

  bool number() {
    skip_ws();
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const bool word_char = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                             (c >= 'A' && c <= 'Z') || c == '.' || c == '-' || c == '+' || c == '_';
      if (!word_char) break;
      ++pos_;
    }
    // nan with a payload: nan(0x7fc00001)
    if (pos_ < text_.size() && text_[pos_] == '(' &&
        text_.substr(start, pos_ - start).find("nan") != std::string_view::npos) {
      const size_t close = text_.find(')', pos_);
      if (close == std::string_view::npos) return fail("unterminated nan payload");
      pos_ = close + 1;
      return true;
    }
    const std::string_view view = text_.substr(start, pos_ - start);
    // Fast path, no allocation: plain decimal numbers, which is nearly every element.
    if (type_.dtype() != ir::DType::kPred &&
        is_plain_decimal(view, ir::is_integer(type_.dtype()))) {
      return true;
    }
    const std::string token(view);
    if (token.empty()) {
      pos_ = start;
      return fail("expected a number");
    }
    const ir::DType t = type_.dtype();
    if (t == ir::DType::kPred) {
      if (token == "true" || token == "false" || token == "0" || token == "1") return true;
      pos_ = start;
      return fail("expected true or false, found '" + token + "'");
    }
    char* end = nullptr;
    if (ir::is_integer(t)) {
      (void)std::strtoll(token.c_str(), &end, 0);
    } else {
      (void)std::strtod(token.c_str(), &end);
    }
    if (end != token.c_str() + token.size()) {
      pos_ = start;
      return fail("'" + token + "' is not a " + std::string(ir::dtype_name(t)) + " value");
    }
    return true;
  }

  std::string_view text_;
  const ir::Type& type_;
  size_t pos_ = 0;
  std::optional<LiteralError> error_;
};

}  // namespace

std::optional<LiteralError> check_literal(std::string_view literal, const ir::Type& type) {
  return LiteralChecker(literal, type).run();
}

}  // namespace scalify::hlo
