#include "verify/check.h"

#include <algorithm>
#include <chrono>

#include "ir/inline_calls.h"
#include "verify/bijection.h"
#include "verify/binding_search.h"
#include "verify/mesh_inference.h"
#include "verify/output_alignment.h"
#include "verify/spec.h"

namespace scalify::verify {

namespace {

/// A given mesh must hold every device the program's collectives name.
std::optional<Diagnostic> mesh_misfit(const ir::Module& dist, const Mesh& mesh,
                                      const std::string& file) {
  for (const ir::Computation& comp : dist.computations) {
    for (const ir::Instruction& instr : comp.instructions) {
      const ir::ReplicaGroups* groups = instr.replica_groups();
      if (!groups) continue;
      for (const auto& group : groups->groups) {
        for (int64_t d : group) {
          if (d >= 0 && d < mesh.device_count()) continue;
          return Diagnostic{file, instr.pos,
                            instr.name + "'s replica groups name device " + std::to_string(d) +
                                ", but the mesh " + mesh.to_string() + " has " +
                                std::to_string(mesh.device_count()) + " device" +
                                (mesh.device_count() == 1 ? "" : "s"),
                            ""};
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

namespace {

Expected<CheckResult> check_flat(const ir::Module& ref, const ir::Module& dist,
                                 const CheckRequest& request);

/// The first collective of `m` that exchanges values between devices (a `-done` half aside, and
/// one over groups of a single device, which returns its operands): a reference that has one is
/// no single device's program.
const ir::Instruction* first_exchange(const ir::Module& m) {
  for (const ir::Computation& c : m.computations) {
    for (const ir::Instruction& x : c.instructions) {
      if (!ir::is_collective(x.opcode) || x.opcode_text().ends_with("-done")) continue;
      const ir::ReplicaGroups* groups = x.replica_groups();
      const bool alone = groups && !groups->groups.empty() &&
                         std::all_of(groups->groups.begin(), groups->groups.end(),
                                     [](const auto& g) { return g.size() == 1; });
      if (!alone) return &x;
    }
  }
  return nullptr;
}

}  // namespace

Expected<CheckResult> check(const ir::Module& ref, const ir::Module& dist,
                            const CheckRequest& request) {
  // The checker reasons about ops, not about calls and fusions: both programs are checked with
  // their calls and fusions inlined (ir/inline_calls.h).
  const std::optional<ir::Module> flat_ref = ir::inline_calls(ref);
  const std::optional<ir::Module> flat_dist = ir::inline_calls(dist);
  const ir::Module& r = flat_ref ? *flat_ref : ref;
  const ir::Module& d = flat_dist ? *flat_dist : dist;
  auto result = check_flat(r, d, request);
  if (!result) return result;
  // What was flattened, counted on the ENTRYs before and after.
  const auto count = [](const ir::Module& m, auto... ops) {
    return std::count_if(m.entry().instructions.begin(), m.entry().instructions.end(),
                         [&](const ir::Instruction& x) { return ((x.opcode == ops) || ...); });
  };
  if (count(ref, ir::Opcode::kCall, ir::Opcode::kFusion) +
          count(dist, ir::Opcode::kCall, ir::Opcode::kFusion) >
      0) {
    result->notes.push_back(
        "calls and fusions were inlined before checking; inlined nodes are named CALL.NODE");
  }
  const auto unrolled = count(ref, ir::Opcode::kWhile) + count(dist, ir::Opcode::kWhile) -
                        count(r, ir::Opcode::kWhile) - count(d, ir::Opcode::kWhile);
  if (unrolled > 0) {
    result->notes.push_back(std::to_string(unrolled) + " while loop" + (unrolled == 1 ? "" : "s") +
                            " unrolled (trip count known from constants); iteration K of loop W "
                            "is named W.iterK.NODE");
  }
  if (const ir::Instruction* x = first_exchange(ref)) {
    const std::string what = "REF communicates (its " + x->opcode_text() + " '" + x->name +
                             "' exchanges values between devices)";
    result->notes.push_back(
        first_exchange(dist)
            ? what +
                  ": a reference is one device's program, so its collectives are read as ops "
                  "of their own, not as layout changes, and a distributed program checked "
                  "against itself may diverge; check each against its single-device "
                  "reference"
            : what +
                  " and DIST does not: are they swapped? The single-device reference comes "
                  "first: scalify check REF DIST");
  }
  return result;
}

namespace {

Expected<CheckResult> check_flat(const ir::Module& ref, const ir::Module& dist,
                                 const CheckRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  Mesh mesh;
  std::string mesh_why;
  if (request.mesh) {
    mesh = *request.mesh;
    mesh_why = "given";
  } else if (request.spec && request.spec->mesh) {
    mesh = *request.spec->mesh;
    mesh_why = "from the spec";
  } else {
    auto inferred = infer_mesh_explained(ref, dist, request.dist_file);
    if (!inferred) return inferred.error();
    mesh = inferred->mesh;
    mesh_why = inferred->why;
  }
  if (auto error = mesh_misfit(dist, mesh, request.dist_file)) return *error;
  if (request.spec) {
    if (auto error = check_spec(*request.spec, ref, dist, mesh)) return *error;
  }
  // Layer by layer when both programs name their layers (a divergence is then localised in the
  // first part that fails, on that part's own terms); the whole program when they do not.
  std::optional<CheckResult> layered;
  if (request.by_layers && !request.spec) {
    LayeredRequest lr;
    lr.options = request.options;
    lr.max_attempts = request.max_attempts;
    lr.threads = request.threads;
    lr.memo = request.memo;
    lr.progress = request.progress;
    lr.cancel = request.cancel;
    lr.evidence = request.evidence;
    layered = check_by_layers(ref, dist, mesh, lr);
  }
  // Cancelled: stop here rather than fall back to the whole program, which cannot be cancelled.
  if (!layered && request.cancel && request.cancel->load()) {
    CheckResult cancelled;
    cancelled.mesh = mesh;
    cancelled.stats.stop_reason = "cancelled";
    cancelled.stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return cancelled;
  }
  BijectionCandidates candidates;
  Searched searched;
  if (layered) {
    searched.result = std::move(*layered);
  } else {
    candidates = infer_bijection(ref, dist, mesh, request.spec);
    add_zero_padding_contracts(candidates, dist, mesh);
    std::vector<OutputBinding> output_bindings;
    if (request.spec) {
      for (const SpecOutput& o : request.spec->outputs) {
        output_bindings.push_back({o.ref_index, o.dist_index, o.layout});
      }
    }
    if (output_bindings.empty()) output_bindings = infer_output_bindings(ref, dist, mesh);
    searched = search_bindings(ref, dist, mesh, candidates, output_bindings, request.options,
                               request.max_attempts);
  }
  CheckResult out = std::move(searched.result);
  const std::vector<std::string>& tried = searched.tried;
  out.notes.insert(out.notes.begin(), "mesh " + mesh.to_string() + ": " + mesh_why);
  if (out.verdict == Verdict::kEquivalent && !tried.empty()) {
    out.notes.push_back("proved after trying other parameter layouts: " + [&] {
      std::string s;
      for (const auto& t : tried) s += (s.empty() ? "" : ", ") + t;
      return s;
    }());
  }
  for (const UnmatchedParameter& u : candidates.unmatched_dist) {
    if (std::find(out.unmatched_dist_parameters.begin(), out.unmatched_dist_parameters.end(),
                  u.name) == out.unmatched_dist_parameters.end()) {
      out.unmatched_dist_parameters.push_back(u.name);
    }
    out.notes.push_back("distributed parameter " + u.name + " has no counterpart: " + u.why);
  }
  for (const UnmatchedParameter& u : candidates.unmatched_ref) {
    out.notes.push_back("reference parameter " + u.name + " has no counterpart: " + u.why);
  }
  if (request.options.strict && out.verdict == Verdict::kEquivalent &&
      (!out.unmatched_dist_parameters.empty() || !out.unmatched_ref_outputs.empty())) {
    out.verdict = Verdict::kDivergent;
    out.notes.push_back("--strict: unmatched parameters or outputs fail the check");
  }
  out.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

}  // namespace scalify::verify
