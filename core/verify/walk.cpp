#include "verify/walk.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>

namespace scalify::verify {

namespace {

using Facts = std::vector<DerivedFact>;

/// A step being built: the facts it covers and those its caption is about.
struct Group {
  WalkStep::Kind kind = WalkStep::Kind::kLayoutChange;
  std::vector<size_t> facts;     ///< ascending
  std::vector<size_t> headline;  ///< the layout changes (or parameters) it explains
};

std::string code(const std::string& name) { return "`" + name + "`"; }

/// Facts that only hand a value on: tuple elements, get-tuple-element, an async done.
bool is_copy(const DerivedFact& f) {
  return f.rule == "tuple" || f.rule == "get-tuple-element" || f.rule == "async-done";
}

/// A parameter's fact: from the bijection, or a contract on it (no premises).
bool is_input(const DerivedFact& f) {
  return f.premises.empty() && (f.rule == "bijection" || f.rule.starts_with("assumption"));
}

bool is_collective(const std::string& rule) {
  for (std::string_view c :
       {"all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all"}) {
    if (rule.starts_with(c)) return true;
  }
  return false;
}

/// The op of a fact's node: from its rule (`factor:dot`), else from the node's name.
std::string op_of(const DerivedFact& f) {
  if (f.rule.starts_with("factor:")) return f.rule.substr(7);
  return f.dist.substr(0, f.dist.find('.'));
}

bool any_premise(const Facts& d, const DerivedFact& f, auto&& pred) {
  return std::any_of(f.premises.begin(), f.premises.end(),
                     [&](size_t p) { return p < d.size() && pred(d[p].layout); });
}

/// The facts a student should stop at: a collective, a rank's slice, an assumption, a dot (the
/// heart of every sharding pattern) or an op that makes a partial value from whole ones.
bool changes_layout(const Facts& d, const DerivedFact& f) {
  if (is_input(f) || is_copy(f) || f.rule == "broadcast-as-shard") return false;
  if (is_collective(f.rule) || f.rule == "dynamic-slice-by-rank") return true;
  if (f.rule.starts_with("assumption")) return true;
  const std::string op = op_of(f);
  if (op == "dot" || op == "convolution") return true;
  return f.layout.has_partial() &&
         !any_premise(d, f, [](const Layout& l) { return l.has_partial(); });
}

/// Two layout changes alike enough to explain once ("likewise `dot.5`"): the same rule, the
/// same layouts in and out.
std::string likeness(const Facts& d, const DerivedFact& f, const Mesh& mesh) {
  std::vector<std::string> in;
  for (size_t p : f.premises) {
    if (p < d.size()) in.push_back(d[p].layout.to_string(mesh));
  }
  std::sort(in.begin(), in.end());
  std::string key = f.rule + "|" + f.layout.to_string(mesh);
  for (const std::string& l : in) key += "|" + l;
  return key;
}

/// "the reference `dot.7`"; a value no reference node holds (a bug's value, or a term the
/// rules built) is said to be one.
std::string ref_phrase(const DerivedFact& f) {
  return f.ref.empty() ? std::string("a value no reference node computes")
                       : "the reference " + code(f.ref);
}

/// "the whole value of the reference `dot.7`".
std::string whole_value(const DerivedFact& f) {
  return f.ref.empty() ? std::string("the whole value (no reference node computes it)")
                       : "the whole value of the reference " + code(f.ref);
}

std::string verb_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sums";
    case ReduceOp::kMax:
      return "takes the maximum of";
    case ReduceOp::kMin:
      return "takes the minimum of";
    case ReduceOp::kProduct:
      return "multiplies";
    case ReduceOp::kMean:
      return "averages";
  }
  return "combines";
}

