// A small JSON library for `core`: a value type, a strict parser with positioned errors, and a
// writer. No external dependencies; used for `--json` output, spec files and exported proofs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "support/expected.h"

namespace scalify::json {

class Value;

/// A JSON array.
using Array = std::vector<Value>;

/// A JSON object whose keys keep their insertion order (so output is stable and readable).
/// Lookup is linear: objects in this project are small (a few dozen keys).
///
///   json::Object o;
///   o["verdict"] = "equivalent";      // inserts, or assigns an existing key in place
///   o["stats"]["parts"] = 1;          // a null value becomes an object on first use of []
///   if (const json::Value* v = o.find("verdict")) use(v->as_string());
///   for (const auto& [key, value] : o) …
class Object {
 public:
  using Member = std::pair<std::string, Value>;
  using iterator = std::vector<Member>::iterator;
  using const_iterator = std::vector<Member>::const_iterator;

  Object() = default;
  Object(std::initializer_list<Member> members);

  /// The value of `key`, inserting a null at the end if it is missing.
  Value& operator[](std::string_view key);
  /// The value of `key`, or nullptr.
  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// Sets `key` (in place if present, else appended) and returns the stored value.
  Value& set(std::string_view key, Value value);
  /// Removes `key`; returns whether it was there.
  bool erase(std::string_view key);

  // Defined after Value: a Member is complete only there (clang instantiates eagerly).
  size_t size() const;
  bool empty() const;
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;

  /// Equal as JSON objects: the same keys with equal values, in any order.
  friend bool operator==(const Object& a, const Object& b);

 private:
  friend class Parser;
  std::vector<Member> members_;
};

/// A JSON number: always a double; also an exact int64 when the value is integral and in range
/// (so ids and counts above 2^53 survive a round trip).
struct Number {
  double value = 0;
  int64_t integer = 0;
  bool is_integer = false;

  static Number from_int(int64_t i) { return {static_cast<double>(i), i, true}; }
  /// Integral doubles in int64 range also get their exact integer.
  static Number from_double(double d);
  friend bool operator==(const Number& a, const Number& b);
};

/// A JSON value: null, bool, number, string, array or object.
///
///   json::Value v = json::Object{{"name", "tuple.216"}, {"count", 3}};
///   v["groups"] = json::Array{json::Array{0, 1}, json::Array{2, 3}};
///   v.dump()   == R"({"name":"tuple.216","count":3,"groups":[[0,1],[2,3]]})"
///   v.dump(2)  // the same, indented by two spaces per level
///   v["count"].as_int() == 3;  v.find("missing") == nullptr;
///
/// The `as_*` accessors require the matching kind (they throw std::bad_variant_access or, for
/// `as_int` on a non-integral number, std::range_error): check with `is_*` first on user input.
class Value {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  Value() = default;
  Value(std::nullptr_t) {}                               // NOLINT: implicit by design
  Value(bool b) : v_(b) {}                               // NOLINT
  Value(int i) : v_(Number::from_int(i)) {}              // NOLINT
  Value(long i) : v_(Number::from_int(i)) {}             // NOLINT
  Value(long long i) : v_(Number::from_int(i)) {}        // NOLINT
  Value(unsigned i) : v_(Number::from_int(i)) {}         // NOLINT
  Value(unsigned long i) : v_(from_unsigned(i)) {}       // NOLINT
  Value(unsigned long long i) : v_(from_unsigned(i)) {}  // NOLINT
  Value(double d) : v_(Number::from_double(d)) {}        // NOLINT
  Value(Number n) : v_(n) {}                             // NOLINT
  Value(const char* s) : v_(std::string(s)) {}           // NOLINT
  Value(std::string s) : v_(std::move(s)) {}             // NOLINT
  Value(std::string_view s) : v_(std::string(s)) {}      // NOLINT
  Value(Array a) : v_(std::move(a)) {}                   // NOLINT
  Value(Object o) : v_(std::move(o)) {}                  // NOLINT

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kNumber; }
  /// A number with an exact int64 value.
  bool is_integer() const { return is_number() && std::get<Number>(v_).is_integer; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  bool as_bool() const { return std::get<bool>(v_); }
  double as_double() const { return std::get<Number>(v_).value; }
  int64_t as_int() const;
  const Number& as_number() const { return std::get<Number>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Object& as_object() const { return std::get<Object>(v_); }
  Object& as_object() { return std::get<Object>(v_); }

  /// Object member access; a null value first becomes an empty object.
  Value& operator[](std::string_view key);
  /// The member `key` of an object, or nullptr (also when this is not an object).
  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);
  /// Array element access (bounds unchecked, like std::vector).
  Value& operator[](size_t i) { return as_array()[i]; }
  const Value& operator[](size_t i) const { return as_array()[i]; }
  /// Appends to an array; a null value first becomes an empty array.
  Value& push_back(Value v);
  /// Elements of an array or members of an object; 0 for anything else.
  size_t size() const;

  /// The JSON text. `indent` < 0: compact, one line. `indent` >= 0: one element per line,
  /// nested levels indented by `indent` spaces. Non-finite numbers are written as null;
  /// invalid UTF-8 in strings is written as U+FFFD.
  std::string dump(int indent = -1) const;
  void dump_to(std::string& out, int indent = -1) const;

  friend bool operator==(const Value& a, const Value& b) { return a.v_ == b.v_; }

 private:
  static Number from_unsigned(unsigned long long u);
  void dump_at(std::string& out, int indent, int level) const;

  std::variant<std::monostate, bool, Number, std::string, Array, Object> v_;
};

inline size_t Object::size() const { return members_.size(); }
inline bool Object::empty() const { return members_.empty(); }
inline Object::iterator Object::begin() { return members_.begin(); }
inline Object::iterator Object::end() { return members_.end(); }
inline Object::const_iterator Object::begin() const { return members_.begin(); }
inline Object::const_iterator Object::end() const { return members_.end(); }

/// Limits and labels for `parse`.
struct ParseOptions {
  /// Arrays and objects nested deeper than this are an error (the parser recurses).
  int max_depth = 512;
};

/// Parses one JSON value (RFC 8259: strict, no comments or trailing commas; surrounding
/// whitespace and a leading UTF-8 BOM are allowed). Duplicate object keys are an error.
/// `file_name` only labels diagnostics, which point at the 1-based line and byte column.
///
///   auto v = json::parse(R"({"tp": 8})", "spec.json");
///   if (!v) std::cerr << v.error().format();
///   else    int64_t tp = (*v)["tp"].as_int();
///
/// On `{"tp" 8}` the error reads:
///   spec.json:1:7: error: expected ':' after the key, found '8'
///     {"tp" 8}
///           ^
Expected<Value> parse(std::string_view text, std::string_view file_name = "<input>",
                      const ParseOptions& options = {});

/// `s` as a JSON string literal including the quotes: control characters, '"' and '\\' escaped,
/// other bytes kept (invalid UTF-8 becomes U+FFFD).   quote("a\"b\n") == R"("a\"b\n")"
std::string quote(std::string_view s);
void quote_to(std::string& out, std::string_view s);

namespace detail {
/// Length (1 to 4) of the valid UTF-8 sequence starting at `s[i]`, or 0 when the bytes there
/// are not valid UTF-8 (overlong forms and encoded surrogates are invalid).
size_t utf8_sequence_length(std::string_view s, size_t i);
}  // namespace detail

}  // namespace scalify::json
