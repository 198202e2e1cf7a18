#include "support/hlo_mutations.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hlo/printer.h"
#include "hlo/reader.h"

namespace scalify::test {
namespace {

using ir::InstrId;
using ir::Instruction;
using ir::Opcode;

/// One candidate change: the changed module (not yet checked), and what it did.
struct Edit {
  ir::Module module;
  std::string description;
  std::vector<std::string> inserted;  ///< names of instructions the change added
};
/// Checks an edit; true stops the search for further variants at this site.
using Accept = std::function<bool(Edit)>;

std::string pct(const std::string& name) { return "%" + name; }

bool is_rng(Opcode op) {
  return op == Opcode::kRng || op == Opcode::kRngBitGenerator ||
         op == Opcode::kRngGetAndUpdateState;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out = "{";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(dims[i]);
  }
  return out + "}";
}

std::vector<std::vector<InstrId>> users_of(const ir::Computation& c) {
  std::vector<std::vector<InstrId>> users(c.size());
  for (InstrId i = 0; i < static_cast<InstrId>(c.size()); ++i) {
    for (InstrId o : c[i].operands) {
      auto& u = users[static_cast<size_t>(o)];
      if (u.empty() || u.back() != i) u.push_back(i);
    }
  }
  return users;
}

/// Every use of `id` as operand `k` of `user`.
template <class F>
void for_each_use(const ir::Computation& c, InstrId id, F&& f) {
  for (InstrId u = 0; u < static_cast<InstrId>(c.size()); ++u) {
    for (size_t k = 0; k < c[u].operands.size(); ++k) {
      if (c[u].operands[k] == id) f(c[u], k);
    }
  }
}

/// True when `a` and `b` certainly compute the same value: the same instruction, or the same
/// deterministic op with the same attributes on operands that compute the same values.
bool same_value(const ir::Computation& c, InstrId a, InstrId b, int depth = 4) {
  if (a == b) return true;
  if (depth == 0) return false;
  const Instruction& x = c[a];
  const Instruction& y = c[b];
  if (x.opcode != y.opcode || x.opcode == Opcode::kParameter || is_rng(x.opcode) ||
      x.async_wrapped != y.async_wrapped || !x.type.compatible(y.type) || x.attrs != y.attrs ||
      x.literal != y.literal || x.called != y.called || x.operands.size() != y.operands.size()) {
    return false;
  }
  for (size_t k = 0; k < x.operands.size(); ++k) {
    if (!same_value(c, x.operands[k], y.operands[k], depth - 1)) return false;
  }
  return true;
}

/// True when the value of `id` certainly does not vary along dimension `dim` (a dimension that a
/// broadcast created).
bool constant_along(const ir::Computation& c, InstrId id, int64_t dim) {
  const Instruction& x = c[id];
  if (x.opcode != Opcode::kBroadcast) return false;
  const ir::DimList& kept = x.dims_attr("dimensions");
  return std::find(kept.begin(), kept.end(), dim) == kept.end();
}

/// Replaces attribute `key`'s value, or appends the attribute.
void set_attr(Instruction& x, const std::string& key, ir::AttrValue value) {
  for (ir::Attribute& a : x.attrs) {
    if (a.key == key) {
      a.value = std::move(value);
      return;
    }
  }
  x.attrs.push_back(ir::Attribute{key, std::move(value), {}});
}

/// Exchanges the values of attributes `a` and `b` (renames the one present if only one is).
void swap_attrs(Instruction& x, const std::string& a, const std::string& b) {
  ir::Attribute* pa = nullptr;
  ir::Attribute* pb = nullptr;
  for (ir::Attribute& attr : x.attrs) {
    if (attr.key == a) pa = &attr;
    if (attr.key == b) pb = &attr;
  }
  if (pa && pb) {
    std::swap(pa->value, pb->value);
  } else if (pa) {
    pa->key = b;
  } else if (pb) {
    pb->key = a;
  }
}

/// A name no computation of `m` uses: "base.mut", "base.mut1", …
std::string fresh_name(const ir::Module& m, const std::string& base) {
  for (int i = 0;; ++i) {
    std::string name = base + ".mut" + (i ? std::to_string(i) : "");
    bool taken = false;
    for (const ir::Computation& c : m.computations) taken = taken || c.find(name).has_value();
    if (!taken) return name;
  }
}

/// An instruction with its operands by name, for rebuilding a computation.
struct Piece {
  Instruction instr;
  std::vector<std::string> operands;
};

Instruction make_instr(const std::string& name, Opcode opcode, const ir::Type& type,
                       const ir::Metadata& metadata) {
  Instruction x;
  x.name = name;
  x.opcode = opcode;
  x.type = type;
  x.metadata = metadata;
  return x;
}

std::vector<std::string> operand_names(const ir::Computation& c, const Instruction& x) {
  std::vector<std::string> names;
  for (InstrId o : x.operands) names.push_back(c[o].name);
  return names;
}

/// `m` with instruction `at` of its ENTRY replaced by `pieces` (none: removed), and every other
/// use of `at` reading `uses_become` instead; nullopt when a name does not resolve.
std::optional<ir::Module> splice(const ir::Module& m, InstrId at, std::vector<Piece> pieces,
                                 const std::string& uses_become) {
  const ir::Computation& c = m.entry();
  const std::string& gone = c[at].name;
  std::vector<Piece> all;
  all.reserve(c.size() + pieces.size());
  for (InstrId i = 0; i < static_cast<InstrId>(c.size()); ++i) {
    if (i == at) {
      for (Piece& p : pieces) all.push_back(std::move(p));
      continue;
    }
    Piece p{c[i], operand_names(c, c[i])};
    for (std::string& name : p.operands) {
      if (name == gone) name = uses_become;
    }
    all.push_back(std::move(p));
  }
  ir::Computation out;
  out.name = c.name;
  out.is_entry = c.is_entry;
  out.attrs = c.attrs;
  out.pos = c.pos;
  out.reserve(all.size());
  for (Piece& p : all) {
    p.instr.operands.clear();
    if (!out.add(std::move(p.instr))) return std::nullopt;
  }
  for (size_t k = 0; k < all.size(); ++k) {
    for (const std::string& name : all[k].operands) {
      std::optional<InstrId> id = out.find(name);
      if (!id) return std::nullopt;
      out[static_cast<InstrId>(k)].operands.push_back(*id);
    }
  }
  std::optional<InstrId> root = out.find(c.root == at ? uses_become : c[c.root].name);
  if (!root) return std::nullopt;
  out.root = *root;
  ir::Module result = m;
  result.entry() = std::move(out);
  return result;
}

/// The number of devices a collective's groups cover: the listed ids, or (for `{}`) every
/// device of its group mode.
std::vector<int64_t> devices_of(const ir::Module& m, const Instruction& x) {
  std::vector<int64_t> ids;
  const ir::ReplicaGroups* rg = x.replica_groups();
  if (rg && !rg->groups.empty()) {
    for (const auto& g : rg->groups) ids.insert(ids.end(), g.begin(), g.end());
  } else {
    const bool* global = x.get<bool>("use_global_device_ids");
    int64_t n = (global && *global)    ? m.num_partitions() * m.replica_count()
                : x.attr("channel_id") ? m.num_partitions()
                                       : m.replica_count();
    for (int64_t i = 0; i < n; ++i) ids.push_back(i);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

/// Product of dims[min(a,b) .. max(a,b)): 1 when concatenating (or splitting) along a or along b
/// lays the numbers out identically.
int64_t product_between(const std::vector<int64_t>& dims, int64_t a, int64_t b) {
  int64_t p = 1;
  for (int64_t i = std::min(a, b); i < std::max(a, b); ++i) p *= dims[static_cast<size_t>(i)];
  return p;
}

// ---------------------------------------------------------------------------------------------
// The kinds. Each offers its variants at one instruction to `accept`, in order, and stops at the
// first accepted one.

void drop_collective(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  std::vector<std::string> ops = operand_names(c, x);
  if (x.opcode == Opcode::kAllReduce) {
    if (x.type.is_tuple()) {
      if (x.operands.size() != x.type.elements().size()) return;
      Instruction t = make_instr(x.name, Opcode::kTuple, x.type, x.metadata);
      auto mm = splice(m, id, {Piece{t, ops}}, x.name);
      std::string list;
      for (const std::string& o : ops) {
        if (!list.empty()) list += ", ";
        list += pct(o);
      }
      if (mm) {
        accept({std::move(*mm),
                "all-reduce " + pct(x.name) + " removed: a tuple of its operands (" + list +
                    ") stands in",
                {}});
      }
      return;
    }
    if (ops.size() != 1 || !c[x.operands[0]].type.compatible(x.type)) return;
    auto mm = splice(m, id, {}, ops[0]);
    if (mm) {
      accept({std::move(*mm),
              "all-reduce " + pct(x.name) + " removed: its users read " + pct(ops[0]) + " instead",
              {}});
    }
    return;
  }
  if (x.opcode != Opcode::kAllGather && x.opcode != Opcode::kReduceScatter) return;
  if (ops.size() != 1 || !x.type.is_array()) return;
  const ir::DimList& dims = x.dims_attr("dimensions");
  const ir::Type& in = c[x.operands[0]].type;
  if (dims.size() != 1 || !in.is_array() || in.rank() != x.type.rank()) return;
  const int64_t d = dims[0];
  if (d < 0 || d >= in.rank()) return;
  if (x.opcode == Opcode::kAllGather) {
    if (in.dim(d) <= 0 || x.type.dim(d) % in.dim(d) != 0) return;
    const int64_t n = x.type.dim(d) / in.dim(d);
    if (n < 2) return;
    Instruction cat = make_instr(x.name, Opcode::kConcatenate, x.type, x.metadata);
    cat.attrs.push_back(ir::Attribute{"dimensions", ir::DimList{d}, {}});
    auto mm = splice(m, id, {Piece{cat, std::vector<std::string>(static_cast<size_t>(n), ops[0])}},
                     x.name);
    if (mm) {
      accept({std::move(*mm),
              "all-gather " + pct(x.name) + " replaced by a concatenate of " + std::to_string(n) +
                  " copies of " + pct(ops[0]) + " along dimension " + std::to_string(d),
              {}});
    }
    return;
  }
  // reduce-scatter: this rank's first chunk of its own partial value, without the sum.
  std::vector<ir::SliceRange> window;
  for (int64_t i = 0; i < x.type.rank(); ++i) window.push_back({0, x.type.dim(i), 1});
  Instruction slice = make_instr(x.name, Opcode::kSlice, x.type, x.metadata);
  slice.attrs.push_back(ir::Attribute{"slice", std::move(window), {}});
  auto mm = splice(m, id, {Piece{slice, ops}}, x.name);
  if (mm) {
    accept({std::move(*mm),
            "reduce-scatter " + pct(x.name) + " replaced by a slice of " + pct(ops[0]) +
                " (the first chunk along dimension " + std::to_string(d) + ", not reduced)",
            {}});
  }
}

void singleton_groups(const ir::Module& m, InstrId id, const Accept& accept) {
  const Instruction& x = m.entry()[id];
  // all-gather and reduce-scatter scale their result by the group size: a group of one would
  // change their type.
  if (x.opcode != Opcode::kAllReduce && x.opcode != Opcode::kAllReduceStart &&
      x.opcode != Opcode::kAllToAll && x.opcode != Opcode::kCollectiveBroadcast) {
    return;
  }
  std::vector<int64_t> ids = devices_of(m, x);
  if (ids.size() < 2) return;
  const ir::ReplicaGroups* old = x.replica_groups();
  if (old && !old->groups.empty() &&
      std::all_of(old->groups.begin(), old->groups.end(),
                  [](const std::vector<int64_t>& g) { return g.size() <= 1; })) {
    return;
  }
  ir::ReplicaGroups groups;
  for (int64_t d : ids) groups.groups.push_back({d});
  ir::Module mm = m;
  Instruction& y = mm.entry()[id];
  const std::string before = old ? ir::attr_value_to_string(*old) : "{}";
  const std::string after = ir::attr_value_to_string(groups);
  set_attr(y, "replica_groups", std::move(groups));
  accept({std::move(mm),
          y.opcode_text() + " " + pct(y.name) + ": replica_groups " + before + " -> " + after,
          {}});
}

/// Product of the dimensions of `t` that are neither in `a` nor in `b`.
int64_t free_size(const ir::Type& t, const ir::DimList& a, const ir::DimList& b) {
  int64_t p = 1;
  for (int64_t i = 0; i < t.rank(); ++i) {
    if (std::find(a.begin(), a.end(), i) == a.end() && std::find(b.begin(), b.end(), i) == b.end())
      p *= t.dim(i);
  }
  return p;
}

void swap_operands(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  switch (x.opcode) {
    case Opcode::kSubtract:
    case Opcode::kDivide:
    case Opcode::kPower:
    case Opcode::kRemainder:
    case Opcode::kAtan2:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kCompare:
    case Opcode::kDot:
      break;
    default:
      return;
  }
  if (x.operands.size() != 2 || x.operands[0] == x.operands[1]) return;
  const InstrId a = x.operands[0], b = x.operands[1];
  ir::Module mm = m;
  Instruction& y = mm.entry()[id];
  std::swap(y.operands[0], y.operands[1]);
  std::string what = "operands swapped";
  if (x.opcode == Opcode::kDot) {
    if (x.attr("sparsity")) return;
    const ir::DimList& lc = x.dims_attr("lhs_contracting_dims");
    const ir::DimList& rc = x.dims_attr("rhs_contracting_dims");
    const ir::DimList& lb = x.dims_attr("lhs_batch_dims");
    const ir::DimList& rb = x.dims_attr("rhs_batch_dims");
    // With no free dimension of size > 1 on either side, the swapped dot computes the same.
    if (free_size(c[a].type, lc, lb) <= 1 && free_size(c[b].type, rc, rb) <= 1) return;
    for (const char* side : {"contracting", "batch"}) {
      const std::string l = std::string("lhs_") + side + "_dims";
      const std::string r = std::string("rhs_") + side + "_dims";
      swap_attrs(y, l, r);
    }
    what = "lhs and rhs swapped with their contracting and batch dimensions";
  } else {
    if (x.opcode == Opcode::kCompare) {
      const auto* dir = x.get<ir::Word>("direction");
      if (!dir || dir->text == "EQ" || dir->text == "NE") return;
    }
    if (!c[a].type.compatible(c[b].type) || same_value(c, a, b)) return;
  }
  accept({std::move(mm),
          x.opcode_text() + " " + pct(x.name) + ": " + what + " (now " + pct(c[b].name) + ", " +
              pct(c[a].name) + ")",
          {}});
}

void flip_compare(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  if (x.opcode != Opcode::kCompare || x.operands.size() != 2) return;
  if (same_value(c, x.operands[0], x.operands[1])) return;
  const auto* dir = x.get<ir::Word>("direction");
  if (!dir) return;
  static constexpr std::pair<std::string_view, std::string_view> kComplement[] = {
      {"LT", "GE"}, {"GE", "LT"}, {"GT", "LE"}, {"LE", "GT"}, {"EQ", "NE"}, {"NE", "EQ"}};
  for (const auto& [from, to] : kComplement) {
    if (dir->text != from) continue;
    ir::Module mm = m;
    set_attr(mm.entry()[id], "direction", ir::Word{std::string(to)});
    accept(
        {std::move(mm),
         "compare " + pct(x.name) + ": direction " + std::string(from) + " -> " + std::string(to),
         {}});
    return;
  }
}

/// True when `id` is a constant or iota, or a broadcast, convert or reshape of one: an operand
/// that may be an op's identity (x + 0, x · 1), so that changing or dropping the op might
/// change nothing.
bool is_constant_like(const ir::Computation& c, InstrId id) {
  for (int hop = 0; hop < 6; ++hop) {
    const Instruction& x = c[id];
    if (x.opcode == Opcode::kConstant || x.opcode == Opcode::kIota) return true;
    const bool passes = x.opcode == Opcode::kBroadcast || x.opcode == Opcode::kConvert ||
                        x.opcode == Opcode::kReshape || x.opcode == Opcode::kCopy;
    if (!passes || x.operands.size() != 1) return false;
    id = x.operands[0];
  }
  return false;
}

bool is_float_array(const ir::Type& t) { return t.is_array() && ir::is_float(t.dtype()); }

void change_opcode(const ir::Module& m, InstrId id, const Accept& accept) {
  static constexpr std::pair<Opcode, Opcode> kNeighbours[] = {
      {Opcode::kAdd, Opcode::kSubtract},    {Opcode::kSubtract, Opcode::kAdd},
      {Opcode::kMultiply, Opcode::kDivide}, {Opcode::kDivide, Opcode::kMultiply},
      {Opcode::kMaximum, Opcode::kMinimum}, {Opcode::kMinimum, Opcode::kMaximum},
      {Opcode::kExp, Opcode::kTanh},        {Opcode::kTanh, Opcode::kExp},
      {Opcode::kSqrt, Opcode::kRsqrt},      {Opcode::kRsqrt, Opcode::kSqrt},
      {Opcode::kNegate, Opcode::kAbs}};
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  const auto to = std::find_if(std::begin(kNeighbours), std::end(kNeighbours),
                               [&](const auto& n) { return n.first == x.opcode; });
  if (to == std::end(kNeighbours) || !is_float_array(x.type)) return;
  if (x.operands.size() == 2) {
    const InstrId a = x.operands[0], b = x.operands[1];
    if (is_constant_like(c, a) || is_constant_like(c, b) || same_value(c, a, b)) return;
  }
  ir::Module mm = m;
  mm.entry()[id].opcode = to->second;
  accept(
      {std::move(mm),
       x.opcode_text() + " " + pct(x.name) + " became " + std::string(ir::opcode_name(to->second)),
       {}});
}

void drop_op(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  const bool arithmetic = x.opcode == Opcode::kAdd || x.opcode == Opcode::kSubtract ||
                          x.opcode == Opcode::kMultiply || x.opcode == Opcode::kDivide;
  if (!arithmetic || x.operands.size() != 2 || !is_float_array(x.type)) return;
  const InstrId a = x.operands[0], b = x.operands[1];
  if (!(c[a].type == x.type) || is_constant_like(c, b) || same_value(c, a, b)) return;
  auto mm = splice(m, id, {}, c[a].name);
  if (!mm) return;
  accept({std::move(*mm),
          x.opcode_text() + " " + pct(x.name) + " dropped: its users read its first operand " +
              pct(c[a].name),
          {}});
}

/// The literal with every finite number x replaced by 1.5·x + 1 (x + 1 where that is x);
/// nullopt if it has no finite number.
std::optional<std::string> bump_numbers(std::string_view literal) {
  auto in_token = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '+' || ch == '.' ||
           ch == '_';
  };
  std::string out;
  bool changed = false;
  for (size_t i = 0; i < literal.size();) {
    if (!in_token(literal[i])) {
      out += literal[i++];
      continue;
    }
    size_t j = i;
    while (j < literal.size() && in_token(literal[j])) ++j;
    std::string_view token = literal.substr(i, j - i);
    double v = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec == std::errc() && end == token.data() + token.size() && std::isfinite(v)) {
      double w = v * 1.5 + 1;
      if (w == v) w = v + 1;
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, w);
      out.append(buf, r.ptr);
      changed = true;
    } else {
      out += token;
    }
    i = j;
  }
  if (!changed) return std::nullopt;
  return out;
}

