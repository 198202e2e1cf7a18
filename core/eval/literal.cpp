#include "eval/literal.h"

#include <cstdlib>
#include <string>

#include "eval/internal.h"

namespace scalify::eval {
namespace {

class LiteralParser {
 public:
  explicit LiteralParser(std::string_view text) : text_(text) {}

  /// The whole text as a value of `type`, or the first problem in `error_`.
  std::optional<Value> run(const ir::Type& type) {
    std::optional<Value> v = value(type);
    if (!v) return std::nullopt;
    skip_ws();
    if (pos_ != text_.size()) return fail("unexpected text after the literal");
    return v;
  }

  const std::string& error() const { return error_; }

 private:
  std::optional<Value> fail(std::string message) {
    if (error_.empty()) error_ = std::move(message) + " (at offset " + std::to_string(pos_) + ")";
    return std::nullopt;
  }

  bool reject(std::string message) {
    fail(std::move(message));
    return false;
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

  bool eat(char c) {
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::optional<Value> value(const ir::Type& type) {
    skip_ws();
    if (type.is_tuple()) {
      if (!eat('(')) return fail("expected '(' for a tuple literal");
      std::vector<Value> parts;
      for (size_t i = 0; i < type.elements().size(); ++i) {
        if (i && !eat(',')) return fail("expected ',' between tuple elements");
        std::optional<Value> part = value(type.elements()[i]);
        if (!part) return std::nullopt;
        parts.push_back(std::move(*part));
      }
      if (!eat(')')) return fail("expected ')' to close the tuple literal");
      return Value::tuple(std::move(parts));
    }
    if (!type.is_array()) return fail("a " + type.to_string() + " constant has no value");
    if (ir::is_complex(type.dtype())) return fail("complex constants are not supported");
    if (text_.substr(pos_).starts_with("{...}")) {
      return fail("the literal was elided ('{...}') when the module was printed");
    }
    Tensor t;
    for (int64_t d : type.dims()) {
      if (d < 0) return fail("a constant with a dynamic dimension is not supported");
      t.dims.push_back(d);
    }
    t.data.reserve(static_cast<size_t>(t.element_count()));
    if (type.rank() > 0 && pos_ < text_.size() && text_[pos_] != '{') {
      // One scalar for the whole array (a splat), as XLA's reader allows.
      std::optional<double> x = number(type.dtype());
      if (!x) return std::nullopt;
      t.data.assign(static_cast<size_t>(t.element_count()), *x);
      return Value(std::move(t));
    }
    if (!array(type, 0, t)) return std::nullopt;
    return Value(std::move(t));
  }

  /// Dimension `level` onwards of `type`, appended to `out.data`.
  bool array(const ir::Type& type, size_t level, Tensor& out) {
    if (level == out.dims.size()) {
      std::optional<double> x = number(type.dtype());
      if (!x) return false;
      out.data.push_back(*x);
      return true;
    }
    if (!eat('{')) return reject("expected '{' for dimension " + std::to_string(level));
    int64_t count = 0;
    if (!eat('}')) {
      do {
        if (!array(type, level + 1, out)) return false;
        ++count;
      } while (eat(','));
      if (!eat('}')) return reject("expected ',' or '}' in the literal");
    }
    if (count != out.dims[level]) {
      return reject("dimension " + std::to_string(level) + " has " + std::to_string(count) +
                    " elements, the type says " + std::to_string(out.dims[level]));
    }
    return true;
  }

  std::optional<double> number(ir::DType dtype) {
    skip_ws();
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const bool word = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                        (c >= 'A' && c <= 'Z') || c == '.' || c == '-' || c == '+' || c == '_';
      if (!word) break;
      ++pos_;
    }
    if (pos_ < text_.size() && text_[pos_] == '(') {  // nan with a payload: nan(0x7fc00001)
      const size_t close = text_.find(')', pos_);
      if (close != std::string_view::npos) pos_ = close + 1;
    }
    const std::string token(text_.substr(start, pos_ - start));
    if (token.empty()) {
      fail("expected a number");
      return std::nullopt;
    }
    if (token == "true" || token == "false") {
      if (dtype != ir::DType::kPred) {
        fail("'" + token + "' is not a " + std::string(ir::dtype_name(dtype)) + " value");
        return std::nullopt;
      }
      return token == "true" ? 1.0 : 0.0;
    }
    char* end = nullptr;
    const double x = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size()) {
      pos_ = start;
      fail("'" + token + "' is not a number");
      return std::nullopt;
    }
    return detail::normalize(x, dtype);
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

Expected<Value> parse_literal(std::string_view text, const ir::Type& type) {
  LiteralParser parser(text);
  std::optional<Value> v = parser.run(type);
  if (!v) return Diagnostic{"", {}, parser.error(), ""};
  return std::move(*v);
}

}  // namespace scalify::eval
