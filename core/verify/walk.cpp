#include "verify/walk.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "verify/walk_internal.h"

namespace scalify::verify {

namespace walk_detail {

bool is_copy(const DerivedFact& f) {
  return f.rule == "tuple" || f.rule == "get-tuple-element" || f.rule == "async-done";
}

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

std::string op_of(const DerivedFact& f) {
  if (f.rule.starts_with("factor:")) return f.rule.substr(7);
  return f.dist.substr(0, f.dist.find('.'));
}

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

}  // namespace walk_detail

namespace {

using namespace walk_detail;

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
    // Where a misused partial sum begins is lit with it: the walk shows both ends.
    if (!result.divergence->origin_node.empty()) {
      last.nodes.push_back(result.divergence->origin_node);
    }
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