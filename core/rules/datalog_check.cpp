#include "rules/datalog_check.h"

#include <unordered_set>

#include "eval/evaluator.h"
#include "eval/mesh.h"
#include "eval/random_values.h"
#include "hlo/reader.h"
#include "rules/datalog_program.h"
#include "rules/hlo_emit.h"
#include "rules/rule_print.h"
#include "rules/tensor_sampler.h"
#include "rules/trials.h"

namespace scalify::rules {
namespace {

using check::Binding;
using check::DatalogProgram;
using check::DatalogStep;
using check::Side;
using eval::Tensor;
using eval::mesh::Layout;
using Rng = check::Rng;

struct Reject {
  std::string why;
};

/// The values of the class variables: one per rank on the distributed side, one on the
/// reference side; nullopt until computed.
using Values = std::vector<std::optional<std::vector<Tensor>>>;

/// How a body fact is used to build an instance.
enum class FactUse : uint8_t {
  kDistribute,  ///< the reference value is chosen (or computed) first, the ranks' values from it
  kCollect,     ///< the ranks' values are computed first, the reference value from them
  kPremise,     ///< both are computed: an instance where the fact does not hold is discarded
};

const std::vector<std::string>& reduction_words() {
  static const std::vector<std::string> words = {"sum", "mean", "max", "min", "product"};
  return words;
}

ir::Type with_dim(const ir::Type& t, int64_t d, int64_t size) {
  std::vector<int64_t> dims = t.dims();
  dims[static_cast<size_t>(d)] = size;
  return ir::Type::array(t.dtype(), std::move(dims));
}

/// The type a collective gives (forward) or takes (backward), or why it cannot.
std::variant<ir::Type, std::string> collective_type(std::string_view op, const ir::Type& t,
                                                    int64_t split, int64_t concat, int64_t n,
                                                    bool forward) {
  if (op == "all-reduce") return t;
  if (split < 0 || split >= t.rank() || concat < 0 || concat >= t.rank()) {
    return std::string(op) + ": dimension out of range for " + t.to_string(false);
  }
  // Growing dimension g by n and shrinking s by n; backward the other way round.
  int64_t grow = op == "reduce-scatter" ? -1 : concat, shrink = op == "all-gather" ? -1 : split;
  if (!forward) std::swap(grow, shrink);
  ir::Type out = t;
  if (shrink >= 0) {
    if (out.dim(shrink) % n != 0) {
      return std::string(op) + ": dimension " + std::to_string(shrink) + " of " +
             t.to_string(false) + " does not divide among " + std::to_string(n) + " ranks";
    }
    out = with_dim(out, shrink, out.dim(shrink) / n);
  }
  if (grow >= 0) out = with_dim(out, grow, out.dim(grow) * n);
  return out;
}

std::string values_text(const std::vector<Tensor>& v) {
  if (v.size() == 1) return eval::Value(v[0]).to_string();
  std::string s;
  for (size_t r = 0; r < v.size(); ++r) {
    s += (r ? "; " : "") + std::string("rank ") + std::to_string(r) + ": " +
         eval::Value(v[r]).to_string();
  }
  return s;
}

class DatalogChecker {
 public:
  DatalogChecker(const RuleFile& file, const Rule& rule, const CheckOptions& options)
      : file_(file), rule_(rule), options_(options) {
    out_.name = rule.name;
  }

  DirectionCheck run(uint64_t stream_seed) {
    auto program = check::compile_datalog(file_, rule_);
    if (!program) {
      out_.note = check::note_of(program.error());
      return out_;
    }
    p_ = std::move(*program);
    plan_fact_uses();
    Rng rng(stream_seed);
    check::run_trials(out_, options_, [&]() -> std::optional<std::string> {
      if (auto reject = attempt(rng)) return reject->why;
      return std::nullopt;
    });
    return out_;
  }