void change_constant(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  if (x.opcode != Opcode::kConstant || !x.type.is_array() || !ir::is_float(x.type.dtype()) ||
      x.type.element_count() > 64 || x.literal.find("...") != std::string::npos) {
    return;
  }
  bool init = false;
  for_each_use(c, id, [&](const Instruction& u, size_t k) {
    const size_t n = u.operands.size();
    if ((u.opcode == Opcode::kReduce || u.opcode == Opcode::kReduceWindow) && k >= n / 2)
      init = true;
    if (u.opcode == Opcode::kSelectAndScatter && k == 2) init = true;
  });
  if (init) return;
  std::optional<std::string> literal = bump_numbers(x.literal);
  if (!literal) return;
  ir::Module mm = m;
  mm.entry()[id].literal = *literal;
  accept({std::move(mm), "constant " + pct(x.name) + ": " + x.literal + " -> " + *literal, {}});
}

void shift_slice(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  if (x.opcode != Opcode::kSlice || x.operands.size() != 1) return;
  const auto* ranges = x.get<std::vector<ir::SliceRange>>("slice");
  const ir::Type& in = c[x.operands[0]].type;
  if (!ranges || !in.is_array() || static_cast<int64_t>(ranges->size()) != in.rank()) return;
  for (int64_t delta : {int64_t{1}, int64_t{-1}}) {
    for (int64_t d = 0; d < in.rank(); ++d) {
      const ir::SliceRange& r = (*ranges)[static_cast<size_t>(d)];
      const bool fits = delta > 0 ? r.limit + 1 <= in.dim(d) : r.start >= 1;
      if (!fits || in.dim(d) <= 1 || constant_along(c, x.operands[0], d)) continue;
      std::vector<ir::SliceRange> moved = *ranges;
      moved[static_cast<size_t>(d)].start += delta;
      moved[static_cast<size_t>(d)].limit += delta;
      ir::Module mm = m;
      set_attr(mm.entry()[id], "slice", moved);
      const ir::SliceRange& s = moved[static_cast<size_t>(d)];
      if (accept({std::move(mm),
                  "slice " + pct(x.name) + ": dimension " + std::to_string(d) + " window [" +
                      std::to_string(r.start) + ":" + std::to_string(r.limit) + "] -> [" +
                      std::to_string(s.start) + ":" + std::to_string(s.limit) + "]",
                  {}})) {
        return;
      }
    }
  }
}

