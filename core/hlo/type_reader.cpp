#include <array>
#include <bitset>
#include <vector>

#include "hlo/value_reader.h"

namespace scalify::hlo {
namespace {

constexpr int kMaxTypeDepth = 64;

/// Up to kCapacity integers on the stack: dimension and layout lists are read into these and
/// allocated once, exactly, when they become a Type (types are the bulk of HLO text).
struct IntRun {
  static constexpr size_t kCapacity = 128;  ///< also the largest rank the reader accepts
  std::array<int64_t, kCapacity> values;
  size_t size = 0;
  void push(Cursor& c, int64_t v) {
    if (size == kCapacity) c.fail("too many dimensions");
    values[size++] = v;
  }
  std::vector<int64_t> to_vector() const {
    return std::vector<int64_t>(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(size));
  }
};

/// A non-tuple type as read, before anything is allocated for it.
struct LeafType {
  ir::DType dtype = ir::DType::kF32;
  IntRun dims;
  std::bitset<IntRun::kCapacity> dynamic;
  bool has_layout = false;
  IntRun minor_to_major;
  std::string_view layout_tail;

  ir::Type to_type() const;
};

std::string join(const IntRun& run) {
  std::string s;
  for (size_t i = 0; i < run.size; ++i) s += (i ? "," : "") + std::to_string(run.values[i]);
  return s;
}

/// Where the type text starting at `p` ends, found without reading it (for the cache look-up):
/// `dtype[…]` with an optional `{…}` right after, or a balanced `(…)`. Nullptr if unclear.
const char* type_text_end(const char* p, const char* end) {
  if (p < end && *p == '(') {
    int depth = 0;
    for (const char* q = p; q < end; ++q) {
      if (*q == '(') {
        ++depth;
      } else if (*q == ')' && --depth == 0) {
        return q + 1;
      } else if (*q == '"' || *q == '%' || *q == '=') {
        return nullptr;  // not a type: leave it to the reader to say why
      }
    }
    return nullptr;
  }
  const char* q = p;
  while (q < end && is_name_char(*q)) ++q;
  if (q == p || q >= end || *q != '[') return nullptr;
  while (q < end && *q != ']') {
    if (*q == '\n') return nullptr;
    ++q;
  }
  if (q >= end) return nullptr;
  ++q;
  if (q < end && *q == '{') {
    while (q < end && *q != '}') {
      if (*q == '\n') return nullptr;
      ++q;
    }
    if (q >= end) return nullptr;
    ++q;
  }
  return q;
}

// `{1,0}` or `{1,0:T(8,128)}`: the order is checked to be a permutation of the dimensions.
void read_layout(Cursor& c, size_t rank, LeafType& out) {
  const char* start = c.ptr();
  c.advance();  // '{'
  c.skip_ws();
  while (c.at_integer()) {
    out.minor_to_major.push(c, c.integer("layout"));
    if (!c.eat(',')) break;
    c.skip_ws();
  }
  if (c.eat(':')) {
    out.layout_tail = c.until_matching('{', '}', "layout");
  } else {
    c.expect('}', "to close the layout");
  }
  out.has_layout = true;
  // `{:T(128)}` (tiling only) may leave the order out.
  const IntRun& m2m = out.minor_to_major;
  if (m2m.size == 0 && !out.layout_tail.empty()) return;
  std::bitset<IntRun::kCapacity> seen;
  bool permutation = m2m.size == rank;
  for (size_t i = 0; permutation && i < m2m.size; ++i) {
    const int64_t d = m2m.values[i];
    permutation = d >= 0 && static_cast<size_t>(d) < rank && !seen[static_cast<size_t>(d)];
    if (permutation) seen.set(static_cast<size_t>(d));
  }
  if (!permutation) {
    c.fail_at(start, "layout {" + join(m2m) + "} is not a permutation of the " +
                         std::to_string(rank) + " dimensions");
  }
}

ir::Type read_tuple_type(Cursor& c, int depth, TypeCache* cache) {
  c.advance();  // '('
  std::vector<ir::Type> elements;
  if (!c.eat(')')) {
    do {
      elements.push_back(read_type(c, depth + 1, cache));
    } while (c.eat(','));
    c.expect(')', "to close the tuple type");
  }
  return ir::Type::tuple(std::move(elements));
}

/// `f32[8,128]{1,0}`, `token[]`: an array, token or opaque type, layout checked.
LeafType read_leaf_type(Cursor& c) {
  c.skip_ws();
  const char* start = c.ptr();
  std::string_view word = c.word();
  if (word.empty()) c.fail("expected a type, found " + c.describe_next());
  LeafType leaf;
  auto dtype = ir::parse_dtype(word);
  if (!dtype) c.fail_at(start, "unknown element type '" + std::string(word) + "'");
  leaf.dtype = *dtype;
  if (c.peek() != '[') c.fail("expected '[' after the element type '" + std::string(word) + "'");
  c.advance();
  if (leaf.dtype == ir::DType::kToken || leaf.dtype == ir::DType::kOpaque) {
    c.expect(']', "after token[ or opaque[");
    return leaf;
  }
  if (!c.eat(']')) {
    do {
      c.skip_ws();
      if (c.eat("<=")) {
        leaf.dynamic.set(leaf.dims.size);
        leaf.dims.push(c, c.integer("dimension bound"));
      } else if (c.eat('?')) {
        leaf.dynamic.set(leaf.dims.size);
        leaf.dims.push(c, -1);
        continue;
      } else {
        leaf.dims.push(c, c.integer("dimension size"));
      }
      if (leaf.dims.values[leaf.dims.size - 1] < 0) c.fail("negative dimension size");
    } while (c.eat(','));
    c.expect(']', "to close the dimensions");
  }
  if (c.peek() == '{') read_layout(c, leaf.dims.size, leaf);
  return leaf;
}

ir::Type LeafType::to_type() const {
  if (dtype == ir::DType::kToken) return ir::Type::token();
  if (dtype == ir::DType::kOpaque) return ir::Type::opaque();
  ir::Type type = ir::Type::array(dtype, dims.to_vector());
  for (size_t d = 0; dynamic.any() && d < dims.size; ++d) {
    if (dynamic[d]) type.set_dynamic(static_cast<int64_t>(d), true);
  }
  if (has_layout) type.set_layout(ir::Layout{minor_to_major.to_vector(), std::string(layout_tail)});
  return type;
}

}  // namespace

ir::Type read_type(Cursor& c, int depth, TypeCache* cache) {
  if (depth > kMaxTypeDepth) c.fail("type nested too deeply");
  c.skip_ws();
  const char* start = c.ptr();
  const char* end = cache ? type_text_end(start, c.end()) : nullptr;
  if (end) {
    auto it = cache->find(std::string_view(start, static_cast<size_t>(end - start)));
    if (it != cache->end()) {
      c.reset(end);
      return it->second;
    }
  }
  ir::Type type = c.peek() == '(' ? read_tuple_type(c, depth, cache) : read_leaf_type(c).to_type();
  if (end == c.ptr())
    cache->emplace(std::string_view(start, static_cast<size_t>(end - start)), type);
  return type;
}

}  // namespace scalify::hlo
