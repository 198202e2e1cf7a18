// json::Value, json::Object and the writer. The parser is in json_parse.cpp.
#include "support/json.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace scalify::json {

// ---- Number ---------------------------------------------------------------------------------

Number Number::from_double(double d) {
  // 2^63 is exactly representable; [-2^63, 2^63) is the int64 range.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (std::isfinite(d) && d == std::trunc(d) && d >= -kTwo63 && d < kTwo63 &&
      !(d == 0 && std::signbit(d))) {  // keep -0.0 a double so it prints as -0
    return {d, static_cast<int64_t>(d), true};
  }
  return {d, 0, false};
}

bool operator==(const Number& a, const Number& b) {
  if (a.is_integer && b.is_integer) return a.integer == b.integer;
  return a.value == b.value;
}

Number Value::from_unsigned(unsigned long long u) {
  if (u <= static_cast<unsigned long long>(INT64_MAX))
    return Number::from_int(static_cast<int64_t>(u));
  return {static_cast<double>(u), 0, false};
}

// ---- Object ---------------------------------------------------------------------------------

Object::Object(std::initializer_list<Member> members) {
  for (const Member& m : members) set(m.first, m.second);
}

const Value* Object::find(std::string_view key) const {
  for (const Member& m : members_) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

Value* Object::find(std::string_view key) {
  return const_cast<Value*>(std::as_const(*this).find(key));
}

Value& Object::operator[](std::string_view key) {
  if (Value* v = find(key)) return *v;
  return members_.emplace_back(std::string(key), nullptr).second;
}

Value& Object::set(std::string_view key, Value value) {
  Value& slot = (*this)[key];
  slot = std::move(value);
  return slot;
}

bool Object::erase(std::string_view key) {
  for (auto it = members_.begin(); it != members_.end(); ++it) {
    if (it->first == key) {
      members_.erase(it);
      return true;
    }
  }
  return false;
}

bool operator==(const Object& a, const Object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a) {
    const Value* other = b.find(key);
    if (!other || !(*other == value)) return false;
  }
  return true;
}

// ---- Value ----------------------------------------------------------------------------------

int64_t Value::as_int() const {
  const Number& n = std::get<Number>(v_);
  if (!n.is_integer) throw std::range_error("JSON number is not an exact integer");
  return n.integer;
}

Value& Value::operator[](std::string_view key) {
  if (is_null()) v_ = Object();
  return as_object()[key];
}

const Value* Value::find(std::string_view key) const {
  return is_object() ? as_object().find(key) : nullptr;
}

Value* Value::find(std::string_view key) { return is_object() ? as_object().find(key) : nullptr; }

Value& Value::push_back(Value v) {
  if (is_null()) v_ = Array();
  return as_array().emplace_back(std::move(v));
}

size_t Value::size() const {
  if (is_array()) return as_array().size();
  if (is_object()) return as_object().size();
  return 0;
}

// ---- Writer ---------------------------------------------------------------------------------

namespace detail {

size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07u;
  } else {
    return 0;  // a continuation byte, an overlong lead (C0, C1) or beyond U+10FFFF (F5..FF)
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  // Reject overlong forms, UTF-16 surrogates and code points past U+10FFFF.
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

}  // namespace detail

void quote_to(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = detail::utf8_sequence_length(s, i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD: the output must stay valid UTF-8
        ++i;
      } else {
        out.append(s, i, len);
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

std::string quote(std::string_view s) {
  std::string out;
  quote_to(out, s);
  return out;
}

namespace {

void write_number(std::string& out, const Number& n) {
  char buf[32];
  std::to_chars_result r;
  if (n.is_integer) {
    r = std::to_chars(buf, buf + sizeof buf, n.integer);
  } else if (!std::isfinite(n.value)) {
    out += "null";  // JSON has no NaN or infinity
    return;
  } else {
    r = std::to_chars(buf, buf + sizeof buf, n.value);  // shortest text that reads back exactly
  }
  out.append(buf, r.ptr);
}

void newline(std::string& out, int indent, int level) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(level), ' ');
}

}  // namespace

void Value::dump_at(std::string& out, int indent, int level) const {
  switch (kind()) {
    case Kind::kNull:
      out += "null";
      return;
    case Kind::kBool:
      out += as_bool() ? "true" : "false";
      return;
    case Kind::kNumber:
      write_number(out, as_number());
      return;
    case Kind::kString:
      quote_to(out, as_string());
      return;
    case Kind::kArray: {
      const Array& a = as_array();
      if (a.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < a.size(); ++i) {
        if (i) out += ',';
        if (indent >= 0) newline(out, indent, level + 1);
        a[i].dump_at(out, indent, level + 1);
      }
      if (indent >= 0) newline(out, indent, level);
      out += ']';
      return;
    }
    case Kind::kObject: {
      const Object& o = as_object();
      if (o.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& [key, value] : o) {
        if (!first) out += ',';
        first = false;
        if (indent >= 0) newline(out, indent, level + 1);
        quote_to(out, key);
        out += indent >= 0 ? ": " : ":";
        value.dump_at(out, indent, level + 1);
      }
      if (indent >= 0) newline(out, indent, level);
      out += '}';
      return;
    }
  }
}

void Value::dump_to(std::string& out, int indent) const { dump_at(out, indent, 0); }

std::string Value::dump(int indent) const {
  std::string out;
  dump_to(out, indent);
  return out;
}

}  // namespace scalify::json
