#include <algorithm>

#include "hlo/value_reader.h"

namespace scalify::hlo {
namespace {

constexpr int kMaxTypeDepth = 64;
constexpr size_t kMaxRank = 128;

ir::Layout read_layout(Cursor& c, size_t rank) {
  const char* start = c.ptr();
  c.advance();  // '{'
  ir::Layout layout;
  c.skip_ws();
  while (c.at_integer()) {
    layout.minor_to_major.push_back(c.integer("layout"));
    if (!c.eat(',')) break;
    c.skip_ws();
  }
  if (c.eat(':')) {
    layout.tail = std::string(c.until_matching('{', '}', "layout"));
  } else {
    c.expect('}', "to close the layout");
  }
  const auto& m2m = layout.minor_to_major;
  if (!m2m.empty() || layout.tail.empty()) {
    std::vector<int64_t> sorted = m2m;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = sorted.size() == rank;
    for (size_t i = 0; permutation && i < sorted.size(); ++i) permutation = sorted[i] == static_cast<int64_t>(i);
    if (!permutation) {
      c.fail_at(start, "layout {" + [&] {
        std::string s;
        for (size_t i = 0; i < m2m.size(); ++i) s += (i ? "," : "") + std::to_string(m2m[i]);
        return s;
      }() + "} is not a permutation of the " + std::to_string(rank) + " dimensions");
    }
  }
  return layout;
}

}  // namespace

ir::Type read_type(Cursor& c, int depth) {
  if (depth > kMaxTypeDepth) c.fail("type nested too deeply");
  c.skip_ws();
  if (c.peek() == '(') {
    c.advance();
    std::vector<ir::Type> elements;
    if (!c.eat(')')) {
      do {
        elements.push_back(read_type(c, depth + 1));
      } while (c.eat(','));
      c.expect(')', "to close the tuple type");
    }
    return ir::Type::tuple(std::move(elements));
  }
  const char* start = c.ptr();
  std::string_view word = c.word();
  if (word.empty()) c.fail("expected a type, found " + c.describe_next());
  auto dtype = ir::parse_dtype(word);
  if (!dtype) c.fail_at(start, "unknown element type '" + std::string(word) + "'");
  if (c.peek() != '[') c.fail("expected '[' after the element type '" + std::string(word) + "'");
  c.advance();
  if (*dtype == ir::DType::kToken || *dtype == ir::DType::kOpaque) {
    c.expect(']', "after token[ or opaque[");
    return *dtype == ir::DType::kToken ? ir::Type::token() : ir::Type::opaque();
  }
  std::vector<int64_t> dims;
  std::vector<size_t> dynamic;
  if (!c.eat(']')) {
    do {
      c.skip_ws();
      if (dims.size() >= kMaxRank) c.fail("too many dimensions");
      if (c.eat("<=")) {
        dynamic.push_back(dims.size());
        dims.push_back(c.integer("dimension bound"));
      } else if (c.eat('?')) {
        dynamic.push_back(dims.size());
        dims.push_back(-1);
        continue;
      } else {
        dims.push_back(c.integer("dimension size"));
      }
      if (dims.back() < 0) c.fail("negative dimension size");
    } while (c.eat(','));
    c.expect(']', "to close the dimensions");
  }
  ir::Type type = ir::Type::array(*dtype, std::move(dims));
  for (size_t d : dynamic) type.set_dynamic(static_cast<int64_t>(d), true);
  if (c.peek() == '{') type.set_layout(read_layout(c, static_cast<size_t>(type.rank())));
  return type;
}

}  // namespace scalify::hlo
