#include "rules/rule_check.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "eval/evaluator.h"
#include "eval/random_values.h"
#include "hlo/reader.h"
#include "rules/check_guards.h"
#include "rules/datalog_check.h"
#include "rules/hlo_emit.h"
#include "rules/rule_print.h"
#include "rules/tensor_sampler.h"
#include "rules/tensor_term.h"
#include "rules/trials.h"

namespace scalify::rules {
namespace {

using check::Binding;
using check::RuleVars;
using check::TNode;
using check::Typed;

/// True if every number of `v` is NaN (an instance that says nothing: NaN equals NaN).
bool all_nan(const eval::Value& v) {
  if (v.is_tuple()) {
    return std::all_of(v.elements().begin(), v.elements().end(), all_nan);
  }
  const std::vector<double>& d = v.tensor().data;
  return !d.empty() && std::all_of(d.begin(), d.end(), [](double x) { return std::isnan(x); });
}

/// Why an instance was discarded.
struct Reject {
  std::string why;
};

/// Checks one direction of a rewrite: samples instances until `trials` distinct ones agreed,
/// a counterexample is found, or the attempts run out.
class DirectionChecker {
 public:
  DirectionChecker(const RuleFile& file, const Rule& rule, bool reversed,
                   const CheckOptions& options)
      : file_(file), rule_(rule), reversed_(reversed), options_(options) {
    out_.name = reversed ? rule.name + "-rev" : rule.name;
  }

  DirectionCheck run() {
    if (!compile()) return out_;
    // The stream depends on the seed and the direction's name only: not on the other rules,
    // nor on where the file is.
    Rng rng(check::stream_seed(options_.seed, out_.name));
    check::run_trials(out_, options_, [&]() -> std::optional<std::string> {
      if (auto reject = attempt(rng)) return reject->why;
      return std::nullopt;
    });
    return out_;
  }

 private:
  using Rng = check::Rng;

  bool compile() {
    std::vector<std::string> ac;
    for (const AcDecl& d : file_.ac) ac.push_back(d.op);
    const Term& from = reversed_ ? rule_.rhs : rule_.lhs;
    const Term& to = reversed_ ? rule_.lhs : rule_.rhs;
    auto lhs = check::compile_side(from, vars_, ac, file_.path);
    if (!lhs) return give_up(lhs.error());
    auto rhs = check::compile_side(to, vars_, ac, file_.path);
    if (!rhs) return give_up(rhs.error());
    lhs_ = std::move(*lhs);
    rhs_ = std::move(*rhs);
    auto guards = check::Guards::compile(rule_.guards, vars_, file_.path);
    if (!guards) return give_up(guards.error());
    guards_ = std::move(*guards);
    return true;
  }

  bool give_up(const Diagnostic& d) {
    out_.note = check::note_of(d);
    out_.verdict = Verdict::kNotInstantiated;
    return false;
  }

  /// One instance: nullopt when it was checked (agreeing, or a counterexample was recorded).
  std::optional<Reject> attempt(Rng& rng) {
    Binding b(vars_);
    guards_.mark_constants(b);
    // One instance in four in s32: an identity of real arithmetic that integer rounding or
    // wrapping breaks must say so with a guard ((floating ?x)).
    const ir::DType dtype = rng.chance(0.25) ? ir::DType::kS32 : ir::DType::kF32;
    check::sample_side(lhs_, check::random_type(rng, dtype), b, rng);
    for (auto& t : b.types) {
      if (!t) t = check::random_type(rng);
    }
    for (size_t i = 0; i < b.attrs.size(); ++i) {
      if (!b.attrs[i]) return Reject{"no value could be chosen for ?" + vars_.attrs[i]};
    }
    auto lhs = check::type_side(lhs_, b);
    if (auto* f = std::get_if<check::TypeFailure>(&lhs)) return Reject{"left side: " + f->why};
    if (auto why = guards_.operands_hold(b)) return Reject{*why};
    const auto retype = [&]() -> std::optional<std::string> {
      lhs = check::type_side(lhs_, b);
      if (auto* f = std::get_if<check::TypeFailure>(&lhs)) return "left side: " + f->why;
      return std::nullopt;
    };
    if (auto why = guards_.attrs_hold(b, retype)) return Reject{*why};
    auto rhs = check::type_side(rhs_, b);
    if (auto* f = std::get_if<check::TypeFailure>(&rhs)) {
      // A right side whose attributes have no value is a rewrite that does not fire; one that
      // does not type-check would put an ill-typed term in the e-graph: the rule is wrong (a
      // guard is missing).
      if (f->undefined) return Reject{"right side: " + f->why};
      return compare(std::get<Typed>(lhs), nullptr, f->why, b, rng);
    }
    return compare(std::get<Typed>(lhs), &std::get<Typed>(rhs), "", b, rng);
  }

