#include <array>
#include <bitset>

#include "hlo/value_reader.h"

namespace scalify::hlo {
namespace {

constexpr int kMaxTypeDepth = 64;
constexpr size_t kMaxRank = 128;

/// Up to kMaxRank integers collected on the stack, so that each list costs one exact allocation
/// when it becomes a vector (types are the bulk of HLO text; this is the reader's hot path).
struct IntRun {
  std::array<int64_t, kMaxRank> values;
  size_t size = 0;
  void push(Cursor& c, int64_t v) {
    if (size == kMaxRank) c.fail("too many dimensions");
    values[size++] = v;
  }
  std::vector<int64_t> to_vector() const {
    return std::vector<int64_t>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(size));
  }
};

std::string join(const IntRun& run) {
  std::string s;
  for (size_t i = 0; i < run.size; ++i) s += (i ? "," : "") + std::to_string(run.values[i]);
  return s;
}

ir::Layout read_layout(Cursor& c, size_t rank) {
  const char* start = c.ptr();
  c.advance();  // '{'
  IntRun m2m;
  c.skip_ws();
  while (c.at_integer()) {
    m2m.push(c, c.integer("layout"));
    if (!c.eat(',')) break;
    c.skip_ws();
  }
  ir::Layout layout;
  if (c.eat(':')) {
    layout.tail = std::string(c.until_matching('{', '}', "layout"));
  } else {
    c.expect('}', "to close the layout");
  }
  // A layout lists every dimension once; `{:T(128)}` (tiling only) may leave the order out.
  if (m2m.size != 0 || layout.tail.empty()) {
    std::array<bool, kMaxRank> seen{};
    bool permutation = m2m.size == rank;
    for (size_t i = 0; permutation && i < m2m.size; ++i) {
      const int64_t d = m2m.values[i];
      permutation = d >= 0 && static_cast<size_t>(d) < rank && !seen[static_cast<size_t>(d)];
      if (permutation) seen[static_cast<size_t>(d)] = true;
    }
    if (!permutation) {
      c.fail_at(start, "layout {" + join(m2m) + "} is not a permutation of the " +
                           std::to_string(rank) + " dimensions");
    }
  }
  layout.minor_to_major = m2m.to_vector();
  return layout;
}

ir::Type read_tuple_type(Cursor& c, int depth) {
  c.advance();  // '('
  std::vector<ir::Type> elements;
  if (!c.eat(')')) {
    do {
      elements.push_back(read_type(c, depth + 1));
    } while (c.eat(','));
    c.expect(')', "to close the tuple type");
  }
  return ir::Type::tuple(std::move(elements));
}

}  // namespace

ir::Type read_type(Cursor& c, int depth) {
  if (depth > kMaxTypeDepth) c.fail("type nested too deeply");
  c.skip_ws();
  if (c.peek() == '(') return read_tuple_type(c, depth);
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
  IntRun dims;
  std::bitset<kMaxRank> dynamic;  // bit i: dimension i is dynamic
  if (!c.eat(']')) {
    do {
      c.skip_ws();
      if (c.eat("<=")) {
        dynamic.set(dims.size);
        dims.push(c, c.integer("dimension bound"));
      } else if (c.eat('?')) {
        dynamic.set(dims.size);
        dims.push(c, -1);
        continue;
      } else {
        dims.push(c, c.integer("dimension size"));
      }
      if (dims.values[dims.size - 1] < 0) c.fail("negative dimension size");
    } while (c.eat(','));
    c.expect(']', "to close the dimensions");
  }
  ir::Type type = ir::Type::array(*dtype, dims.to_vector());
  for (size_t d = 0; dynamic.any() && d < dims.size; ++d) {
    if (dynamic[d]) type.set_dynamic(static_cast<int64_t>(d), true);
  }
  if (c.peek() == '{') type.set_layout(read_layout(c, dims.size));
  return type;
}

}  // namespace scalify::hlo
