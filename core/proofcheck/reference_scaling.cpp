// Constant factors in reference terms (reference_terms.h): a program that divides by each rank's
// share of a count and multiplies by 1/n later computes the reference's value with the factors
// in other places. Every rule here is an identity of real arithmetic (the checker's semantics):
// c·x pulled out of a linear op, factors multiplied, and x for select(x ≠ 0, x, c) when a
// stated assumption says x is not 0.
#include <cstdio>
#include <regex>

#include "proofcheck/reference_terms.h"

namespace scalify::proofcheck {

namespace {

std::string factor_text(double c) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "c=%.17g", c);
  return buffer;
}

/// `to_apply` is the sum of its two parameters (canonical_attrs' text of the body).
bool sums(const std::string& attrs) {
  static const std::regex kSum(
      R"(to_apply=\{parameter:[^;]*;parameter:[^;]*;add:[^(]*\((0,1|1,0)\)\[\];root=2\})");
  return std::regex_search(attrs, kSum);
}

bool linear_in_first(const std::string& op) {
  return op == "broadcast" || op == "reshape" || op == "transpose" || op == "slice" ||
         op == "negate" || op == "copy" || op == "convert" || op == "bitcast" || op == "reverse";
}

}  // namespace

TermId TermTable::scaled(double c, TermId x) {
  // A scaled rotation is the rotation of the scaled value (rotations stay outermost).
  if (const auto r = rotation_of(x); r && c != 1)
    return rotated(scaled(c, r->base), r->dim, r->shift);
  if (terms_[x].op == "scale") {
    c *= std::stod(terms_[x].attrs.substr(2));
    x = terms_[x].args[0];
  }
  if (c == 1) return x;
  ++used_["constant-factor"];
  const ir::Type type = terms_[x].type;
  return raw("scale", factor_text(c), type, {x}, std::nullopt);
}

std::optional<TermId> TermTable::pull_factor(const std::string& op, const std::string& attrs,
                                             const ir::Type& type, const std::vector<TermId>& args,
                                             const ir::Instruction* instr) {
  (void)instr;
  if (!type.is_array() || !ir::is_float(type.dtype()) || args.empty()) return std::nullopt;
  auto factor = [&](TermId t) {
    const Term& term = terms_[t];
    return term.op == "scale" ? std::pair{std::stod(term.attrs.substr(2)), term.args[0]}
                              : std::pair{1.0, t};
  };
  std::vector<double> c;
  std::vector<TermId> bare;
  for (TermId a : args) {
    const auto [k, x] = factor(a);
    c.push_back(k);
    bare.push_back(x);
  }
  const bool any = std::any_of(c.begin(), c.end(), [](double k) { return k != 1; });
  auto splat = [&](size_t i) { return terms_[args[i]].splat; };
  auto rebuilt = [&](std::vector<TermId> with) {
    return intern(op, attrs, type, std::move(with), instr);
  };
  if (op == "multiply" && args.size() == 2) {
    // A splat is a factor itself; two scaled operands give the product of their factors.
    for (size_t i = 0; i < 2; ++i) {
      if (splat(i) && !splat(1 - i) && terms_[args[1 - i]].type.same_dims(type)) {
        return scaled(*splat(i) * c[1 - i], bare[1 - i]);
      }
    }
    if (any) return scaled(c[0] * c[1], rebuilt(bare));
    return std::nullopt;
  }
  if (op == "divide" && args.size() == 2) {
    if (splat(1) && *splat(1) != 0 && !splat(0)) return scaled(c[0] / *splat(1), bare[0]);
    if (any && c[1] != 0) return scaled(c[0] / c[1], rebuilt(bare));
    return std::nullopt;
  }
  if (!any) return std::nullopt;
  if (op == "dot" && args.size() == 2) return scaled(c[0] * c[1], rebuilt(bare));
  if (linear_in_first(op) && args.size() == 1) {
    if (op == "convert" && !ir::is_float(terms_[args[0]].type.dtype())) return std::nullopt;
    return scaled(c[0], rebuilt(bare));
  }
  if (op == "reduce" && args.size() == 2 && c[1] == 1 && splat(1) == 0.0 && sums(attrs)) {
    return scaled(c[0], rebuilt(bare));
  }
  // Several operands scaled alike: the factor comes out of a sum, a concatenation, a choice.
  const bool alike = std::all_of(c.begin(), c.end(), [&](double k) { return k == c[0]; });
  if (alike && (op == "add" || op == "subtract" || op == "concatenate")) {
    return scaled(c[0], rebuilt(bare));
  }
  if (op == "select" && args.size() == 3 && c[0] == 1 && c[1] == c[2]) {
    return scaled(c[1], rebuilt(bare));
  }
  return std::nullopt;
}

std::optional<TermId> TermTable::guarded_nonzero(const std::string& op,
                                                 const std::vector<TermId>& args) {
  if (op != "select" || args.size() != 3 || nonzero_.empty()) return std::nullopt;
  const Term& test = terms_[args[0]];
  if (test.op != "compare" || test.args.size() != 2 ||
      test.attrs.find("direction=NE") == std::string::npos) {
    return std::nullopt;
  }
  const TermId x = args[1];
  const bool against_zero = (test.args[0] == x && terms_[test.args[1]].splat == 0.0) ||
                            (test.args[1] == x && terms_[test.args[0]].splat == 0.0);
  if (!against_zero) return std::nullopt;
  if (std::find(nonzero_.begin(), nonzero_.end(), x) == nonzero_.end()) return std::nullopt;
  return x;
}

}  // namespace scalify::proofcheck
