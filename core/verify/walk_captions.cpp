// The guided walk's words (walk_internal.h): what each step did, in the terms of its rule.
#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "verify/propagation.h"
#include "verify/reduce_words.h"
#include "verify/walk_internal.h"

namespace scalify::verify::walk_detail {

std::string code(const std::string& name) { return "`" + name + "`"; }

namespace {

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
  if (f.rule == kSumOfCopies) {
    return x + " sums equal copies of " + of + " (it was whole on every rank it sums over): it " +
           "is " + layout + " of that value times their number, which the reference may divide " +
           "back later.";
  }
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
    return x + " " + std::string(reduce_op_verb(*op)) + " the partial values over " + axes +
           ": every rank now holds " + whole_value(f) + ", " + layout + ".";
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
    return x + " " + std::string(reduce_op_verb(op.value_or(ReduceOp::kSum))) +
           " the partial values over " + axes + " and hands each rank its slice along dim " +
           std::to_string(dim) + ": " + layout + " of " + of + ".";
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

}  // namespace

std::vector<std::string> nodes_of(const Facts& d, const std::vector<size_t>& facts) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (size_t i : facts) {
    if (seen.insert(d[i].dist).second) out.push_back(d[i].dist);
  }
  return out;
}

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

}  // namespace scalify::verify::walk_detail