 private:
  /// Which body facts choose, which compute and which test: a fact builds the ranks' values of
  /// a distributed variable that nothing else computes, else the reference value of one that
  /// nothing else computes; otherwise it is a premise.
  void plan_fact_uses() {
    std::vector<bool> computed(p_.vars.operands.size(), false);
    for (const DatalogStep& s : p_.body) {
      if (s.result) computed[*s.result] = true;
    }
    for (const DatalogStep& s : p_.body) {
      if (s.kind != DatalogStep::Kind::kFact) {
        uses_.push_back(FactUse::kPremise);
        continue;
      }
      FactUse use = FactUse::kPremise;
      if (!computed[s.dist]) {
        use = FactUse::kDistribute;
        computed[s.dist] = true;
      } else if (!computed[s.ref]) {
        use = FactUse::kCollect;
        computed[s.ref] = true;
      }
      uses_.push_back(use);
    }
    free_.assign(computed.size(), false);
    for (size_t v = 0; v < computed.size(); ++v) free_[v] = p_.in_body[v] && !computed[v];
  }

  bool distributed(uint32_t v) const { return p_.sides[v] == Side::kDistributed; }

  // ---- one instance -------------------------------------------------------------------------

  std::optional<Reject> attempt(Rng& rng) {
    n_ = rng.uniform(2, 4);
    Binding b(p_.vars);
    for (uint32_t a : p_.axis_vars) b.attrs[a] = egraph::AttrValue(p_.axis);
    p_.guards.mark_constants(b);
    sampled_.assign(p_.body.size(), false);
    if (auto reject = solve_types(b, rng)) return reject;
    if (auto why = p_.guards.operands_hold(b)) return Reject{*why};
    const auto retype = [&]() -> std::optional<std::string> {
      if (auto reject = solve_types(b, rng)) return reject->why;
      return std::nullopt;
    };
    if (auto why = p_.guards.attrs_hold(b, retype)) return Reject{*why};

    Values values(p_.vars.operands.size());
    if (auto reject = evaluate_body(b, values, rng)) return reject;
    return conclude(b, values);
  }

  // ---- types --------------------------------------------------------------------------------

  /// Gives every class variable of the body a type and every attribute variable a value,
  /// propagating through the items and facts, and choosing at random where nothing decides.
  std::optional<Reject> solve_types(Binding& b, Rng& rng) {
    for (int round = 0; round < 256; ++round) {
      bool progress = false;
      for (size_t i = 0; i < p_.body.size(); ++i) {
        auto r = type_step(i, b, rng);
        if (auto* reject = std::get_if<Reject>(&r)) return std::move(*reject);
        progress = std::get<bool>(r) || progress;
      }
      if (!progress && !choose_a_type(b, rng)) break;
    }
    for (size_t v = 0; v < p_.vars.operands.size(); ++v) {
      if (p_.in_body[v] && !b.types[v]) {
        return Reject{"no type could be chosen for ?" + p_.vars.operands[v]};
      }
    }
    for (size_t a = 0; a < p_.vars.attrs.size(); ++a) {
      if (!b.attrs[a]) return Reject{"no value could be chosen for ?" + p_.vars.attrs[a]};
    }
    return std::nullopt;
  }

  /// Where nothing propagates: a random result type for the first named term not yet sampled
  /// (its operands then follow, as for a rewrite's left-hand side), else a random type for a
  /// variable (first the distributed side of a fact). False when everything has a type.
  bool choose_a_type(Binding& b, Rng& rng) {
    for (size_t i = 0; i < p_.body.size(); ++i) {
      const DatalogStep& s = p_.body[i];
      if (s.kind == DatalogStep::Kind::kLocal && s.result && !b.types[*s.result] && !sampled_[i]) {
        b.types[*s.result] = check::random_type(rng);
        check::sample_side(s.term, b.types[*s.result], b, rng);
        sampled_[i] = true;
        return true;
      }
    }
    for (int pass = 0; pass < 2; ++pass) {
      for (uint32_t v = 0; v < p_.vars.operands.size(); ++v) {
        if (b.types[v] || !p_.in_body[v] || (pass == 0 && !distributed(v))) continue;
        b.types[v] = check::random_type(rng);
        return true;
      }
    }
    return false;
  }

