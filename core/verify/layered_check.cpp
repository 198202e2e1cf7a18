#include "verify/layered_check.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "rules/bundled_rules.h"
#include "support/thread_pool.h"
#include "verify/bijection.h"
#include "verify/binding_search.h"
#include "verify/fingerprint.h"
#include "verify/output_alignment.h"
#include "verify/partition.h"

namespace scalify::verify {

namespace {

/// Bumped whenever what the checker proves changes in a way the fingerprint cannot see, so that
/// a cache written by an earlier Scalify is never read as this one's word. 2: bitcasts read
/// through their layouts, programs that send values out never equivalent, loop steps kept.
/// 3: outputs held to their ROOT's annotation, annotations the mesh cannot read bind nothing.
/// 4: Neuron's GELU calls elementwise, RMS norms of views written as views of norms.
/// 5: dots of operands whose free factors a view reordered written as moved dots.
/// 6: shards passed along rings (rotations) and their assembly followed.
constexpr std::string_view kCheckerVersion = "scalify-check-6";

const std::string& rules_version() {
  static const std::string version = [] {
    std::string all;
    for (const rules::RuleText& f : rules::bundled_rule_files()) {
      all += f.name;
      all += '\n';
      all += f.text;
    }
    return hash128(all);
  }();
  return version;
}

/// One part of both programs and what was found of it.
struct Job {
  PartModule ref, dist;
  BijectionCandidates candidates;
  std::vector<OutputBinding> outputs;
  std::string key;
  std::vector<std::string> dist_names, ref_names;  ///< in topological order
  CheckResult result;
  bool checked = false;  ///< the result is this part's own (not renamed from another)
  /// A repeat's derivation is that part's, renamed as the join copies it in (its result holds
  /// none).
  std::optional<size_t> derivation_of;
  Renames renames;  ///< with derivation_of: that part's names as this part calls them
};

std::vector<std::string> names_in_order(const ir::Module& m) {
  const ir::Computation& c = m.entry();
  std::vector<std::string> out;
  for (ir::InstrId id : c.topological_order().value_or(std::vector<ir::InstrId>{})) {
    out.push_back(c[id].name);
  }
  return out;
}

/// The memo key of a part: both modules' fingerprints and everything the check depends on.
std::string key_of(const Job& j, const Mesh& mesh, const CheckOptions& options) {
  std::string k;
  k += kCheckerVersion;
  k += '|' + rules_version() + '|' + mesh.to_string() + '|';
  k += fingerprint(j.ref.module) + '|' + fingerprint(j.dist.module) + '|';
  // The fingerprint leaves annotations out (they change no value), but a ROOT's says what the
  // outputs must be.
  const ir::Computation& droot = j.dist.module.entry();
  if (const ir::Sharding* s = droot[droot.root].sharding()) k += "root " + s->to_string() + '|';
  const ir::Computation& r = j.ref.module.entry();
  for (const ParameterCandidates& p : j.candidates.parameters) {
    k += '[';
    for (const BijectionCandidate& c : p.candidates) {
      k += (c.ref ? std::to_string(r[*c.ref].parameter_number) : "-") + ':' +
           c.layout.to_string(mesh) + ':' + std::to_string(static_cast<int>(c.source)) +
           (c.contract.empty() ? "" : ":contract");
      for (int64_t d : c.reshape) k += ",r" + std::to_string(d);
      for (int64_t d : c.permutation) k += ",p" + std::to_string(d);
      k += ';';
    }
    k += ']';
  }
  for (const OutputBinding& o : j.outputs) {
    k += std::to_string(o.ref_index) + '>' + (o.dist_index ? std::to_string(*o.dist_index) : "-");
  }
  k += "|strict" + std::to_string(options.strict) + "|explain" + std::to_string(options.explain);
  return hash128(k);
}

/// The names of part `from` (dist and ref, in topological order) as part `to` calls them.
Renames renames_to(const std::vector<std::string>& from_dist,
                   const std::vector<std::string>& from_ref, const Job& to, bool proofs) {
  Renames renames;
  renames.proofs = proofs;
  renames.dist.reserve(to.dist_names.size());
  renames.ref.reserve(to.ref_names.size());
  for (size_t i = 0; i < from_dist.size() && i < to.dist_names.size(); ++i) {
    if (from_dist[i] != to.dist_names[i]) renames.dist.emplace(from_dist[i], to.dist_names[i]);
  }
  for (size_t i = 0; i < from_ref.size() && i < to.ref_names.size(); ++i) {
    if (from_ref[i] != to.ref_names[i]) renames.ref.emplace(from_ref[i], to.ref_names[i]);
  }
  return renames;
}

/// `result` renamed (a copy when nothing is).
CheckResult moved(const CheckResult& result, const Renames& renames) {
  if (!renames.empty()) return renamed(result, renames);
  CheckResult copy = result;
  if (!renames.matches) copy.matches.clear();
  return copy;
}

/// `result`, found on part `from`, renamed to part `to`'s instructions.
CheckResult moved(const CheckResult& result, const std::vector<std::string>& from_dist,
                  const std::vector<std::string>& from_ref, const Job& to, bool proofs,
                  bool matches) {
  Renames renames = renames_to(from_dist, from_ref, to, proofs);
  renames.matches = matches;
  return moved(result, renames);
}

/// The distributed output element a goal names (`tuple.12#3` → 3; no '#' → 0).
size_t element_of(const std::string& name) {
  const auto split = split_value_name(name);
  return split && split->element >= 0 ? static_cast<size_t>(split->element) : 0;
}

/// What a value handed from part to part, or a parameter, is bound to: a reference value (by
/// name, the same in the whole program and in every part) and a layout.
struct Bound {
  std::string ref;
  Layout layout;
  std::string why;
  bool assumption = false;
  std::vector<int64_t> reshape, permutation;  ///< as BijectionEntry
  bool operator==(const Bound& o) const {
    return ref == o.ref && layout == o.layout && reshape == o.reshape &&
           permutation == o.permutation;
  }
};

/// The evidence of parts [0, joined) in the whole program's terms, into `out`: the derivation
/// (verify/derivation.h), the node matches, and the goals' proofs renumbered (the last part's
/// facts, and those of earlier parts they use). Takes the parts' derivations.
void gather_evidence(std::vector<Job>& jobs, size_t joined, const ir::Computation& dwhole,
                     const Mesh& mesh, CheckResult& out) {
  std::unordered_set<std::string_view> matched;  // views of the jobs' matches, which stay put
  // Of the names a part's facts use, only its output tuple's is not the program's: other names
  // need no look-up.
  DerivationJoiner join([&](const std::string& name) {
    return !name.ends_with(kPartOutputsSuffix) || dwhole.find(name).has_value();
  });
  std::vector<size_t> last_at;  // the last part's facts in the whole derivation
  size_t last_start = 0;        // where the last part's facts begin
  size_t facts = 0, matches = 0;
  std::vector<bool> copied(jobs.size(), false);  // parts whose derivation a repeat takes too
  for (size_t k = 0; k < joined; ++k) {
    const Job& j = jobs[k];
    facts += (j.derivation_of ? jobs[*j.derivation_of] : j).result.derivation.size();
    matches += j.result.matches.size();
    if (j.derivation_of) copied[*j.derivation_of] = true;
  }
  join.reserve(facts);
  out.matches.reserve(matches);
  matched.reserve(matches);
  for (size_t k = 0; k < joined; ++k) {
    last_start = join.derivation().size();
    if (const auto f = jobs[k].derivation_of) {
      last_at = join.append_copy(jobs[*f].result.derivation,
                                 [&](DerivedFact& fact) { rename_fact(fact, jobs[k].renames); });
    } else if (copied[k]) {
      last_at = join.append_copy(jobs[k].result.derivation, [](DerivedFact&) {});
    } else {
      last_at = join.append(std::move(jobs[k].result.derivation));
    }
    for (const NodeMatch& m : jobs[k].result.matches) {
      // A part's parameters repeat the nodes of the parts before it.
      if (matched.insert(m.dist).second) out.matches.push_back(m);
    }
  }
  out.derivation = std::move(join).take();
  for (Goal& g : out.goals) {
    if (!g.fact || *g.fact >= last_at.size()) {
      g.fact.reset();
      continue;
    }
    g.fact = last_at[*g.fact];
    const std::string meets = g.proof.empty() ? std::string() : g.proof.back();
    g.proof = proof_lines(out.derivation, *g.fact, mesh, last_start);
    if (!meets.empty()) g.proof.push_back(meets);
  }
}

/// Binds the parameters of `dist` that no part reads as the whole program's inference would
/// (its first candidate that needs no loader contract), so that the bijection is the one a
/// check of the whole program gives: an unread parameter has a counterpart all the same.
void bind_unread_parameters(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                            const std::vector<Job>& jobs,
                            std::unordered_map<std::string, Bound>& params,
                            std::vector<std::string>& param_order) {
  const ir::Computation& dwhole = dist.entry();
  std::unordered_set<ir::InstrId> read;
  for (const Job& j : jobs) read.insert(j.dist.inputs.begin(), j.dist.inputs.end());
  bool any = false;
  for (ir::InstrId p : dwhole.parameters()) any = any || (p >= 0 && !read.count(p));
  if (!any) return;  // the usual case: the whole program's inference is not needed
  const BijectionCandidates whole = infer_bijection(ref, dist, mesh);
  for (const ParameterCandidates& pc : whole.parameters) {
    if (pc.dist < 0 || read.count(pc.dist) || params.count(dwhole[pc.dist].name)) continue;
    for (const BijectionCandidate& c : pc.candidates) {
      if (!c.ref || !c.contract.empty()) continue;
      params[dwhole[pc.dist].name] = {
          ref.entry()[*c.ref].name, c.layout, c.why, false, c.reshape, c.permutation};
      param_order.push_back(dwhole[pc.dist].name);
      break;
    }
  }
}

}  // namespace

void CheckProgress::publish(const Mesh& mesh, const std::vector<NodeMatch>& matches) {
  std::lock_guard lock(mutex_);
  mesh_ = mesh;
  published_.insert(published_.end(), matches.begin(), matches.end());
}

std::optional<CheckResult> CheckProgress::staged_since(size_t& seen) const {
  std::lock_guard lock(mutex_);
  if (published_.size() <= seen) return std::nullopt;
  seen = published_.size();
  CheckResult staged;
  staged.mesh = mesh_;
  staged.matches = published_;
  return staged;
}

std::optional<CheckResult> check_by_layers(const ir::Module& ref, const ir::Module& dist,
                                           const Mesh& mesh, const LayeredRequest& request) {
  const std::vector<Part> rparts = partition_layers(ref), dparts = partition_layers(dist);
  if (rparts.empty() || rparts.size() != dparts.size()) return std::nullopt;
  for (size_t i = 0; i < rparts.size(); ++i) {
    if (rparts[i].key != dparts[i].key) return std::nullopt;
  }
  const PartExtractor rext(ref, rparts), dext(dist, dparts);
  const size_t n = rparts.size();
  std::vector<Job> jobs(n);
  auto cancelled = [&] { return request.cancel && request.cancel->load(); };
  if (request.progress) request.progress->total = n;
  // A repeat's modules are needed again only if it must be checked on its own (phase 2).
  auto extract = [&](Job& j, size_t k) {
    j.ref = rext.extract(k);
    j.dist = dext.extract(k);
  };
  auto drop_modules = [](Job& j) {
    j.ref.module = {};
    j.dist.module = {};
  };

  // Candidates, output pairing and memo key of every part. A part whose key an earlier part
  // has lets its modules go at once: the next part built reuses their memory (most of a large
  // model's parts are repeats, and fresh memory is what a large check spends most on).
  std::mutex first_mutex;
  std::unordered_map<std::string, size_t> first_with_key;
  parallel_for(n, request.threads, [&](size_t k) {
    Job& j = jobs[k];
    extract(j, k);
    j.candidates = infer_bijection(j.ref.module, j.dist.module, mesh);
    add_zero_padding_contracts(j.candidates, j.dist.module, mesh);
    j.outputs = infer_output_bindings(j.ref.module, j.dist.module, mesh);
    j.dist_names = names_in_order(j.dist.module);
    j.ref_names = names_in_order(j.ref.module);
    j.key = key_of(j, mesh, request.options);
    bool repeat = false;
    {
      std::lock_guard lock(first_mutex);
      auto [first, fresh] = first_with_key.try_emplace(j.key, k);
      repeat = !fresh && first->second < k;
      if (!fresh && !repeat) first->second = k;  // a later part got there first
    }
    if (repeat) drop_modules(j);
  });

  // Phase 1: every distinct part once (from the memo when it knows it), on the thread pool.
  PartMemo own_memo;
  PartMemo& memo = request.memo ? *request.memo : own_memo;
  std::vector<size_t> distinct;
  for (size_t k = 0; k < n; ++k) {
    if (first_with_key.at(jobs[k].key) == k) {
      distinct.push_back(k);
    } else {
      drop_modules(jobs[k]);  // a repeat whose key was in before its first part's still has them
    }
  }
  // The results in stages: a part's matches of the program's own nodes (not of the tuple a
  // part returns).
  auto publish = [&](const CheckResult& r) {
    std::vector<NodeMatch> own;
    for (const NodeMatch& m : r.matches) {
      if (dist.entry().find(m.dist)) own.push_back(m);
    }
    request.progress->publish(mesh, own);
  };
  size_t memo_hits = 0;
  std::atomic<size_t> stored_hits{0};
  parallel_for(
      distinct.size(), request.threads,
      [&](size_t i) {
        Job& j = jobs[distinct[i]];
        if (auto hit = memo.find(j.key, mesh)) {
          // Only the last part's goals are the program's: the others' proof text is not kept.
          j.result = moved(hit->result, hit->dist_names, hit->ref_names, j, distinct[i] == n - 1,
                           request.evidence);
          ++stored_hits;
        } else {
          j.result = search_bindings(j.ref.module, j.dist.module, mesh, j.candidates, j.outputs,
                                     request.options, request.max_attempts)
                         .result;
          j.checked = true;
          if (j.result.verdict == Verdict::kEquivalent) {
            memo.put(j.key, {j.result, j.dist_names, j.ref_names});
          }
        }
        if (request.progress) {
          if (j.result.verdict == Verdict::kEquivalent) {
            publish(j.result);
          }
          ++request.progress->done;
          if (!j.checked) ++request.progress->memo_hits;
        }
      },
      cancelled);
  if (cancelled()) return std::nullopt;
  memo_hits += stored_hits;
  // The repeats of a distinct part take its result, renamed (on the pool too: this is most of
  // a large model's parts).
  std::vector<std::pair<size_t, size_t>> repeats;  // (part, the first part with its key)
  for (size_t k = 0; k < n; ++k) {
    const size_t first = first_with_key.at(jobs[k].key);
    if (first != k) repeats.emplace_back(k, first);
  }
  auto take_repeat = [&](size_t k, size_t f) {
    const Job& first = jobs[f];
    Renames renames = renames_to(first.dist_names, first.ref_names, jobs[k], k == n - 1);
    renames.matches = request.evidence;
    jobs[k].result = moved(first.result, renames);
    if (k != n - 1) {
      jobs[k].derivation_of = f;
      jobs[k].renames = std::move(renames);
    }
    if (request.progress) {
      if (jobs[k].result.verdict == Verdict::kEquivalent) publish(jobs[k].result);
      ++request.progress->done;
      ++request.progress->memo_hits;
    }
  };
  // Their derivations are the first parts', renamed as the join copies them in: set aside
  // meanwhile, so that no repeat copies one here. The last part renders its goals' proofs
  // from its derivation: it takes its own.
  std::unordered_map<size_t, std::vector<DerivedFact>> aside;  // by first part
  for (const auto& [k, f] : repeats) {
    if (k == n - 1 || aside.count(f)) continue;
    aside[f] = std::move(jobs[f].result.derivation);
    jobs[f].result.derivation.clear();
  }
  parallel_for(
      repeats.size(), request.threads,
      [&](size_t i) {
        const auto [k, f] = repeats[i];
        if (k != n - 1) take_repeat(k, f);
      },
      cancelled);
  for (auto& [f, derivation] : aside) jobs[f].result.derivation = std::move(derivation);
  if (cancelled()) return std::nullopt;
  if (!repeats.empty() && repeats.back().first == n - 1) take_repeat(n - 1, repeats.back().second);
  memo_hits += repeats.size();

  // Phase 2, in order: a part's bindings must be what the parts before it proved of the values
  // they hand on, and every part must bind a parameter as the first part using it did. A part
  // that assumed otherwise is checked again under those bindings.
  std::unordered_map<std::string, Bound> handed;  // dist value name -> what a part proved
  std::unordered_map<std::string, Bound> params;  // dist parameter name -> first binding
  std::vector<std::string> param_order;
  const ir::Computation& dwhole = dist.entry();
  std::unordered_set<std::string> param_names;
  for (ir::InstrId p : dwhole.parameters()) {
    if (p >= 0) param_names.insert(dwhole[p].name);
  }
  auto is_param = [&](const std::string& name) { return param_names.count(name) > 0; };
  size_t rechecked = 0;
  std::optional<size_t> failed;
  for (size_t k = 0; k < n && !failed; ++k) {
    Job& j = jobs[k];
    // What this part must assume of each of its inputs.
    auto expected = [&](const std::string& name) -> std::optional<Bound> {
      const auto& table = is_param(name) ? params : handed;
      const auto found = table.find(name);
      if (found == table.end()) return std::nullopt;
      return found->second;
    };
    auto consistent = [&] {
      std::unordered_map<std::string, Bound> used;
      for (const BijectionEntry& b : j.result.bijection)
        used[b.dist] = {b.ref, b.layout, b.why, false, b.reshape, b.permutation};
      for (ir::InstrId whole : j.dist.inputs) {
        const std::string& name = dwhole[whole].name;
        const auto want = expected(name);
        const auto got = used.find(name);
        if (!want) {
          if (!is_param(name)) return false;  // a value no earlier part proved anything of
          continue;                           // a parameter first used here
        }
        if (got == used.end() || !(got->second == *want)) return false;
      }
      return true;
    };
    if (!consistent()) {
      // Check again with exactly the expected bindings.
      if (j.ref.module.computations.empty()) extract(j, k);
      BijectionCandidates forced;
      const ir::Computation& rc = j.ref.module.entry();
      const ir::Computation& dc = j.dist.module.entry();
      for (size_t p = 0; p < j.dist.inputs.size(); ++p) {
        ParameterCandidates pc;
        pc.dist = dc.parameters()[p];
        pc.number = static_cast<int64_t>(p);
        const std::string& name = dwhole[j.dist.inputs[p]].name;
        const auto want = expected(name);
        const auto ref_id = want ? rc.find(want->ref) : std::nullopt;
        if (want && ref_id) {
          BijectionCandidate c{*ref_id,   want->layout,
                               {},        BijectionCandidate::Source::kSpec,
                               want->why, want->assumption ? want->why : "",
                               {}};
          pc.candidates.push_back(std::move(c));
        } else if (!want && is_param(name)) {
          pc.candidates = j.candidates.parameters[p].candidates;  // first use: free
        }
        // A value handed on that no earlier part proved anything of gets no candidate: binding
        // it by its shape alone would assume what nobody showed.
        forced.parameters.push_back(std::move(pc));
      }
      // Its repeats' results are renamed from the result it is about to replace: they take
      // their derivations now, renamed from the one they were found with.
      for (size_t m = k + 1; m < n; ++m) {
        Job& later = jobs[m];
        if (later.derivation_of != k) continue;
        later.result.derivation = j.result.derivation;
        for (DerivedFact& fact : later.result.derivation) rename_fact(fact, later.renames);
        later.derivation_of.reset();
      }
      j.result = search_bindings(j.ref.module, j.dist.module, mesh, forced, j.outputs,
                                 request.options, request.max_attempts)
                     .result;
      j.checked = true;
      j.derivation_of.reset();
      ++rechecked;
    }
    // Record what this part bound (a failing part too: its bindings explain its divergence)
    // and, when it holds, what it proved.
    std::unordered_map<std::string, bool> assumed;
    for (const Assumption& a : j.result.assumptions) assumed[a.dist] = true;
    for (const BijectionEntry& b : j.result.bijection) {
      if (is_param(b.dist) && !params.count(b.dist)) {
        params[b.dist] = {b.ref,     b.layout,     b.why, assumed.count(b.dist) > 0,
                          b.reshape, b.permutation};
        param_order.push_back(b.dist);
      }
    }
    if (j.result.verdict != Verdict::kEquivalent) {
      failed = k;
      break;
    }
    for (const Goal& g : j.result.goals) {
      if (!g.proven || !g.layout) continue;
      const size_t e = element_of(g.dist);
      const auto gi = static_cast<size_t>(g.index);
      if (e >= j.dist.outputs.size() || gi >= j.ref.outputs.size()) continue;
      handed[dwhole[j.dist.outputs[e]].name] = {ref.entry()[j.ref.outputs[gi]].name,
                                                *g.layout,
                                                "as part " + std::to_string(k) + " proved",
                                                false,
                                                {},
                                                {}};
    }
  }

  // A cut by repeated structure is a guess at where layers begin: a part may then miss what
  // the whole program shows (a value handed on that the part before cannot name). Only an
  // equivalence found part by part stands; anything else is for the whole program to say.
  const bool by_structure = rparts.front().by_structure || dparts.front().by_structure;
  if (failed && by_structure) return std::nullopt;

  // The whole program's result: the last part's goals, every part's assumptions.
  CheckResult out;
  out.mesh = mesh;
  const Job& last = jobs[failed ? *failed : n - 1];
  out.verdict = failed ? last.result.verdict : Verdict::kEquivalent;
  out.divergence = last.result.divergence;
  if (!failed || *failed == n - 1) {
    out.goals = last.result.goals;
    out.unmatched_ref_outputs = last.result.unmatched_ref_outputs;
  } else {
    // The program's outputs are the last part's; the check never got that far.
    for (Goal g : jobs[n - 1].result.goals) {
      g.proven = false;
      g.layout.reset();
      g.proof.clear();
      g.fact.reset();
      g.why_not = "not reached: part " + std::to_string(*failed) + " (" + rparts[*failed].label +
                  ") diverges first";
      out.goals.push_back(std::move(g));
    }
  }
  const ir::Computation& rwhole = ref.entry();
  if (!failed) bind_unread_parameters(ref, dist, mesh, jobs, params, param_order);
  for (const std::string& name : param_order) {
    const Bound& b = params.at(name);
    const auto d = dwhole.find(name);
    const auto r = rwhole.find(b.ref);
    out.bijection.push_back({name, b.ref, d ? dwhole[*d].parameter_number : -1,
                             r ? rwhole[*r].parameter_number : -1, b.layout, b.why, b.reshape,
                             b.permutation});
  }
  std::sort(out.bijection.begin(), out.bijection.end(),
            [](const BijectionEntry& a, const BijectionEntry& b) {
              return a.dist_number < b.dist_number;
            });
  // A parameter first read after the part where the check stopped was never looked at: that is
  // not "no counterpart".
  std::unordered_set<std::string> reached;
  for (size_t k = 0; k <= (failed ? *failed : n - 1); ++k) {
    for (ir::InstrId whole : jobs[k].dist.inputs) reached.insert(dwhole[whole].name);
  }
  size_t not_reached = 0;
  for (ir::InstrId p : dwhole.parameters()) {
    if (p < 0 || params.count(dwhole[p].name)) continue;
    if (failed && !reached.count(dwhole[p].name)) {
      ++not_reached;
    } else {
      out.unmatched_dist_parameters.push_back(dwhole[p].name);
    }
  }
  if (not_reached > 0) {
    out.notes.push_back(std::to_string(not_reached) + " parameter" +
                        (not_reached == 1 ? " is" : "s are") +
                        " read only after the part where the check stopped, and not bound");
  }
  if (!failed) {
    for (ir::InstrId p : rwhole.parameters()) {
      const bool bound =
          p < 0 || std::any_of(out.bijection.begin(), out.bijection.end(),
                               [&](const BijectionEntry& b) { return b.ref == rwhole[p].name; });
      if (!bound) {
        out.notes.push_back("reference parameter " + rwhole[p].name +
                            " has no counterpart in any part");
      }
    }
  }
  const size_t joined = failed ? *failed + 1 : n;
  for (size_t k = 0; k < joined; ++k) {
    for (const Assumption& a : jobs[k].result.assumptions) {
      const bool known = std::any_of(out.assumptions.begin(), out.assumptions.end(),
                                     [&](const Assumption& b) { return b.dist == a.dist; });
      if (!known) out.assumptions.push_back(a);
    }
    out.stats.enodes += jobs[k].checked ? jobs[k].result.stats.enodes : 0;
    out.stats.eclasses += jobs[k].checked ? jobs[k].result.stats.eclasses : 0;
    out.stats.facts += jobs[k].checked ? jobs[k].result.stats.facts : 0;
    out.stats.iterations = std::max(out.stats.iterations, jobs[k].result.stats.iterations);
  }
  if (request.evidence) {
    gather_evidence(jobs, joined, dwhole, mesh, out);
  } else {
    for (Goal& g : out.goals) {
      g.fact.reset();
      g.proof.clear();
    }
  }
  out.stats.parts = n;
  out.stats.memo_hits = memo_hits;
  out.stats.stop_reason = last.result.stats.stop_reason;
  out.notes.push_back(
      "checked as " + std::to_string(n) + " parts (" + rparts.front().label + " to " +
      rparts.back().label + "): " + std::to_string(distinct.size()) + " distinct, " +
      std::to_string(memo_hits) + " from the memo, " + std::to_string(rechecked) +
      " checked again under the bindings of the parts before them" +
      (by_structure ? "; cut where the instructions repeat (no layer scopes)" : ""));
  if (failed) {
    out.notes.push_back("part " + std::to_string(*failed) + " (" + rparts[*failed].label +
                        ") is where the check stops");
    for (const std::string& note : last.result.notes) out.notes.push_back(note);
  }
  return out;
}

}  // namespace scalify::verify