  /// Evaluates both sides on the same random inputs (`rhs` null: it does not type-check, for
  /// the reason `rhs_failure`) and records a counterexample if they differ.
  std::optional<Reject> compare(const Typed& lhs, const Typed* rhs, const std::string& rhs_failure,
                                const Binding& b, Rng& rng) {
    const std::string lhs_hlo = check::to_hlo_module(lhs, vars_, b, "lhs");
    const std::string rhs_hlo = rhs ? check::to_hlo_module(*rhs, vars_, b, "rhs") : "";
    auto lm = hlo::read_module(lhs_hlo, "<left side>");
    if (!lm) return Reject{"the HLO reader rejects the left side: " + lm.error().message};
    std::optional<ir::Module> rm;
    if (rhs) {
      auto read = hlo::read_module(rhs_hlo, "<right side>");
      if (!read) return Reject{"the HLO reader rejects the right side: " + read.error().message};
      rm = std::move(*read);
    }
    std::vector<eval::Value> args;
    for (size_t i = 0; i < vars_.operands.size(); ++i) {
      eval::Value v = eval::random_value(*b.types[i], rng.engine());
      if (b.splat[i] && !v.is_tuple() && !v.tensor().data.empty()) {
        const double x = v.tensor().data.front();
        std::fill(v.tensor().data.begin(), v.tensor().data.end(), x);
      }
      args.push_back(std::move(v));
    }
    auto lv = eval::evaluate(*lm, lm->entry_id, args);
    if (!lv) return Reject{"evaluating the left side: " + lv.error().message};
    std::optional<eval::Value> rv;
    if (rm) {
      auto value = eval::evaluate(*rm, rm->entry_id, args);
      if (!value) return Reject{"evaluating the right side: " + value.error().message};
      rv = std::move(*value);
    }
    if (all_nan(*lv)) return Reject{"the left side is NaN everywhere for these inputs"};
    std::string why;
    if (!rhs) {
      why = "the right side does not type-check: " + rhs_failure;
    } else if (!(lhs.type == rhs->type)) {
      why = "the sides have different types: " + lhs.type.to_string(false) + " vs " +
            rhs->type.to_string(false);
    } else if (eval::all_close(*lv, *rv, options_.rtol, options_.atol, &why)) {
      // Only a new instance counts: fifty rank-0 instances are one.
      if (!seen_.insert(signature(b)).second) return Reject{"an instance already checked"};
      ++out_.trials;
      return std::nullopt;
    }
    Counterexample c;
    for (size_t i = 0; i < vars_.operands.size(); ++i) {
      c.operands.push_back(
          {"?" + vars_.operands[i], b.types[i]->to_string(false), args[i].to_string()});
    }
    for (size_t i = 0; i < vars_.attrs.size(); ++i) {
      c.attributes.emplace_back("?" + vars_.attrs[i], egraph::to_string(*b.attrs[i]));
    }
    c.lhs = check::to_string(lhs, vars_);
    c.lhs_type = lhs.type.to_string(false);
    c.lhs_value = lv->to_string();
    if (rhs) {
      c.rhs = check::to_string(*rhs, vars_);
      c.rhs_type = rhs->type.to_string(false);
      c.rhs_value = rv->to_string();
    } else {
      c.rhs = to_string(rule_.kind == Rule::Kind::kBirewrite && reversed_ ? rule_.lhs : rule_.rhs);
      c.rhs_type = "(does not type-check)";
    }
    c.mismatch = why;
    c.lhs_hlo = lhs_hlo;
    c.rhs_hlo = rhs_hlo;
    out_.counterexample = std::move(c);
    return std::nullopt;
  }

  /// What tells instances apart: the operands' types and the attribute values.
  std::string signature(const Binding& b) const {
    std::string s;
    for (size_t i = 0; i < b.types.size(); ++i) {
      s += b.types[i]->to_string(false) + (b.splat[i] ? "=" : ";");
    }
    for (const auto& a : b.attrs) s += egraph::to_string(*a) + ";";
    return s;
  }