  /// True when the step gave something a type or a value.
  std::variant<bool, Reject> type_step(size_t i, Binding& b, Rng& rng) {
    const DatalogStep& s = p_.body[i];
    switch (s.kind) {
      case DatalogStep::Kind::kLocal:
        return type_local(i, b, rng);
      case DatalogStep::Kind::kCollective:
        return type_collective(s, b, rng);
      case DatalogStep::Kind::kFact:
        return type_fact(s, b, rng);
    }
    return false;
  }

  std::variant<bool, Reject> set_type(Binding& b, uint32_t v, const ir::Type& t) const {
    if (!b.types[v]) {
      b.types[v] = t;
      return true;
    }
    if (*b.types[v] == t) return false;
    return Reject{"?" + p_.vars.operands[v] + " would be both " + b.types[v]->to_string(false) +
                  " and " + t.to_string(false)};
  }

  std::variant<bool, Reject> type_local(size_t i, Binding& b, Rng& rng) {
    const DatalogStep& s = p_.body[i];
    const bool operands_typed =
        std::all_of(s.operands.begin(), s.operands.end(), [&](uint32_t v) { return b.types[v]; });
    if (!operands_typed) {
      if (!s.result || !b.types[*s.result] || sampled_[i]) return false;
      check::sample_side(s.term, b.types[*s.result], b, rng);  // the operands, top-down
      sampled_[i] = true;
      return true;
    }
    auto typed = check::type_side(s.term, b);
    if (auto* f = std::get_if<check::TypeFailure>(&typed)) {
      if (!sampled_[i] && (!s.result || !b.types[*s.result])) {
        // Typed operands but an attribute without a value: sample it from a random result.
        check::sample_side(s.term, std::nullopt, b, rng);
        sampled_[i] = true;
        return true;
      }
      return Reject{"the body item " + s.text + " does not type-check: " + f->why};
    }
    if (!s.result) return false;
    return set_type(b, *s.result, std::get<check::Typed>(typed).type);
  }

  /// The split and concat dims of a collective (`:dimensions [d]`, or all-to-all's
  /// `:split_dimension`/`:concat_dimension`); a dimension variable without a value gets a random
  /// dimension of the operand.
  std::variant<std::pair<int64_t, int64_t>, Reject> collective_dims(const DatalogStep& s,
                                                                    Binding& b, Rng& rng) const {
    const uint32_t x = s.operands.front();
    auto dim_of = [&](std::string_view key) -> std::optional<int64_t> {
      for (const auto& [k, e] : s.term.attrs) {
        if (k != key) continue;
        if (e.kind == AttrExpr::Kind::kAttrVar && !b.attrs[e.var] && b.types[x] &&
            b.types[x]->rank() > 0) {
          const int64_t d = rng.uniform(0, b.types[x]->rank() - 1);
          b.attrs[e.var] = key == "dimensions" ? egraph::AttrValue(std::vector<int64_t>{d})
                                               : egraph::AttrValue(d);
        }
        const auto v = evaluate(e, check::BindingScope(b));
        if (!v) return std::nullopt;
        if (const auto* l = std::get_if<std::vector<int64_t>>(&*v)) {
          return l->size() == 1 ? std::optional((*l)[0]) : std::nullopt;
        }
        if (const auto* i = std::get_if<int64_t>(&*v)) return *i;
        return std::nullopt;
      }
      return std::nullopt;
    };
    if (s.term.op == "all-reduce") return std::pair<int64_t, int64_t>{0, 0};
    auto d = dim_of("dimensions");
    auto split = d ? d : dim_of("split_dimension");
    auto concat = d ? d : dim_of("concat_dimension");
    if (!split || !concat) {
      return Reject{s.text +
                    ": no dimension (write :dimensions [D], or for all-to-all "
                    ":split_dimension S :concat_dimension C)"};
    }
    return std::pair{*split, *concat};
  }

  std::variant<bool, Reject> type_collective(const DatalogStep& s, Binding& b, Rng& rng) const {
    const uint32_t x = s.operands.front(), r = *s.result;
    if (!b.types[x] && !b.types[r]) return false;
    auto dims = collective_dims(s, b, rng);
    if (auto* reject = std::get_if<Reject>(&dims)) {
      if (!b.types[x]) return false;  // its dimension is chosen once the operand has a type
      return std::move(*reject);
    }
    const auto [split, concat] = std::get<std::pair<int64_t, int64_t>>(dims);
    const bool forward = b.types[x].has_value();
    auto t =
        collective_type(s.term.op, forward ? *b.types[x] : *b.types[r], split, concat, n_, forward);
    if (auto* why = std::get_if<std::string>(&t)) return Reject{*why};
    return set_type(b, forward ? r : x, std::get<ir::Type>(t));
  }