/// "tp", "dp and tp": the mesh axes where `pick(axis layout)` holds.
std::string axes_where(const Layout& l, const Mesh& mesh, auto&& pick) {
  std::vector<std::string> names;
  for (size_t a = 0; a < l.axes.size() && a < mesh.rank(); ++a) {
    if (pick(l.axes[a], a)) names.push_back(mesh.name(a));
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

/// The first premise's layout part on `axis` that satisfies `pred`, if any.
std::optional<AxisLayout> premise_part(const Facts& d, const DerivedFact& f, size_t axis,
                                       auto&& pred) {
  for (size_t p : f.premises) {
    if (p < d.size() && axis < d[p].layout.axes.size() && pred(d[p].layout.axes[axis])) {
      return d[p].layout.axes[axis];
    }
  }
  return std::nullopt;
}

/// What a collective did, in words.
std::string collective_sentence(const Facts& d, const DerivedFact& f, const Mesh& mesh) {
  const std::string x = code(value_name(f)), layout = f.layout.to_string(mesh);
  const std::string of = ref_phrase(f);
  if (f.rule.starts_with("all-reduce")) {
    std::optional<ReduceOp> op;
    const std::string axes = axes_where(f.layout, mesh, [&](const AxisLayout& part, size_t a) {
      const auto was = premise_part(d, f, a, [](const AxisLayout& p) { return p.is_partial(); });
      if (!was || part.is_partial()) return false;
      op = was->op;
      return true;
    });
    if (axes.empty()) {
      return x + " combines values that are already whole on every rank: it is still " + layout +
             " of " + of + ".";
    }
    return x + " " + verb_of(*op) + " the partial values over " + axes + ": every rank now holds " +
           whole_value(f) + ", " + layout + ".";
  }
  if (f.rule.starts_with("all-gather")) {
    int32_t dim = -1;
    const std::string axes = axes_where(f.layout, mesh, [&](const AxisLayout& part, size_t a) {
      const auto was = premise_part(d, f, a, [](const AxisLayout& p) { return p.is_shard(); });
      if (!was || part.is_shard()) return false;
      dim = was->dim;
      return true;
    });
    return x + " concatenates the ranks' slices along dim " + std::to_string(dim) + " over " +
           axes + ": every rank now holds " + whole_value(f) + ", " + layout + ".";
  }
  if (f.rule.starts_with("reduce-scatter")) {
    std::optional<ReduceOp> op;
    int32_t dim = -1;
    const std::string axes = axes_where(f.layout, mesh, [&](const AxisLayout& part, size_t a) {
      const auto was = premise_part(d, f, a, [](const AxisLayout& p) { return p.is_partial(); });
      if (!was || !part.is_shard()) return false;
      op = was->op;
      dim = part.dim;
      return true;
    });
    return x + " " + verb_of(op.value_or(ReduceOp::kSum)) + " the partial values over " + axes +
           " and hands each rank its slice along dim " + std::to_string(dim) + ": " + layout +
           " of " + of + ".";
  }
  if (f.rule.starts_with("collective-permute")) {
    return x +
           " passes values between the ranks; each receives a copy of the same value, so it "
           "stays " +
           layout + " of " + of + ".";
  }
  return x + " moves data between the ranks (" + f.rule + "): " + layout + " of " + of + ".";
}

/// What an op lifted by its factor signature did, in words.
std::string factor_sentence(const Facts& d, const DerivedFact& f, const Mesh& mesh) {
  const std::string x = code(value_name(f)), layout = f.layout.to_string(mesh);
  const std::string of = ref_phrase(f), op = op_of(f);
  const bool dot = op == "dot" || op == "convolution";
  for (size_t a = 0; a < f.layout.axes.size() && a < mesh.rank(); ++a) {
    const AxisLayout& part = f.layout.axes[a];
    if (!part.is_partial()) continue;
    const std::string kind =
        part.op == ReduceOp::kSum ? "sum" : std::string(reduce_op_name(part.op));
    if (premise_part(d, f, a, [](const AxisLayout& p) { return p.is_partial(); })) {
      return x + " is linear in its partial operand: the ranks' results still add up to " + of +
             ", a partial " + kind + " over " + mesh.name(a) + ": " + layout + ".";
    }
    size_t sharded = 0;
    for (size_t p : f.premises) {
      if (p < d.size() && a < d[p].layout.axes.size() && d[p].layout.axes[a].is_shard()) ++sharded;
    }
    const std::string who = sharded >= 2 ? "both operands shard" : "its operand shards";
    return x + " " + (dot ? "contracts" : "reduces") + " a dimension " + who + " over " +
           mesh.name(a) + ", so each rank holds a partial " + kind + " of " + of + ": " + layout +
           ".";
  }
  for (size_t a = 0; a < f.layout.axes.size() && a < mesh.rank(); ++a) {
    const AxisLayout& part = f.layout.axes[a];
    if (!part.is_shard()) continue;
    const std::string slice = "each rank holds its own slice of " + of + " along dim " +
                              std::to_string(part.dim) + ", " + layout + ".";
    if (!dot) return x + " (" + op + ") works on each rank's slice alone: " + slice;
    size_t sharded = 0;
    for (size_t p : f.premises) {
      if (p < d.size() && a < d[p].layout.axes.size() && d[p].layout.axes[a].is_shard()) ++sharded;
    }
    if (sharded >= 2) {
      return x + " pairs operands that both shard a dimension it keeps (a batch dimension) over " +
             mesh.name(a) + ": " + slice;
    }
    return x + " multiplies a replicated operand by one sharded over " + mesh.name(a) +
           " along a dimension it keeps (not contracted): " + slice;
  }
  return x + " (" + op + ") computes the same on every rank from whole values: " + layout + " of " +
         of + ".";
}

std::string assumption_why(const CheckResult& r, const DerivedFact& f) {
  for (const Assumption& a : r.assumptions) {
    if (a.dist == f.dist && a.layout == f.layout && !a.why.empty()) return a.why;
  }
  const std::string_view rule = f.rule;
  return std::string(rule.starts_with("assumption: ") ? rule.substr(12) : rule);
}

/// One layout change, explained in the terms of its rule.
std::string change_sentence(const CheckResult& r, const DerivedFact& f) {
  const Facts& d = r.derivation;
  const std::string x = code(value_name(f)), layout = f.layout.to_string(r.mesh);
  if (is_collective(f.rule)) return collective_sentence(d, f, r.mesh);
  if (f.rule == "dynamic-slice-by-rank") {
    const std::string dims = axes_where(
        f.layout, r.mesh, [](const AxisLayout& part, size_t) { return part.is_shard(); });
    return x + " takes each rank's own slice of a replicated value, at an offset computed from " +
           "partition-id (over " + dims + "): " + layout + " of " + ref_phrase(f) + ".";
  }
  if (f.rule.starts_with("assumption")) {
    return x + " is taken as " + layout + " of " + ref_phrase(f) +
           " by an assumption the verdict rests on: " + assumption_why(r, f) + ".";
  }
  if (f.rule.starts_with("factor:")) return factor_sentence(d, f, r.mesh);
  return x + " gets " + layout + " of " + ref_phrase(f) + " by " + f.rule + ".";
}

/// The distinct nodes of `facts`, in order.
std::vector<std::string> nodes_of(const Facts& d, const std::vector<size_t>& facts) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (size_t i : facts) {
    if (seen.insert(d[i].dist).second) out.push_back(d[i].dist);
  }
  return out;
}

/// "`a` (rep), `b` (shard(1,tp)) and 3 more": at most `shown` names, each followed by
/// `detail(name)`.
std::string name_list(const std::vector<std::string>& names, size_t shown, auto&& detail) {
  std::string out;
  const size_t n = std::min(shown, names.size());
  for (size_t i = 0; i < n; ++i) {
    const bool last = i + 1 == n && names.size() <= shown;
    out += (i == 0 ? "" : last ? " and " : ", ") + code(names[i]) + detail(names[i]);
  }
  if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
  return out;
}

std::string name_list(const std::vector<std::string>& names, size_t shown) {
  return name_list(names, shown, [](const std::string&) { return std::string(); });
}

/// "First, `a` (rep), `b` (shard(1,tp)) and 5 more follow their operands' layouts: … " for the
/// facts of a step that are not its headline (empty when there are none). Parameters met there
/// (a later part's, in a layered check) are named as such.
std::string carried_sentence(const CheckResult& r, const Group& g) {
  const Facts& d = r.derivation;
  std::vector<size_t> inputs, carried;
  for (size_t i : g.facts) {
    if (is_copy(d[i])) continue;  // a tuple element or a get-tuple-element: the same value
    if (std::find(g.headline.begin(), g.headline.end(), i) != g.headline.end()) continue;
    (is_input(d[i]) ? inputs : carried).push_back(i);
  }
  auto layouts = [&](const std::vector<size_t>& facts) {
    return [&r, &d, &facts](const std::string& node) {
      for (size_t i : facts) {
        if (d[i].dist == node) return " (" + d[i].layout.to_string(r.mesh) + ")";
      }
      return std::string();
    };
  };
  std::string out;
  if (const std::vector<std::string> nodes = nodes_of(d, inputs); !nodes.empty()) {
    out += (nodes.size() == 1 ? "the parameter " : "the parameters ") +
           name_list(nodes, 4, layouts(inputs)) + (nodes.size() == 1 ? " comes in" : " come in");
  }
  if (std::vector<std::string> nodes = nodes_of(d, carried); !nodes.empty()) {
    const std::string why = ": each rank computes on its own part, no data moves";
    if (!out.empty()) out += "; ";
    if (nodes.size() == 1) {
      return "First, " + out + code(nodes[0]) + layouts(carried)(nodes[0]) +
             " follows its operands' layouts" + why + ". ";
    }
    if (nodes.size() <= 4) {
      return "First, " + out + name_list(nodes, 4, layouts(carried)) +
             " follow their operands' layouts" + why + ". ";
    }
    // Many: name the telling ones, the sharded and partial values before the replicated ones;
    // constants not at all.
    const size_t count = nodes.size();
    auto rank_of = [&](const std::string& node) {
      for (size_t i : carried) {
        if (d[i].dist != node) continue;
        if (op_of(d[i]) == "constant") return 2;
        return d[i].layout.is_rep() ? 1 : 0;
      }
      return 2;
    };
    std::stable_sort(nodes.begin(), nodes.end(), [&](const std::string& a, const std::string& b) {
      return rank_of(a) < rank_of(b);
    });
    nodes.resize(4);
    out += std::to_string(count) + " nodes follow their operands' layouts" + why + "; among them " +
           name_list(nodes, 4, layouts(carried));
  }
  return out.empty() ? out : "First, " + out + ". ";
}

std::string parameters_caption(const CheckResult& r, const Group& g) {
  const Facts& d = r.derivation;
  std::vector<std::string> sharded, whole;
  std::vector<std::string> contracts;
  for (size_t i : g.facts) {
    if (d[i].rule.starts_with("assumption")) {
      contracts.push_back(code(d[i].dist) + " is taken as " + d[i].layout.to_string(r.mesh) +
                          " by assumption (" + assumption_why(r, d[i]) + ")");
    } else {
      (d[i].layout.is_rep() ? whole : sharded).push_back(d[i].dist);
    }
  }
  auto detail = [&](const std::string& node) {
    for (size_t i : g.facts) {
      if (d[i].dist == node) {
        return " ~ " + d[i].layout.to_string(r.mesh) +
               (d[i].ref.empty() || d[i].ref == node ? "" : " of " + code(d[i].ref));
      }
    }
    return std::string();
  };
  std::string out =
      "The parameters (the bijection): each distributed parameter holds a reference parameter in "
      "a layout. ";
  if (!sharded.empty()) out += "Sharded: " + name_list(sharded, 6, detail) + ". ";
  if (!whole.empty()) {
    out += (whole.size() == 1 ? "Replicated (rep, every rank holds it whole): "
                              : "Replicated (rep, every rank holds them whole): ") +
           name_list(whole, 3) + ". ";
  }
  for (const std::string& c : contracts) out += c + ". ";
  return out + "The layouts spread from here, node by node.";
}

std::string outputs_caption(const CheckResult& r) {
  std::string out = "The outputs: ";
  size_t shown = 0, proven = 0;
  for (const Goal& goal : r.goals) {
    if (!goal.proven) continue;
    ++proven;
    if (shown == 3) continue;
    out += std::string(shown ? "; " : "") + code(goal.dist) + " holds the reference output " +
           code(goal.ref) + " as " + (goal.layout ? goal.layout->to_string(r.mesh) : "?");
    ++shown;
  }
  if (proven > shown) out += " and " + std::to_string(proven - shown) + " more";
  if (proven == 0) out += "none is proven";
  out += ". ";
  if (r.verdict == Verdict::kEquivalent) {
    out += "Every goal is proven: the distributed program computes the reference (equivalent).";
    if (!r.assumptions.empty()) {
      out += " The verdict rests on " + std::to_string(r.assumptions.size()) +
             (r.assumptions.size() == 1 ? " assumption" : " assumptions") +
             " the user must confirm (see the verdict).";
    }
  }
  return out;
}

std::string divergence_caption(const Divergence& dv) {
  std::string out = code(dv.dist_node) + (dv.op.empty() ? "" : " (" + dv.op + ")") +
                    " is where the distributed program stops computing the reference";
  if (!dv.ref_node.empty()) out += " (the closest reference node: " + code(dv.ref_node) + ")";
  out += dv.by_value ? ": every operand has a layout, but it computes another value. "
                     : ": it gets no layout. ";
  out += "The reason: " + dv.reason;
  if (!out.ends_with('.')) out += ".";
  if (!dv.operand_layouts.empty()) {
    // An operand proved in several layouts lists them joined by " | ".
    out += " The operands' layouts:";
    for (size_t i = 0; i < dv.operand_layouts.size(); ++i) {
      std::string layouts = dv.operand_layouts[i];
      for (size_t bar; (bar = layouts.find(" | ")) != std::string::npos;) {
        layouts.replace(bar, 3, " or ");
      }
      out += std::string(i == 0 ? " " : "; ") + "operand " + std::to_string(i) + " " + layouts;
    }
    out += ".";
  }
  if (dv.source) {
    out += " It comes from " + dv.source->file + ":" + std::to_string(dv.source->line) +
           (dv.op_name.empty() ? "" : " (" + code(dv.op_name) + ")") + ".";
  } else if (!dv.op_name.empty()) {
    out += " It comes from " + code(dv.op_name) + ".";
  }
  return out;
}

/// The derivation cut into groups: the leading parameters, then one group per layout change
/// (with the carried facts before it and the copies after it), then the rest, for the closing
/// step.
std::vector<Group> cut(const CheckResult& r, std::vector<size_t>* rest) {
  const Facts& d = r.derivation;
  std::vector<Group> groups;
  size_t i = 0;
  if (i < d.size() && is_input(d[i])) {
    Group params{WalkStep::Kind::kParameters, {}, {}};
    for (; i < d.size() && is_input(d[i]); ++i) params.facts.push_back(i);
    params.headline = params.facts;
    groups.push_back(std::move(params));
  }
  std::vector<size_t> pending;
  std::string last_likeness;
  for (; i < d.size(); ++i) {
    const DerivedFact& f = d[i];
    if (is_copy(f) && pending.empty() && !groups.empty() &&
        groups.back().kind == WalkStep::Kind::kLayoutChange) {
      groups.back().facts.push_back(i);  // folded into the step it follows
      continue;
    }
    if (!changes_layout(d, f)) {
      pending.push_back(i);
      continue;
    }
    const std::string like = likeness(d, f, r.mesh);
    if (!groups.empty() && groups.back().kind == WalkStep::Kind::kLayoutChange &&
        like == last_likeness) {
      Group& g = groups.back();  // alike: explained once, "likewise"
      g.facts.insert(g.facts.end(), pending.begin(), pending.end());
      g.facts.push_back(i);
      g.headline.push_back(i);
    } else {
      Group g{WalkStep::Kind::kLayoutChange, std::move(pending), {i}};
      g.facts.push_back(i);
      groups.push_back(std::move(g));
    }
    pending.clear();
    last_likeness = like;
  }
  *rest = std::move(pending);
  return groups;
}

/// Merges neighbouring layout-change groups, the smallest pair first, until `room` are left.
void merge_to(std::vector<Group>& groups, size_t room) {
  while (groups.size() > room) {
    std::optional<size_t> best;
    for (size_t k = 0; k + 1 < groups.size(); ++k) {
      if (groups[k].kind != WalkStep::Kind::kLayoutChange ||
          groups[k + 1].kind != WalkStep::Kind::kLayoutChange) {
        continue;
      }
      const size_t size = groups[k].facts.size() + groups[k + 1].facts.size();
      if (!best || size < groups[*best].facts.size() + groups[*best + 1].facts.size()) best = k;
    }
    if (!best) return;
    Group& a = groups[*best];
    Group& b = groups[*best + 1];
    a.facts.insert(a.facts.end(), b.facts.begin(), b.facts.end());
    a.headline.insert(a.headline.end(), b.headline.begin(), b.headline.end());
    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(*best) + 1);
  }
}