  const RuleFile& file_;
  const Rule& rule_;
  bool reversed_;
  const CheckOptions& options_;
  DirectionCheck out_;
  RuleVars vars_;
  TNode lhs_, rhs_;
  check::Guards guards_;
  std::unordered_set<std::string> seen_;
};

int severity(Verdict v) {
  switch (v) {
    case Verdict::kFailed:
      return 3;
    case Verdict::kNotInstantiated:
      return 2;
    case Verdict::kPassed:
      return 1;
  }
  return 0;
}

}  // namespace

void check::run_trials(DirectionCheck& out, const CheckOptions& options,
                       const std::function<std::optional<std::string>()>& attempt) {
  while (out.trials < options.trials && out.attempts < options.max_attempts) {
    ++out.attempts;
    if (auto why = attempt()) {
      ++out.rejected;
      out.note = std::move(*why);
    }
    if (out.counterexample) {
      out.verdict = Verdict::kFailed;
      return;
    }
  }
  out.verdict = out.trials > 0 ? Verdict::kPassed : Verdict::kNotInstantiated;
  if (out.trials > 0) out.note.clear();
}

std::string check::note_of(const Diagnostic& d) {
  return d.message + " (at " + std::to_string(d.pos.line) + ":" + std::to_string(d.pos.col) + ")";
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kPassed:
      return "passed";
    case Verdict::kFailed:
      return "failed";
    case Verdict::kNotInstantiated:
      return "could not instantiate";
  }
  return "";
}

namespace {

Term apply(const std::string& op, std::vector<Term> args, SourcePos pos) {
  Term t;
  t.kind = Term::Kind::kApply;
  t.name = op;
  t.args = std::move(args);
  t.pos = pos;
  return t;
}

Term var(const char* name, SourcePos pos) {
  Term t;
  t.kind = Term::Kind::kVar;
  t.name = name;
  t.pos = pos;
  return t;
}

}  // namespace

std::vector<Rule> declared_identities(const AcDecl& d) {
  const Term a = var("a", d.pos), b = var("b", d.pos), c = var("c", d.pos);
  std::vector<Rule> out;
  Rule commutes;
  commutes.name = d.op + "-commutes";
  commutes.lhs = apply(d.op, {a, b}, d.pos);
  commutes.rhs = apply(d.op, {b, a}, d.pos);
  commutes.pos = d.pos;
  out.push_back(std::move(commutes));
  if (d.associative) {
    Rule associates;
    associates.kind = Rule::Kind::kBirewrite;
    associates.name = d.op + "-associates";
    associates.lhs = apply(d.op, {apply(d.op, {a, b}, d.pos), c}, d.pos);
    associates.rhs = apply(d.op, {a, apply(d.op, {b, c}, d.pos)}, d.pos);
    associates.pos = d.pos;
    out.push_back(std::move(associates));
  }
  return out;
}

std::vector<RuleCheck> check_rules(const RuleFile& file, const CheckOptions& options) {
  auto check = [&options](const RuleFile& in, const Rule& rule) {
    RuleCheck rc;
    rc.rule = rule;
    if (rule.kind == Rule::Kind::kRule) {
      rc.directions.push_back(check_datalog_rule(in, rule, options));
      rc.verdict = rc.directions.front().verdict;
      return rc;
    }
    rc.directions.push_back(DirectionChecker(in, rule, false, options).run());
    if (rule.kind == Rule::Kind::kBirewrite) {
      rc.directions.push_back(DirectionChecker(in, rule, true, options).run());
    }
    for (const DirectionCheck& d : rc.directions) {
      if (severity(d.verdict) > severity(rc.verdict)) rc.verdict = d.verdict;
    }
    return rc;
  };
  std::vector<RuleCheck> out;
  for (const Rule& rule : file.rules) out.push_back(check(file, rule));
  // Declarations are axioms the engine trusts as much as rules: they are checked the same way,
  // in a file that declares nothing (where `ac` would flatten both sides of associativity into
  // one term, and the check would hold by construction).
  RuleFile plain = file;
  plain.ac.clear();
  plain.rules.clear();
  for (const AcDecl& d : file.ac) {
    for (const Rule& rule : declared_identities(d)) out.push_back(check(plain, rule));
  }
  return out;
}

}  // namespace scalify::rules