void swap_concatenate(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  if (x.opcode != Opcode::kConcatenate) return;
  for (size_t i = 0; i < x.operands.size(); ++i) {
    for (size_t j = i + 1; j < x.operands.size(); ++j) {
      const InstrId a = x.operands[i], b = x.operands[j];
      if (!c[a].type.compatible(c[b].type) || same_value(c, a, b)) continue;
      ir::Module mm = m;
      std::swap(mm.entry()[id].operands[i], mm.entry()[id].operands[j]);
      if (accept({std::move(mm),
                  "concatenate " + pct(x.name) + ": operands " + std::to_string(i) + " (" +
                      pct(c[a].name) + ") and " + std::to_string(j) + " (" + pct(c[b].name) +
                      ") swapped",
                  {}})) {
        return;
      }
    }
  }
}

void permute_transpose(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  if (x.opcode != Opcode::kTranspose || x.operands.size() != 1) return;
  const ir::Type& in = c[x.operands[0]].type;
  const ir::DimList& perm = x.dims_attr("dimensions");
  if (!in.is_array() || in.rank() < 2 || static_cast<int64_t>(perm.size()) != in.rank()) return;
  for (size_t i = 0; i < perm.size(); ++i) {
    for (size_t j = i + 1; j < perm.size(); ++j) {
      const int64_t a = perm[i], b = perm[j];
      if (a < 0 || b < 0 || a >= in.rank() || b >= in.rank()) return;
      if (in.dim(a) != in.dim(b) || in.dim(a) <= 1) continue;
      if (constant_along(c, x.operands[0], a) && constant_along(c, x.operands[0], b)) continue;
      ir::DimList other = perm;
      std::swap(other[i], other[j]);
      ir::Module mm = m;
      set_attr(mm.entry()[id], "dimensions", other);
      if (accept({std::move(mm),
                  "transpose " + pct(x.name) + ": dimensions " + dims_text(perm) + " -> " +
                      dims_text(other),
                  {}})) {
        return;
      }
    }
  }
}