  std::variant<bool, Reject> type_fact(const DatalogStep& s, Binding& b, Rng& rng) const {
    bool progress = false;
    if (s.op_var && !b.attrs[*s.op_var]) {
      const auto& words = reduction_words();
      b.attrs[*s.op_var] = egraph::AttrValue(
          words[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(words.size()) - 1))]);
      progress = true;
    }
    const std::optional<ir::Type>& known = b.types[s.dist] ? b.types[s.dist] : b.types[s.ref];
    if (!known) return progress;
    if (s.layout != Layout::Kind::kShard) {
      auto r = set_type(b, b.types[s.dist] ? s.ref : s.dist, *known);
      if (std::holds_alternative<Reject>(r)) return r;
      return std::get<bool>(r) || progress;
    }
    if (s.dim_var && !b.attrs[*s.dim_var]) {
      if (known->rank() == 0) return Reject{"a scalar has no dimension to shard"};
      b.attrs[*s.dim_var] = egraph::AttrValue(rng.uniform(0, known->rank() - 1));
      progress = true;
    }
    const auto d = shard_dim(s, b);
    if (!d || *d < 0 || *d >= known->rank()) {
      return Reject{s.text + ": no dimension " + (d ? std::to_string(*d) : "?") + " in " +
                    known->to_string(false)};
    }
    const bool forward = b.types[s.dist].has_value();
    if (!forward && known->dim(*d) % n_ != 0) {
      return Reject{"dimension " + std::to_string(*d) + " of " + known->to_string(false) +
                    " does not divide among " + std::to_string(n_) + " ranks"};
    }
    const ir::Type other =
        with_dim(*known, *d, forward ? known->dim(*d) * n_ : known->dim(*d) / n_);
    auto r = set_type(b, forward ? s.ref : s.dist, other);
    if (std::holds_alternative<Reject>(r)) return r;
    return std::get<bool>(r) || progress;
  }

  static std::optional<int64_t> shard_dim(const DatalogStep& s, const Binding& b) {
    if (!s.dim_var) return s.dim;
    if (!b.attrs[*s.dim_var]) return std::nullopt;
    const auto* i = std::get_if<int64_t>(&*b.attrs[*s.dim_var]);
    return i ? std::optional(*i) : std::nullopt;
  }

  std::optional<Layout> layout(const DatalogStep& s, const Binding& b) const {
    Layout l{s.layout, 0, eval::mesh::Reduction::kSum};
    if (s.layout == Layout::Kind::kShard) {
      const auto d = shard_dim(s, b);
      if (!d) return std::nullopt;
      l.dim = *d;
    }
    if (s.layout == Layout::Kind::kPartial) {
      std::string word = s.op_word;
      if (s.op_var) {
        const auto* w =
            b.attrs[*s.op_var] ? std::get_if<std::string>(&*b.attrs[*s.op_var]) : nullptr;
        if (!w) return std::nullopt;
        word = *w;
      }
      const auto op = eval::mesh::reduction_named(word);
      if (!op) return std::nullopt;
      l.op = *op;
    }
    return l;
  }

  // ---- values -------------------------------------------------------------------------------

