// Soundness, tested differentially: random single-device programs over f32 and s32 (arithmetic,
// integer division and remainder, compare/select, converts, transposes, reductions) against
// copies edited in ways that keep or change their values. Whenever `check` says `equivalent`,
// the reference interpreter must compute the same numbers for both on random inputs; a pair
// where it does not is a rule (or a bridge) the checker must not have trusted.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/random_values.h"
#include "proofcheck/proof_check.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify {
namespace {

/// One instruction of a generated program: `name = type op(operands), attrs`.
struct Op {
  std::string name, type, op;
  std::vector<size_t> operands;  ///< earlier instructions
  std::string attrs;             ///< text after the operands (with its leading ", ")
  std::string literal;           ///< a constant's value
};

bool is_int(const Op& o) { return o.type.starts_with("s32"); }

/// Random programs and edits of them.
class Programs {
 public:
  explicit Programs(uint64_t seed) : rng_(seed) {}

  std::vector<Op> program() {
    std::vector<Op> p = {{"p0", "f32[2,3]", "parameter", {}, "", "0"},
                         {"p1", "f32[2,3]", "parameter", {}, "", "1"},
                         {"p2", "s32[2,3]", "parameter", {}, "", "2"}};
    const int n = pick(4, 10);
    for (int i = 0; i < n; ++i) grow(p);
    // The output: an f32 value built from the last float and the last integer value.
    size_t f = 0, s = 2;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i].type == "f32[2,3]") f = i;
      if (p[i].type == "s32[2,3]") s = i;
    }
    const size_t c = add(p, {"", "f32[2,3]", "convert", {s}, "", ""});
    add(p, {"", "f32[2,3]", "add", {f, c}, "", ""});
    return p;
  }

  /// `p` with one edit: a swap of commutative operands, a neutral wrapper, the float identity
  /// x / c = x * (1/c) applied to any type, or a real change (another op, constant, order).
  std::vector<Op> edit(std::vector<Op> p) {
    std::vector<size_t> ops;  // f32 or s32 values of shape [2,3], made by an op
    for (size_t i = 3; i + 2 < p.size(); ++i) {
      if (p[i].type.ends_with("[2,3]") && !p[i].type.starts_with("pred") && p[i].op != "constant") {
        ops.push_back(i);
      }
    }
    if (ops.empty()) return p;
    const size_t i = ops[static_cast<size_t>(pick(0, static_cast<int>(ops.size()) - 1))];
    const Op o = p[i];
    const std::string scalar = o.type.substr(0, 3) + "[]";
    switch (pick(0, 5)) {
      case 0:  // operands swapped: neutral for commutative ops, a bug for the others
        if (o.operands.size() == 2) std::swap(p[i].operands[0], p[i].operands[1]);
        break;
      case 1:  // another op of the same arity
        if (o.operands.size() == 2 && o.op != "select" && o.op != "compare") {
          p[i].op = is_int(o) ? pick_of(kIntBinary) : pick_of(kFloatBinary);
        }
        break;
      case 2:  // a constant changed
        for (Op& c : p) {
          if (c.op == "constant" && chance()) c.literal = is_int(c) ? "3" : "0.25";
        }
        break;
      case 3: {  // x / c written as x * (1/c): true in floating point, false for integers
        if (o.op != "divide") break;
        const Op& b = p[o.operands[1]];
        if (b.op != "broadcast" || p[b.operands[0]].op != "constant") break;
        const double v = std::stod(p[b.operands[0]].literal);
        if (v == 0) break;
        const std::string inverse =
            is_int(o) ? std::to_string(static_cast<int64_t>(1 / v)) : std::to_string(1 / v);
        const size_t k = insert(p, i, {"", scalar, "constant", {}, "", inverse});
        const size_t kb = insert(p, k + 1, {"", o.type, "broadcast", {k}, ", dimensions={}", ""});
        p[kb + 1].op = "multiply";
        p[kb + 1].operands[1] = kb;
        break;
      }
      case 4: {  // a neutral negate(negate(x)) after an op
        const size_t a = insert(p, i + 1, {"", o.type, "negate", {i}, "", ""});
        const size_t b = insert(p, a + 1, {"", o.type, "negate", {a}, "", ""});
        redirect(p, i, b, b + 1);
        break;
      }
      default: {  // (x / 2) * 2 for x: true in real arithmetic only
        const size_t two = insert(p, i + 1, {"", scalar, "constant", {}, "", "2"});
        const size_t b =
            insert(p, two + 1, {"", o.type, "broadcast", {two}, ", dimensions={}", ""});
        const size_t d = insert(p, b + 1, {"", o.type, "divide", {i, b}, "", ""});
        const size_t m = insert(p, d + 1, {"", o.type, "multiply", {d, b}, "", ""});
        redirect(p, i, m, m + 1);
        break;
      }
    }
    return p;
  }

  static std::string text(const std::vector<Op>& p) {
    std::string s =
        "HloModule fuzz\n\nsum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
        "  ROOT c = f32[] add(a, b)\n}\n\nENTRY e {\n";
    for (size_t i = 0; i < p.size(); ++i) {
      const Op& o = p[i];
      s += std::string(i + 1 == p.size() ? "  ROOT " : "  ") + "v" + std::to_string(i) + " = " +
           o.type + " " + o.op + "(";
      if (o.op == "parameter" || o.op == "constant") s += o.literal;
      for (size_t k = 0; k < o.operands.size(); ++k) {
        s += (k ? ", v" : "v") + std::to_string(o.operands[k]);
      }
      s += ")" + o.attrs + "\n";
    }
    return s + "}\n";
  }

 private:
  static constexpr std::array kFloatBinary = {"add",    "subtract", "multiply",
                                              "divide", "maximum",  "minimum"};
  static constexpr std::array kIntBinary = {
      "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or"};

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance() { return pick(0, 1) == 1; }
  template <class A>
  std::string pick_of(const A& options) {
    return options[static_cast<size_t>(pick(0, static_cast<int>(options.size()) - 1))];
  }
  /// A random earlier value of the given kind (int or float).
  size_t value(const std::vector<Op>& p, bool integer) {
    std::vector<size_t> fit;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i].type == (integer ? "s32[2,3]" : "f32[2,3]")) fit.push_back(i);
    }
    return fit[static_cast<size_t>(pick(0, static_cast<int>(fit.size()) - 1))];
  }
  size_t add(std::vector<Op>& p, Op o) {
    p.push_back(std::move(o));
    return p.size() - 1;
  }
  /// Inserts `o` before position `at`, renumbering the operands after it; returns `at`.
  static size_t insert(std::vector<Op>& p, size_t at, Op o) {
    for (Op& x : p) {
      for (size_t& k : x.operands) k += k >= at ? 1 : 0;
    }
    p.insert(p.begin() + static_cast<std::ptrdiff_t>(at), std::move(o));
    return at;
  }
  /// Users from position `from` on read `to` instead of `old`.
  static void redirect(std::vector<Op>& p, size_t old, size_t to, size_t from) {
    for (size_t i = from; i < p.size(); ++i) {
      for (size_t& k : p[i].operands) k = k == old ? to : k;
    }
  }
  /// A scalar constant broadcast to [2,3].
  size_t splat(std::vector<Op>& p, bool integer) {
    const std::string v =
        integer ? std::to_string(pick(-2, 3)) : pick_of(std::array{"0.5", "2", "-1", "3"});
    const size_t c = add(p, {"", integer ? "s32[]" : "f32[]", "constant", {}, "", v});
    return add(p, {"", integer ? "s32[2,3]" : "f32[2,3]", "broadcast", {c}, ", dimensions={}", ""});
  }
  void grow(std::vector<Op>& p) {
    const bool integer = chance();
    const std::string type = integer ? "s32[2,3]" : "f32[2,3]";
    switch (pick(0, 6)) {
      case 0:
      case 1: {
        const size_t a = value(p, integer);
        const size_t b = chance() ? value(p, integer) : splat(p, integer);
        add(p,
            {"",
             type,
             pick_of(integer ? std::vector<std::string>(kIntBinary.begin(), kIntBinary.end())
                             : std::vector<std::string>(kFloatBinary.begin(), kFloatBinary.end())),
             {a, b},
             "",
             ""});
        break;
      }
      case 2:  // divide by a constant: the case rules rewrite
        add(p, {"", type, "divide", {value(p, integer), splat(p, integer)}, "", ""});
        break;
      case 3: {
        const size_t a = value(p, integer), b = value(p, integer);
        const size_t c = add(p, {"",
                                 "pred[2,3]",
                                 "compare",
                                 {a, b},
                                 ", direction=" + pick_of(std::array{"LT", "GE", "EQ", "NE"}),
                                 ""});
        add(p, {"", type, "select", {c, value(p, integer), value(p, integer)}, "", ""});
        break;
      }
      case 4:
        add(p, {"", type, "convert", {value(p, !integer)}, "", ""});
        break;
      case 5: {
        const size_t t = add(p, {"",
                                 integer ? "s32[3,2]" : "f32[3,2]",
                                 "transpose",
                                 {value(p, integer)},
                                 ", dimensions={1,0}",
                                 ""});
        add(p, {"", type, "transpose", {t}, ", dimensions={1,0}", ""});
        break;
      }
      default: {
        if (integer) {
          add(p, {"", type, "negate", {value(p, true)}, "", ""});
          break;
        }
        const size_t z = add(p, {"", "f32[]", "constant", {}, "", "0"});
        const size_t r = add(
            p,
            {"", "f32[2]", "reduce", {value(p, false), z}, ", dimensions={1}, to_apply=sum", ""});
        add(p, {"", type, "broadcast", {r}, ", dimensions={0}", ""});
        break;
      }
    }
  }

  std::mt19937_64 rng_;
};

