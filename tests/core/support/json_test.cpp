#include "support/json.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

using scalify::json::Array;
using scalify::json::Number;
using scalify::json::Object;
using scalify::json::parse;
using scalify::json::Value;

namespace {

Value parsed(std::string_view text) {
  auto v = parse(text, "t.json");
  INFO(text);
  if (!v) FAIL(v.error().format());
  return *v;
}

/// The diagnostic for `text`, which must not parse.
scalify::Diagnostic error_of(std::string_view text, const scalify::json::ParseOptions& o = {}) {
  auto v = parse(text, "t.json", o);
  INFO(text);
  REQUIRE_FALSE(v.has_value());
  return v.error();
}

}  // namespace

TEST_CASE("json: scalars are written compactly", "[json]") {
  CHECK(Value().dump() == "null");
  CHECK(Value(true).dump() == "true");
  CHECK(Value(false).dump() == "false");
  CHECK(Value(42).dump() == "42");
  CHECK(Value(-7L).dump() == "-7");
  CHECK(Value(size_t{3}).dump() == "3");
  CHECK(Value(0.5).dump() == "0.5");
  CHECK(Value(3.0).dump() == "3");
  CHECK(Value(-0.0).dump() == "-0");
  CHECK(Value(1e300).dump() == "1e+300");
  CHECK(Value("hi").dump() == "\"hi\"");
  CHECK(Value(std::string_view("sv")).dump() == "\"sv\"");
}

TEST_CASE("json: non-finite numbers are written as null", "[json]") {
  CHECK(Value(std::numeric_limits<double>::quiet_NaN()).dump() == "null");
  CHECK(Value(std::numeric_limits<double>::infinity()).dump() == "null");
  CHECK(Value(-std::numeric_limits<double>::infinity()).dump() == "null");
  CHECK(Value(Array{1, std::nan("")}).dump() == "[1,null]");
}