/// The caption of a layout-change group: the first change in full, the others after it (alike
/// ones as "likewise").
std::string change_caption(const CheckResult& r, const Group& g) {
  const Facts& d = r.derivation;
  std::string out = carried_sentence(r, g);
  if (!out.empty()) out += "Then ";
  std::string previous;
  std::vector<std::string> likewise;  // value names
  std::vector<std::string> likewise_of;
  auto flush = [&] {
    if (likewise.empty()) return;
    out += " Likewise " +
           name_list(likewise, 6,
                     [&](const std::string& name) {
                       const size_t k = static_cast<size_t>(
                           std::find(likewise.begin(), likewise.end(), name) - likewise.begin());
                       return likewise_of[k].empty() ? std::string()
                                                     : " (of " + code(likewise_of[k]) + ")";
                     }) +
           ".";
    likewise.clear();
    likewise_of.clear();
  };
  for (size_t k = 0; k < g.headline.size(); ++k) {
    const DerivedFact& f = d[g.headline[k]];
    const std::string like = likeness(d, f, r.mesh);
    if (k > 0 && like == previous) {
      likewise.push_back(value_name(f));
      likewise_of.push_back(f.ref);
      continue;
    }
    flush();
    out += (k == 0 ? "" : " ") + change_sentence(r, f);
    previous = like;
  }
  flush();
  return out;
}

}  // namespace