/// `s` with the tile counts of data dimensions i and j swapped, and its device array transposed
/// with them (as an explicit list).
ir::Sharding swap_tiles(const ir::Sharding& s, size_t i, size_t j) {
  const std::vector<int64_t> old_list = s.device_list();
  const std::vector<int64_t>& old_dims = s.tile_dims;
  std::vector<int64_t> new_dims = old_dims;
  std::swap(new_dims[i], new_dims[j]);
  std::vector<int64_t> old_strides(old_dims.size(), 1);
  for (size_t k = old_dims.size(); k-- > 1;) old_strides[k - 1] = old_strides[k] * old_dims[k];
  ir::Sharding out = s;
  out.tile_dims = new_dims;
  out.iota.reset();
  out.devices.assign(old_list.size(), 0);
  std::vector<int64_t> index(new_dims.size(), 0);  // a multi-index of the new array
  for (size_t linear = 0; linear < old_list.size(); ++linear) {
    std::vector<int64_t> old_index = index;
    std::swap(old_index[i], old_index[j]);
    int64_t at = 0;
    for (size_t k = 0; k < old_index.size(); ++k) at += old_index[k] * old_strides[k];
    out.devices[linear] = old_list[static_cast<size_t>(at)];
    for (size_t k = index.size(); k-- > 0;) {
      if (++index[k] < new_dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

void wrong_shard_dim(const ir::Module& m, InstrId id, const Accept& accept) {
  const ir::Computation& c = m.entry();
  const Instruction& x = c[id];
  if (x.opcode == Opcode::kParameter) {
    const ir::Sharding* s = x.sharding();
    if (!s || s->kind != ir::Sharding::Kind::kTiled || !x.type.is_array()) return;
    const size_t extra = (s->last_tile_dim_replicate ? 1 : 0) + s->last_tile_dims.size();
    const size_t rank = static_cast<size_t>(x.type.rank());
    if (s->tile_dims.size() != rank + extra) return;
    for (size_t i = 0; i < rank; ++i) {
      for (size_t j = i + 1; j < rank; ++j) {
        const int64_t di = x.type.dim(static_cast<int64_t>(i));
        if (di <= 1 || di != x.type.dim(static_cast<int64_t>(j)) ||
            s->tile_dims[i] == s->tile_dims[j]) {
          continue;
        }
        ir::Sharding moved = swap_tiles(*s, i, j);
        ir::Module mm = m;
        set_attr(mm.entry()[id], "sharding", ir::Boxed<ir::Sharding>(moved));
        if (accept({std::move(mm),
                    "parameter " + pct(x.name) + ": sharding " + s->to_string() + " -> " +
                        moved.to_string(),
                    {}})) {
          return;
        }
      }
    }
    return;
  }
  if (x.opcode != Opcode::kAllGather && x.opcode != Opcode::kReduceScatter &&
      x.opcode != Opcode::kAllToAll) {
    return;
  }
  const ir::DimList& dims = x.dims_attr("dimensions");
  if (x.operands.size() != 1 || dims.size() != 1 || !x.type.is_array()) return;
  const ir::Type& in = c[x.operands[0]].type;
  const int64_t d = dims[0];
  if (!in.is_array() || in.rank() != x.type.rank() || d < 0 || d >= in.rank()) return;
  const std::string op = c[x.operands[0]].name;
  const std::string head =
      x.opcode_text() + " " + pct(x.name) + ": dimension " + std::to_string(d) + " -> ";
  if (x.opcode == Opcode::kAllToAll) {
    const ir::ReplicaGroups* rg = x.replica_groups();
    const int64_t n = rg && !rg->groups.empty() ? static_cast<int64_t>(rg->groups[0].size())
                                                : static_cast<int64_t>(devices_of(m, x).size());
    for (int64_t e = 0; e < in.rank(); ++e) {
      if (e == d || n < 2 || in.dim(e) % n != 0 || product_between(in.dims(), d, e) <= 1) continue;
      ir::Module mm = m;
      set_attr(mm.entry()[id], "dimensions", ir::DimList{e});
      if (accept({std::move(mm), head + std::to_string(e), {}})) return;
    }
    return;
  }
  const bool gather = x.opcode == Opcode::kAllGather;
  const int64_t small = gather ? in.dim(d) : x.type.dim(d);
  const int64_t large = gather ? x.type.dim(d) : in.dim(d);
  if (small <= 0 || large % small != 0) return;
  const int64_t n = large / small;
  if (n < 2) return;
  for (int64_t e = 0; e < in.rank(); ++e) {
    if (e == d || product_between(in.dims(), d, e) <= 1) continue;
    std::vector<int64_t> shape = in.dims();
    if (gather) {
      shape[static_cast<size_t>(e)] *= n;
    } else {
      if (shape[static_cast<size_t>(e)] % n != 0) continue;
      shape[static_cast<size_t>(e)] /= n;
    }
    Instruction y = x;
    y.type.set_dims(shape);
    set_attr(y, "dimensions", ir::DimList{e});
    const std::string reshaped = fresh_name(m, x.name);
    Instruction back = make_instr(reshaped, Opcode::kReshape, x.type, x.metadata);
    auto mm = splice(m, id,
                     {Piece{y, operand_names(c, x)}, Piece{back, std::vector<std::string>{x.name}}},
                     reshaped);
    if (!mm) return;
    if (accept({std::move(*mm),
                head + std::to_string(e) + " (now " + y.type.to_string(false) + "); " +
                    pct(reshaped) + " reshapes it back to " + x.type.to_string(false) +
                    " for its users",
                {reshaped}})) {
      return;
    }
  }
}

/// `x`, its operands, its users (in `c`) and the inserted names, without duplicates. A
/// get-tuple-element user is no hop of its own: an element of a tuple-valued op (a tuple
/// all-reduce, which is one all-reduce per element) is read only through one, so the users of
/// those reads are one hop away too.
std::vector<std::string> near_names(const ir::Computation& c, InstrId id,
                                    const std::vector<std::string>& inserted) {
  std::vector<std::string> names;
  auto add = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  add(c[id].name);
  for (InstrId o : c[id].operands) add(c[o].name);
  const std::vector<std::vector<InstrId>> users = users_of(c);
  for (InstrId u : users[static_cast<size_t>(id)]) {
    add(c[u].name);
    if (c[u].opcode != Opcode::kGetTupleElement) continue;
    for (InstrId v : users[static_cast<size_t>(u)]) add(c[v].name);
  }
  for (const std::string& n : inserted) add(n);
  return names;
}

/// True when `id` has users and all of them are rng ops.
bool only_feeds_rng(const ir::Computation& c, InstrId id) {
  const std::vector<InstrId> users = users_of(c)[static_cast<size_t>(id)];
  return !users.empty() && c.root != id &&
         std::all_of(users.begin(), users.end(), [&](InstrId u) { return is_rng(c[u].opcode); });
}

void offer(MutationKind kind, const ir::Module& m, InstrId id, const Accept& accept) {
  switch (kind) {
    case MutationKind::kDropCollective:
      return drop_collective(m, id, accept);
    case MutationKind::kSingletonGroups:
      return singleton_groups(m, id, accept);
    case MutationKind::kSwapOperands:
      return swap_operands(m, id, accept);
    case MutationKind::kChangeConstant:
      return change_constant(m, id, accept);
    case MutationKind::kShiftSlice:
      return shift_slice(m, id, accept);
    case MutationKind::kSwapConcatenate:
      return swap_concatenate(m, id, accept);
    case MutationKind::kPermuteTranspose:
      return permute_transpose(m, id, accept);
    case MutationKind::kWrongShardDim:
      return wrong_shard_dim(m, id, accept);
    case MutationKind::kChangeOpcode:
      return change_opcode(m, id, accept);
    case MutationKind::kDropOp:
      return drop_op(m, id, accept);
    case MutationKind::kFlipCompare:
      return flip_compare(m, id, accept);
  }
}

std::optional<Mutant> apply_at(const ir::Module& m, InstrId id, MutationKind kind) {
  std::optional<Mutant> result;
  offer(kind, m, id, [&](Edit edit) {
    const std::string text = hlo::print_module(edit.module);
    auto back = hlo::read_module(text, "mutant.hlo");
    if (!back || ir::first_difference(m, *back).empty()) return false;
    Mutation what{kind, m.entry()[id].name, std::move(edit.description),
                  near_names(m.entry(), id, edit.inserted), only_feeds_rng(m.entry(), id)};
    result = Mutant{std::move(*back), std::move(what)};
    return true;
  });
  return result;
}

}  // namespace

std::vector<Mutation> mutation_sites(const ir::Module& m, MutationKind kind) {
  std::vector<Mutation> sites;
  if (m.entry_id < 0) return sites;
  for (InstrId id = 0; id < static_cast<InstrId>(m.entry().size()); ++id) {
    if (std::optional<Mutant> mutant = apply_at(m, id, kind)) {
      sites.push_back(std::move(mutant->mutation));
    }
  }
  return sites;
}

std::optional<Mutant> apply_mutation(const ir::Module& m, const Mutation& site) {
  if (m.entry_id < 0) return std::nullopt;
  std::optional<InstrId> id = m.entry().find(site.node);
  if (!id) return std::nullopt;
  return apply_at(m, *id, site.kind);
}

std::string_view mutation_kind_name(MutationKind kind) {
  switch (kind) {
    case MutationKind::kDropCollective:
      return "drop-collective";
    case MutationKind::kSingletonGroups:
      return "singleton-groups";
    case MutationKind::kSwapOperands:
      return "swap-operands";
    case MutationKind::kChangeConstant:
      return "change-constant";
    case MutationKind::kShiftSlice:
      return "shift-slice";
    case MutationKind::kSwapConcatenate:
      return "swap-concatenate";
    case MutationKind::kPermuteTranspose:
      return "permute-transpose";
    case MutationKind::kWrongShardDim:
      return "wrong-shard-dim";
    case MutationKind::kChangeOpcode:
      return "change-opcode";
    case MutationKind::kDropOp:
      return "drop-op";
    case MutationKind::kFlipCompare:
      return "flip-compare";
  }
  return "unknown";
}

}  // namespace scalify::test