  /// Evaluates a local term on every rank (distributed side) or once (reference side).
  std::variant<std::vector<Tensor>, std::string> evaluate_local(const DatalogStep& s,
                                                                const Binding& b,
                                                                const Values& values) const {
    Binding full = b;  // the module takes every variable; unused ones are scalars
    for (auto& t : full.types) {
      if (!t) t = ir::Type::array(ir::DType::kF32, {});
    }
    auto typed = check::type_side(s.term, full);
    if (auto* f = std::get_if<check::TypeFailure>(&typed)) return f->why;
    const std::string hlo =
        check::to_hlo_module(std::get<check::Typed>(typed), p_.vars, full, "item");
    auto module = hlo::read_module(hlo, "<" + s.text + ">");
    if (!module) return "the HLO reader rejects it: " + module.error().message;
    const uint32_t any = s.result ? *s.result : s.operands.empty() ? 0 : s.operands.front();
    const int64_t count = !p_.vars.operands.empty() && distributed(any) ? n_ : 1;
    std::vector<Tensor> out;
    for (int64_t r = 0; r < count; ++r) {
      std::vector<eval::Value> args;
      for (size_t v = 0; v < p_.vars.operands.size(); ++v) {
        if (values[v]) {
          const auto& vs = *values[v];
          args.emplace_back(vs[vs.size() == 1 ? 0 : static_cast<size_t>(r)]);
        } else {
          args.emplace_back(Tensor::filled(full.types[v]->dims(), 0.0));
        }
      }
      auto value = eval::evaluate(*module, module->entry_id, args);
      if (!value) return "evaluating it: " + value.error().message;
      if (value->is_tuple()) return "it is a tuple";
      out.push_back(std::move(value->tensor()));
    }
    return out;
  }

  /// Evaluates a collective between the ranks.
  std::variant<std::vector<Tensor>, std::string> evaluate_collective(const DatalogStep& s,
                                                                     Binding& b,
                                                                     const Values& values,
                                                                     Rng& rng) const {
    auto dims = collective_dims(s, b, rng);
    if (auto* reject = std::get_if<Reject>(&dims)) return reject->why;
    const auto [split, concat] = std::get<std::pair<int64_t, int64_t>>(dims);
    const std::vector<Tensor>& x = *values[s.operands.front()];
    auto t = collective_type(s.term.op, *b.types[s.operands.front()], split, concat, n_, true);
    if (auto* why = std::get_if<std::string>(&t)) return *why;
    auto reduction = eval::mesh::Reduction::kSum;
    for (const auto& [k, e] : s.term.attrs) {
      if (k != "to_apply") continue;
      const auto v = evaluate(e, check::BindingScope(b));
      const auto* w = v ? std::get_if<std::string>(&*v) : nullptr;
      const auto op = w ? eval::mesh::reduction_named(*w) : std::nullopt;
      if (!op || *op == eval::mesh::Reduction::kMean) return "an unknown :to_apply";
      reduction = *op;
    }
    Expected<std::vector<Tensor>> out = std::vector<Tensor>{};
    if (s.term.op == "all-reduce") out = eval::mesh::all_reduce(x, reduction);
    if (s.term.op == "all-gather") out = eval::mesh::all_gather(x, concat);
    if (s.term.op == "reduce-scatter") out = eval::mesh::reduce_scatter(x, split, reduction);
    if (s.term.op == "all-to-all") out = eval::mesh::all_to_all(x, split, concat);
    if (!out) return out.error().message;
    return std::move(*out);
  }

  std::vector<Tensor> random_values(uint32_t v, const Binding& b, Rng& rng) const {
    std::vector<Tensor> out;
    const int64_t count = distributed(v) ? n_ : 1;
    for (int64_t r = 0; r < count; ++r) {
      Tensor t = eval::random_value(*b.types[v], rng.engine()).tensor();
      if (b.splat[v] && !t.data.empty()) std::fill(t.data.begin(), t.data.end(), t.data.front());
      out.push_back(std::move(t));
    }
    return out;
  }

  /// Stores `v` as the value of `var`, or, when it has one, tests that they agree.
  std::optional<std::string> assign(Values& values, uint32_t var, std::vector<Tensor> v) const {
    if (!values[var]) {
      values[var] = std::move(v);
      return std::nullopt;
    }
    for (size_t r = 0; r < v.size(); ++r) {
      std::string why;
      if (!eval::all_close(v[r], (*values[var])[r], options_.rtol, options_.atol, &why)) {
        return (v.size() > 1 ? "rank " + std::to_string(r) + ": " : std::string()) + why;
      }
    }
    return std::nullopt;
  }