std::vector<WalkStep> guided_walk(const CheckResult& result) {
  const Facts& d = result.derivation;
  std::vector<size_t> rest;
  std::vector<Group> groups = cut(result, &rest);
  merge_to(groups, kMaxWalkSteps - 1);  // every walk ends with a closing step

  std::vector<WalkStep> steps;
  for (const Group& g : groups) {
    WalkStep s;
    s.kind = g.kind;
    s.facts = g.facts;
    s.fact = g.facts.back();
    if (g.kind == WalkStep::Kind::kParameters) {
      s.nodes = nodes_of(d, g.facts);
      s.caption = parameters_caption(result, g);
    } else {
      s.nodes = nodes_of(d, g.headline);
      for (const std::string& n : nodes_of(d, g.facts)) {
        if (std::find(s.nodes.begin(), s.nodes.end(), n) == s.nodes.end()) s.nodes.push_back(n);
      }
      s.ref_node = d[g.headline.front()].ref;
      s.caption = change_caption(result, g);
    }
    steps.push_back(std::move(s));
  }

  WalkStep last;
  last.facts = rest;
  last.fact = d.empty() ? kNoFact : d.size() - 1;
  const Group carried{WalkStep::Kind::kLayoutChange, rest, {}};
  std::string first = carried_sentence(result, carried);
  if (result.divergence) {
    last.kind = WalkStep::Kind::kDivergence;
    last.nodes = {result.divergence->dist_node};
    last.ref_node = result.divergence->ref_node;
    last.caption = first + divergence_caption(*result.divergence);
  } else if (result.verdict == Verdict::kEquivalent) {
    last.kind = WalkStep::Kind::kOutputs;
    for (const Goal& g : result.goals) {
      last.nodes.push_back(g.dist.substr(0, g.dist.find('#')));
      if (last.ref_node.empty()) last.ref_node = g.ref.substr(0, g.ref.find('#'));
    }
    last.caption = first + outputs_caption(result);
  } else {
    last.kind = WalkStep::Kind::kStopped;
    std::string why = result.stats.stop_reason.empty() ? "no divergence was found, but not "
                                                         "every goal is proven"
                                                       : "it stopped: " + result.stats.stop_reason;
    for (const Goal& g : result.goals) {
      if (!g.proven && !g.why_not.empty()) {
        why += "; " + code(g.dist) + ": " + g.why_not;
        break;
      }
    }
    last.caption = first + "The check has no verdict (inconclusive): " + why + ".";
    for (const Goal& g : result.goals) {
      if (!g.proven) last.nodes.push_back(g.dist.substr(0, g.dist.find('#')));
    }
  }
  for (const std::string& n : nodes_of(d, rest)) {
    if (std::find(last.nodes.begin(), last.nodes.end(), n) == last.nodes.end()) {
      last.nodes.push_back(n);
    }
  }
  if (last.nodes.empty() && !d.empty()) last.nodes.push_back(d.back().dist);  // where it ended
  steps.push_back(std::move(last));

  const std::string of = " of " + std::to_string(steps.size()) + ": ";
  for (size_t k = 0; k < steps.size(); ++k) {
    steps[k].caption = "Step " + std::to_string(k + 1) + of + steps[k].caption;
  }
  return steps;
}

}  // namespace scalify::verify