TEST_CASE("json: strings are escaped", "[json]") {
  CHECK(Value("a\"b\\c").dump() == R"("a\"b\\c")");
  CHECK(Value("\n\r\t\b\f").dump() == R"("\n\r\t\b\f")");
  CHECK(Value(std::string("\x01\x1f\x00", 3)).dump() == R"("\u0001\u001f\u0000")");
  CHECK(Value("/ \x7f").dump() == "\"/ \x7f\"");  // '/' and DEL need no escape
  CHECK(Value("caf\xC3\xA9 \xF0\x9F\x98\x80").dump() == "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  // Invalid UTF-8 is replaced, so the output is always valid JSON.
  CHECK(Value("a\xFF"
              "b")
            .dump() ==
        "\"a\xEF\xBF\xBD"
        "b\"");
  CHECK(Value("\xC0\xAF").dump() == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");  // overlong '/'
  CHECK(Value("\xED\xA0\x80").dump() == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // surrogate
  CHECK(scalify::json::quote("x\ty") == R"("x\ty")");
}

TEST_CASE("json: objects keep insertion order and assign in place", "[json]") {
  Value v;
  v["zeta"] = 1;
  v["alpha"] = Array{1, 2};
  v["mid"]["inner"] = "x";
  v["zeta"] = 2;  // assigning keeps the position
  CHECK(v.dump() == R"({"zeta":2,"alpha":[1,2],"mid":{"inner":"x"}})");
  CHECK(v.size() == 3);
  REQUIRE(v.find("alpha") != nullptr);
  CHECK(v.find("alpha")->size() == 2);
  CHECK(v.find("nope") == nullptr);
  CHECK(Value(1).find("x") == nullptr);
  CHECK(v.as_object().erase("alpha"));
  CHECK_FALSE(v.as_object().erase("alpha"));
  CHECK(v.dump() == R"({"zeta":2,"mid":{"inner":"x"}})");

  Value list;
  list.push_back(1);
  list.push_back("two");
  CHECK(list.dump() == R"([1,"two"])");
  CHECK(list[1].as_string() == "two");
}

TEST_CASE("json: pretty printing", "[json]") {
  Value v = Object{{"a", 1}, {"b", Array{true, nullptr}}, {"c", Object{}}, {"d", Array{}}};
  CHECK(v.dump(2) ==
        "{\n"
        "  \"a\": 1,\n"
        "  \"b\": [\n"
        "    true,\n"
        "    null\n"
        "  ],\n"
        "  \"c\": {},\n"
        "  \"d\": []\n"
        "}");
  CHECK(Value(Array{1, 2}).dump(0) == "[\n1,\n2\n]");
  CHECK(Value(5).dump(4) == "5");
}

TEST_CASE("json: parses every kind of value", "[json]") {
  Value v = parsed(R"( {"n": null, "t": true, "f": false, "i": -12, "d": 2.5e-3,
                        "s": "x", "a": [1, [2, []], {}], "o": {"k": "v"}} )");
  REQUIRE(v.is_object());
  CHECK(v["n"].is_null());
  CHECK(v["t"].as_bool());
  CHECK_FALSE(v["f"].as_bool());
  CHECK(v["i"].is_integer());
  CHECK(v["i"].as_int() == -12);
  CHECK(v["d"].as_double() == 2.5e-3);
  CHECK_FALSE(v["d"].is_integer());
  CHECK(v["s"].as_string() == "x");
  CHECK(v["a"].size() == 3);
  CHECK(v["a"][1][1].is_array());
  CHECK(v["o"]["k"].as_string() == "v");
  CHECK(
      v.dump() ==
      R"({"n":null,"t":true,"f":false,"i":-12,"d":0.0025,"s":"x","a":[1,[2,[]],{}],"o":{"k":"v"}})");
}

TEST_CASE("json: integers keep their exact value", "[json]") {
  CHECK(parsed("9007199254740993").as_int() == 9007199254740993);  // 2^53 + 1
  CHECK(parsed("9007199254740993").dump() == "9007199254740993");
  CHECK(parsed("9223372036854775807").as_int() == INT64_MAX);
  CHECK(parsed("-9223372036854775808").as_int() == INT64_MIN);
  CHECK(Value(int64_t{INT64_MIN}).dump() == "-9223372036854775808");
  // Past int64: a double.
  Value big = parsed("18446744073709551616");
  CHECK_FALSE(big.is_integer());
  CHECK(big.as_double() == 18446744073709551616.0);
  CHECK(Value(UINT64_MAX).as_double() == 18446744073709551615.0);
  // Integral doubles are integers too.
  CHECK(parsed("1.0").is_integer());
  CHECK(parsed("1e3").as_int() == 1000);
  CHECK_THROWS_AS(parsed("1.5").as_int(), std::range_error);
  CHECK(parsed("-0").dump() == "-0");
  CHECK(parsed("0").as_int() == 0);
}

TEST_CASE("json: doubles round-trip exactly", "[json]") {
  for (double d :
       {0.1, 1.0 / 3.0, -2.5e-300, 1.7976931348623157e308, 5e-324, 123456.789e10, 6.02214076e23}) {
    INFO(d);
    const std::string text = Value(d).dump();
    CHECK(parsed(text).as_double() == d);
  }
  CHECK(parsed("1e-400").as_double() == 0.0);  // underflow: the nearest double
  CHECK(std::signbit(parsed("-1e-400").as_double()));
  CHECK(parsed("0.0000000000000000000000000000001e-300").as_double() == 0.0);
  CHECK(error_of("1e400").message.find("too large") != std::string::npos);
  CHECK(error_of("-123456789e999").message.find("too large") != std::string::npos);
}

TEST_CASE("json: string escapes, including surrogate pairs", "[json]") {
  CHECK(parsed(R"("\"\\\/\b\f\n\r\t")").as_string() == "\"\\/\b\f\n\r\t");
  CHECK(parsed(R"("\u0041\u00e9\u20AC")").as_string() == "A\xC3\xA9\xE2\x82\xAC");
  CHECK(parsed(R"("\ud83d\ude00")").as_string() == "\xF0\x9F\x98\x80");  // U+1F600
  CHECK(parsed(R"("\uDBFF\uDFFF")").as_string() == "\xF4\x8F\xBF\xBF");  // U+10FFFF
  CHECK(parsed(R"("\u0000")").as_string() == std::string("\0", 1));
  CHECK(parsed("\"caf\xC3\xA9\"").as_string() == "caf\xC3\xA9");

  CHECK(error_of(R"("\ud83d")").message.find("unpaired") != std::string::npos);
  CHECK(error_of(R"("\ud83dx")").message.find("unpaired") != std::string::npos);
  CHECK(error_of(R"("\ude00")").message.find("low surrogate") != std::string::npos);
  CHECK(error_of(R"("\ud83d\u0041")").message.find("not followed") != std::string::npos);
  CHECK(error_of(R"("\u12G4")").message.find("four hex digits") != std::string::npos);
  CHECK(error_of(R"("\u12")").message.find("four hex digits") != std::string::npos);
  CHECK(error_of(R"("\x41")").message.find("invalid escape") != std::string::npos);
  CHECK(error_of("\"a\xFF\"").message.find("UTF-8") != std::string::npos);
}

TEST_CASE("json: errors point at line and column", "[json]") {
  struct Case {
    const char* text;
    uint32_t line, col;
    const char* message_part;
  };
  const Case cases[] = {
      {"", 1, 1, "found end of input"},
      {"   ", 1, 4, "found end of input"},
      {"{\"a\": 1,\n  \"b\": tru}", 2, 8, "unknown word 'tru'"},
      {"[1, 2,]", 1, 7, "trailing ','"},
      {"{\"a\": 1,}", 1, 9, "trailing ','"},
      {"[1 2]", 1, 4, "expected ',' or ']'"},
      {"{\"a\" 1}", 1, 6, "expected ':'"},
      {"{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'"},
      {"{1: 2}", 1, 2, "expected a string key"},
      {"[01]", 1, 2, "leading zeros"},
      {"[1.]", 1, 4, "digit after '.'"},
      {"[1e+]", 1, 5, "exponent"},
      {"-", 1, 2, "digit after '-'"},
      {"[.5]", 1, 2, "expected a JSON value, found '.'"},
      {"[NaN]", 1, 2, "unknown word 'NaN'"},
      {"[Infinity]", 1, 2, "unknown word"},
      {"\n\n  \"abc", 3, 3, "unterminated string"},
      {"\"a\nb\"", 1, 3, "newline"},
      {"\"a\x01\"", 1, 3, "control character byte 0x01"},
      {"{} x", 1, 4, "after the JSON value"},
      {"[1] [2]", 1, 5, "after the JSON value"},
      {"{\"k\": 1, \"k\": 2}", 1, 10, "duplicate key \"k\""},
      {"// comment\n1", 1, 1, "found '/'"},
      {"\r\n\r\n  ]", 3, 3, "found ']'"},
      {"[\x01]", 1, 2, "byte 0x01"},
  };
  for (const Case& c : cases) {
    const scalify::Diagnostic d = error_of(c.text);
    INFO("input: " << c.text << "\n" << d.format());
    CHECK(d.file == "t.json");
    CHECK(d.pos.line == c.line);
    CHECK(d.pos.col == c.col);
    CHECK(d.message.find(c.message_part) != std::string::npos);
  }
  const scalify::Diagnostic d = error_of("{\n  \"a\": [1, 2,, 3]\n}");
  CHECK(d.format() ==
        "t.json:2:14: error: expected a JSON value, found ','\n"
        "    \"a\": [1, 2,, 3]\n" +
            std::string(2 + 13, ' ') + "^\n");
}

TEST_CASE("json: duplicate keys are found in large objects too", "[json]") {
  std::string text = "{";
  for (int i = 0; i < 100; ++i)
    text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ",";
  text += "\"k42\": 0}";
  const scalify::Diagnostic d = error_of(text);
  CHECK(d.message.find("duplicate key \"k42\"") != std::string::npos);
  CHECK(d.pos.col == text.size() - 8);
}

TEST_CASE("json: whitespace and a byte order mark are accepted", "[json]") {
  CHECK(parsed(" \t\r\n[ 1 ,\n 2 ] \n").dump() == "[1,2]");
  CHECK(parsed("\xEF\xBB\xBF{\"a\":1}").dump() == R"({"a":1})");
}

TEST_CASE("json: nesting is limited, without exhausting the stack", "[json]") {
  const auto nested = [](size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  CHECK(parsed(nested(512)).is_array());
  const scalify::Diagnostic d = error_of(nested(513));
  CHECK(d.pos.col == 513);
  CHECK(d.message.find("deeper than 512") != std::string::npos);
  // Far deeper input fails cleanly at the limit.
  CHECK(error_of(nested(1000000)).pos.col == 513);
  CHECK(error_of(std::string(100000, '[')).message.find("deeper") != std::string::npos);
  std::string objects;
  for (int i = 0; i < 600; ++i) objects += "{\"a\":";
  CHECK(error_of(objects).message.find("deeper") != std::string::npos);
  // The limit is configurable.
  scalify::json::ParseOptions shallow;
  shallow.max_depth = 2;
  CHECK(parse("[[1]]", "t", shallow).has_value());
  CHECK(error_of("[[[1]]]", shallow).pos.col == 3);
  CHECK(error_of("{\"a\":{\"b\":{}}}", shallow).pos.col == 11);
}

TEST_CASE("json: equality is by value; object key order does not matter", "[json]") {
  CHECK(parsed(R"({"a":1,"b":[1,2]})") == parsed(R"({"b":[1,2],"a":1})"));
  CHECK_FALSE(parsed(R"({"a":1})") == parsed(R"({"a":1,"b":2})"));
  CHECK_FALSE(parsed("[1,2]") == parsed("[2,1]"));
  CHECK(parsed("1") == parsed("1.0"));
  CHECK_FALSE(parsed("1") == parsed("\"1\""));
  CHECK(Value(Number::from_int(9007199254740993)) == parsed("9007199254740993"));
  CHECK_FALSE(Value(Number::from_int(9007199254740993)) == parsed("9007199254740992"));
}

TEST_CASE("json: accessors of the wrong kind throw", "[json]") {
  CHECK_THROWS(Value(1).as_string());
  CHECK_THROWS(Value("x").as_int());
  CHECK_THROWS(Value().as_array());
  CHECK(Value().size() == 0);
  CHECK(Value(Array{}).kind() == Value::Kind::kArray);
}

namespace {

Value random_value(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 4 ? 4 : 6);
  switch (kind(rng)) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<int64_t>(rng() % (1u << 28)) * static_cast<int64_t>(rng()) -
             (int64_t{1} << 40);
    case 3:
      return std::ldexp(static_cast<double>(rng()), static_cast<int>(rng() % 200) - 100);
    case 4: {
      std::string s;
      const size_t n = rng() % 8;
      for (size_t i = 0; i < n; ++i) {
        const char pool[] = {'a', '"', '\\', '\n', '\x01', '/', ' ', '\x7f'};
        s += pool[rng() % sizeof pool];
      }
      if (rng() % 4 == 0) s += "\xE2\x82\xAC\xF0\x9F\x98\x80";
      return s;
    }
    case 5: {
      Array a;
      const size_t n = rng() % 5;
      for (size_t i = 0; i < n; ++i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      Object o;
      const size_t n = rng() % 5;
      for (size_t i = 0; i < n; ++i)
        o["k" + std::to_string(rng() % 10)] = random_value(rng, depth + 1);
      return o;
    }
  }
}

}  // namespace

TEST_CASE("json: random values round-trip through the writer and the parser", "[json]") {
  std::mt19937 rng(12345);
  for (int i = 0; i < 500; ++i) {
    const Value v = random_value(rng, 0);
    const std::string compact = v.dump();
    INFO(compact);
    const Value back = parsed(compact);
    CHECK(back == v);
    CHECK(back.dump() == compact);  // byte-identical: order and number text are stable
    CHECK(parsed(v.dump(2)) == v);
    CHECK(parsed(v.dump(2)).dump() == compact);
  }
}