/// Whether both programs compute the same numbers on random inputs (NaN equal to NaN).
bool same_numbers(const ir::Module& a, const ir::Module& b, uint64_t seed, std::string* why) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<eval::Value> args;
    for (ir::InstrId p : a.entry().parameters()) {
      eval::Value v = eval::random_value(a.entry()[p].type, rng);
      if (a.entry()[p].type.dtype() == ir::DType::kS32) {
        for (double& x : v.tensor().data)
          x = static_cast<double>(static_cast<int64_t>(rng() % 11) - 5);
      }
      args.push_back(std::move(v));
    }
    const auto x = eval::evaluate(a, a.entry_id, args);
    const auto y = eval::evaluate(b, b.entry_id, args);
    if (!x || !y) continue;  // (a limit of the interpreter: not a finding)
    const auto& u = x->tensor().data;
    const auto& w = y->tensor().data;
    for (size_t i = 0; i < u.size(); ++i) {
      if (std::isnan(u[i]) && std::isnan(w[i])) continue;
      if (u[i] == w[i] || std::abs(u[i] - w[i]) <= 1e-6 * (1 + std::abs(u[i]))) continue;
      *why = "element " + std::to_string(i) + ": " + std::to_string(u[i]) + " vs " +
             std::to_string(w[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("soundness: whatever check proves equivalent computes the same numbers",
          "[verify][soundness]") {
  // SCALIFY_SOUNDNESS_SEEDS=N runs a longer campaign (CI runs 1000 pairs).
  const char* env = std::getenv("SCALIFY_SOUNDNESS_SEEDS");
  const uint64_t seeds = env ? std::strtoull(env, nullptr, 10) : 1000;
  int equivalent = 0, pairs = 0, rechecked = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    Programs gen(seed);
    const std::vector<Op> ref_ops = gen.program();
    const std::vector<Op> dist_ops = gen.edit(ref_ops);
    const std::string ref_text = Programs::text(ref_ops), dist_text = Programs::text(dist_ops);
    const ir::Module ref = test::parse_module(ref_text, "ref.hlo");
    const ir::Module dist = test::parse_module(dist_text, "dist.hlo");
    auto r = verify::check(ref, dist, {});
    REQUIRE(r);
    ++pairs;
    if (r->verdict != verify::Verdict::kEquivalent) continue;
    ++equivalent;
    std::string why;
    const bool same = same_numbers(ref, dist, seed, &why);
    INFO("seed " << seed << ": " << why << "\n--- ref\n" << ref_text << "--- dist\n" << dist_text);
    CHECK(same);
    // And the independent checker never rejects its proof: it accepts it, or says which
    // rewrite of the rule files it does not replay.
    const auto report = proofcheck::check_proof({"ref.hlo", ref_text, "dist.hlo", dist_text, *r});
    REQUIRE(report);
    INFO(report->why);
    CHECK(report->outcome != proofcheck::ProofCheckReport::Outcome::kRejected);
    if (report->outcome == proofcheck::ProofCheckReport::Outcome::kAccepted) ++rechecked;
  }
  INFO(equivalent << " of " << pairs << " pairs proven equivalent, " << rechecked
                  << " of their proofs re-checked");
  CHECK(rechecked * 100 >= equivalent * 95);
  // Not vacuous: the neutral edits are proven.
  CHECK(equivalent > pairs / 5);
}

}  // namespace scalify