  /// Random values for the free variables, then the body's items in any order that has their
  /// inputs; a premise (a fact or a repeated name) that does not hold discards the instance.
  std::optional<Reject> evaluate_body(Binding& b, Values& values, Rng& rng) const {
    for (uint32_t v = 0; v < values.size(); ++v) {
      if (free_[v]) values[v] = random_values(v, b, rng);
    }
    std::vector<bool> done(p_.body.size(), false);
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t i = 0; i < p_.body.size(); ++i) {
        if (done[i]) continue;
        const DatalogStep& s = p_.body[i];
        auto ran = evaluate_body_step(s, uses_[i], b, values, rng);
        if (auto* reject = std::get_if<Reject>(&ran)) return std::move(*reject);
        if (std::get<bool>(ran)) done[i] = progress = true;
      }
    }
    for (size_t i = 0; i < p_.body.size(); ++i) {
      if (!done[i]) return Reject{"the body's items need each other's values: " + p_.body[i].text};
    }
    return std::nullopt;
  }

  /// False while an input has no value yet.
  std::variant<bool, Reject> evaluate_body_step(const DatalogStep& s, FactUse use, Binding& b,
                                                Values& values, Rng& rng) const {
    if (s.kind != DatalogStep::Kind::kFact) {
      for (uint32_t v : s.operands) {
        if (!values[v]) return false;
      }
      auto v = s.kind == DatalogStep::Kind::kLocal ? evaluate_local(s, b, values)
                                                   : evaluate_collective(s, b, values, rng);
      if (auto* why = std::get_if<std::string>(&v)) return Reject{s.text + ": " + *why};
      if (!s.result) return true;
      if (auto why = assign(values, *s.result, std::move(std::get<std::vector<Tensor>>(v)))) {
        return Reject{"the body does not hold: ?" + p_.vars.operands[*s.result] + " differs"};
      }
      return true;
    }
    const auto l = layout(s, b);
    if (!l) return Reject{s.text + ": the layout has no value"};
    if (use == FactUse::kDistribute) {
      if (!values[s.ref]) return false;
      auto x = eval::mesh::distribute((*values[s.ref])[0], *l, n_, rng.engine());
      if (!x) return Reject{s.text + ": " + x.error().message};
      if (auto why = assign(values, s.dist, std::move(*x))) {
        return Reject{"the body does not hold: " + s.text};
      }
      return true;
    }
    if (!values[s.dist]) return false;
    if (use == FactUse::kCollect) {
      auto X = eval::mesh::collect(*values[s.dist], *l, options_.rtol, options_.atol);
      if (!X) return Reject{"the body does not hold: " + s.text + ": " + X.error().message};
      if (assign(values, s.ref, {std::move(*X)})) {
        return Reject{"the body does not hold: " + s.text};
      }
      return true;
    }
    if (!values[s.ref]) return false;
    std::string why;
    if (!eval::mesh::holds(*values[s.dist], (*values[s.ref])[0], *l, options_.rtol, options_.atol,
                           &why)) {
      return Reject{"the body does not hold: " + s.text + ": " + why};
    }
    return true;
  }

  // ---- the head -----------------------------------------------------------------------------

  /// Tests every conclusion of the head on the instance: nullopt when it was checked (all hold,
  /// or a counterexample was recorded).
  std::optional<Reject> conclude(Binding& b, Values& values) {
    for (const DatalogStep& s : p_.head) {
      if (s.kind == DatalogStep::Kind::kFact) {
        const auto l = layout(s, b);
        if (!l) return Reject{s.text + ": the layout has no value"};
        std::string why;
        if (!eval::mesh::holds(*values[s.dist], (*values[s.ref])[0], *l, options_.rtol,
                               options_.atol, &why)) {
          return fail(s, b, values, why);
        }
        continue;
      }
      std::variant<std::vector<Tensor>, std::string> v;
      if (s.kind == DatalogStep::Kind::kLocal) {
        auto typed = check::type_side(s.term, b);
        if (auto* f = std::get_if<check::TypeFailure>(&typed)) {
          // Attributes without a value: the rule would not fire. Otherwise it would add an
          // ill-typed term to the e-graph.
          if (f->undefined) return Reject{s.text + ": " + f->why};
          return fail(s, b, values, "the term does not type-check: " + f->why);
        }
        const ir::Type& t = std::get<check::Typed>(typed).type;
        if (s.result && b.types[*s.result] && !(*b.types[*s.result] == t)) {
          return fail(s, b, values,
                      "?" + p_.vars.operands[*s.result] + " is " +
                          b.types[*s.result]->to_string(false) + " but the term is " +
                          t.to_string(false));
        }
        if (s.result) b.types[*s.result] = t;
        v = evaluate_local(s, b, values);
      } else {
        Rng unused(0);  // the head's dimensions are bound by the body
        auto dims = collective_dims(s, b, unused);
        if (auto* reject = std::get_if<Reject>(&dims)) return fail(s, b, values, reject->why);
        const auto [split, concat] = std::get<std::pair<int64_t, int64_t>>(dims);
        auto t = collective_type(s.term.op, *b.types[s.operands.front()], split, concat, n_, true);
        if (auto* why = std::get_if<std::string>(&t)) return fail(s, b, values, *why);
        if (s.result && b.types[*s.result] && !(*b.types[*s.result] == std::get<ir::Type>(t))) {
          return fail(s, b, values,
                      "the collective's type differs from ?" + p_.vars.operands[*s.result] + "'s");
        }
        if (s.result) b.types[*s.result] = std::get<ir::Type>(t);
        v = evaluate_collective(s, b, values, unused);
      }
      if (auto* why = std::get_if<std::string>(&v)) return Reject{s.text + ": " + *why};
      if (!s.result) continue;
      if (auto why = assign(values, *s.result, std::move(std::get<std::vector<Tensor>>(v)))) {
        return fail(s, b, values,
                    "?" + p_.vars.operands[*s.result] + " and the term differ: " + *why);
      }
    }
    if (!seen_.insert(signature(b)).second) return Reject{"an instance already checked"};
    ++out_.trials;
    return std::nullopt;
  }

  std::optional<Reject> fail(const DatalogStep& s, const Binding& b, const Values& values,
                             const std::string& why) {
    Counterexample c;
    for (size_t v = 0; v < p_.vars.operands.size(); ++v) {
      if (!values[v] || !b.types[v]) continue;
      std::string type = b.types[v]->to_string(false);
      if (distributed(static_cast<uint32_t>(v))) type += " on each rank";
      c.operands.push_back({"?" + p_.vars.operands[v], type, values_text(*values[v])});
    }
    c.attributes.emplace_back("ranks", std::to_string(n_));
    for (size_t a = 0; a < p_.vars.attrs.size(); ++a) {
      if (b.attrs[a] && p_.vars.attrs[a].front() != '#') {
        c.attributes.emplace_back("?" + p_.vars.attrs[a], egraph::to_string(*b.attrs[a]));
      }
    }
    for (const Item& item : rule_.body)
      c.lhs += (c.lhs.empty() ? "" : ", ") + check::item_text(item);
    c.rhs = s.text;
    c.mismatch = why;
    out_.counterexample = std::move(c);
    return std::nullopt;
  }

  std::string signature(const Binding& b) const {
    std::string s = std::to_string(n_) + ";";
    for (const auto& t : b.types) s += (t ? t->to_string(false) : "-") + ";";
    for (const auto& a : b.attrs) s += (a ? egraph::to_string(*a) : "-") + ";";
    return s;
  }

  const RuleFile& file_;
  const Rule& rule_;
  const CheckOptions& options_;
  DirectionCheck out_;
  DatalogProgram p_;
  std::vector<FactUse> uses_;  ///< per body step (kPremise for the terms)
  std::vector<bool> free_;     ///< per class variable: chosen at random
  std::vector<bool> sampled_;  ///< per body step, this instance: its term was sampled
  int64_t n_ = 2;              ///< ranks of this instance
  std::unordered_set<std::string> seen_;
};

}  // namespace

DirectionCheck check_datalog_rule(const RuleFile& file, const Rule& rule,
                                  const CheckOptions& options) {
  return DatalogChecker(file, rule, options).run(check::stream_seed(options.seed, rule.name));
}

}  // namespace scalify::rules
