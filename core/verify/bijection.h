// Bijection inference: for every parameter of the distributed program D, the reference
// parameters of R it may stand for and by which layout, ranked best first. The checker tries
// them in order and keeps the first that proves; nothing here is a guess that the shapes and
// element types do not allow.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/diagnostic.h"
#include "verify/layout.h"
#include "verify/mesh.h"

namespace scalify::verify {

struct Spec;

/// One way a distributed parameter may relate to the reference.
///
///   {ref: p7.28, layout: shard(1,tp), source: kShape,
///    why: "same position; dim 1: 2048 × tp 2 = 4096"}
struct BijectionCandidate {
  /// Where the candidate comes from, in the order of trust.
  enum class Source : uint8_t {
    kSpec,      ///< the spec file says so
    kSharding,  ///< the parameter's `sharding=` annotation
    kShape,     ///< the shapes: equal (rep) or one dimension divided by mesh axes (shard)
    kContract,  ///< a layout that holds only under a loader contract (partial sums)
    kPermuted,  ///< the dims are a permutation of the reference's
  };
  std::optional<ir::InstrId> ref;  ///< the ref ENTRY parameter; nullopt: no counterpart (spec)
  Layout layout;
  /// Empty: none. Else the distributed value relates by `layout` to transpose(ref, permutation):
  /// its dim i corresponds to the reference's dim permutation[i] (HLO transpose semantics).
  std::vector<int64_t> permutation;
  Source source = Source::kShape;
  std::string why;  ///< one line, for people: "same position; dim 1: 2048 × tp 2 = 4096"
  /// Non-empty when the candidate holds only if the loader keeps a promise, in words:
  /// "p16.30 must be held by one rank of tp only (the others hold zeros)". The checker states
  /// it as an assumption when its proof rests on this candidate.
  std::string contract;
  /// Empty: none. Else the distributed value relates by `layout` to reshape(ref, these dims):
  /// the two programs feed the same input flattened differently.
  std::vector<int64_t> reshape;
};

/// The candidates for one distributed ENTRY parameter.
struct ParameterCandidates {
  ir::InstrId dist = -1;                       ///< the dist ENTRY instruction
  int64_t number = -1;                         ///< its parameter number
  std::vector<BijectionCandidate> candidates;  ///< best first; empty: no counterpart found
  /// Evidence that was looked at and set aside, e.g. a `sharding=` that does not fit the mesh.
  std::vector<std::string> notes;

  const BijectionCandidate* best() const { return candidates.empty() ? nullptr : &candidates[0]; }
};

/// A parameter without a counterpart, reported by name (never silently dropped).
struct UnmatchedParameter {
  ir::InstrId id = -1;
  int64_t number = -1;
  std::string name;
  std::string why;  ///< "no reference parameter has type f32[16,1,28,28] or a shard of it; …"
};

/// The result of infer_bijection.
struct BijectionCandidates {
  std::vector<ParameterCandidates> parameters;  ///< one per dist ENTRY parameter, by number
  /// Ref ENTRY parameters that appear in no candidate, by number.
  std::vector<UnmatchedParameter> unmatched_ref;
  /// Dist ENTRY parameters with no candidate, or that the spec says have no counterpart.
  std::vector<UnmatchedParameter> unmatched_dist;
  /// Spec entries that could not be used (run check_spec first to stop on these instead).
  std::vector<Diagnostic> spec_errors;

  /// The candidates of dist parameter `number`, or nullptr.
  const ParameterCandidates* find(int64_t number) const;
};

/// Infers the candidates for every ENTRY parameter of `dist`. Sources, best first:
///  1. the spec (its word is final: a parameter it describes gets only what it says, with the
///     missing "ref" or "layout" inferred);
///  2. a `sharding=` annotation on the dist parameter (its type is already the per-device
///     shard: tile dims > 1 map onto the mesh axes that the device list varies along);
///  3. the shapes, against the reference parameter at the same position (or, when the counts
///     differ or a position does not fit, the one found by aligning the two parameter lists in
///     order, preferring equal names, source sites and `neff_input_names`): equal dims → rep;
///     dims divided by axis sizes → shard; a dim that does not divide → shard with padding
///     (`pad` = the reference extent; only when no exact shard fits);
///  4. for a float parameter of the reference's shape, partial(sum) over each axis, ranked
///     below rep: correct only if one rank holds the value and the others zeros (GPT-2's
///     row-parallel biases), which the candidate states as its `contract`;
///  5. dims permuted (a transposed layout), when the permutation is visible in the shapes;
///  6. other reference parameters with the same name, position or `neff_input_names`.
///
///   auto ref = hlo::read_module_file("llama_tp1.hlo"), dist =
///   hlo::read_module_file("llama_tp2.hlo"); BijectionCandidates b = infer_bijection(*ref, *dist,
///   *Mesh::parse("tp=2"), nullptr); b.find(7)->best()->layout.to_string(mesh) == "shard(1,tp)"; //
///   f32[4096,2048] of [4096,4096]
BijectionCandidates infer_bijection(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                                    const Spec* spec = nullptr);

/// The layouts by which a distributed array of dims `dist` may stand for a reference array of
/// dims `ref` (same rank), best first: rep when equal; else every assignment of mesh axes to
/// the differing dims with dist × split == ref (exact), or, only when no exact one exists,
/// dist < ref <= dist × split (padded: the minimal padding `dist == ceil(ref / split)` first).
/// Then fewer axes first; ties put earlier mesh axes on earlier dims (`shard(0,dp)` before
/// `shard(0,tp)` on a dp=2,tp=2 mesh).
///
///   shape_layouts({4096, 2048}, {4096, 4096}, tp=2) == {shard(1,tp)}
///   shape_layouts({768, 25129}, {768, 50257}, tp=2) == {shard(1,tp,pad 50257)}
std::vector<Layout> shape_layouts(const std::vector<int64_t>& dist, const std::vector<int64_t>& ref,
                                  const Mesh& mesh);

/// The split that a `sharding=` annotation describes on a value of `rank` dims: each tile dim
/// > 1 becomes shard(dim) on the mesh axes its devices vary along; no padding yet. nullopt (and
/// `why_not`) when it does not fit the mesh: another device count, a device order the mesh
/// cannot express, manual or maximal shardings. `contradicts`, when given, is set when the
/// annotation is a well-formed tiling of exactly the mesh's devices that the mesh cannot read
/// (another order, a tiling no mesh axes make): it then says which device holds which block,
/// and no other layout may be assumed.
///
///   layout_from_sharding({devices=[2,1]0,1}, 2, tp=2) == shard(0,tp)
///   layout_from_sharding({devices=[2,1]1,0}, 2, tp=2, &why, &c) == nullopt, c == true
std::optional<Layout> layout_from_sharding(const ir::Sharding& sharding, int64_t rank,
                                           const Mesh& mesh, std::string* why_not = nullptr,
                                           bool* contradicts = nullptr);

/// For an annotation `mesh` cannot read because of its device order alone: the mesh in the order
/// the annotation lists and the layout it reads as there. nullopt when even that does not read.
///
///   layout_in_listed_order({devices=[2,1]1,0}, 2, tp=2) == {tp=2 devices=[1,0], shard(0,tp)}
std::optional<std::pair<Mesh, Layout>> layout_in_listed_order(const ir::Sharding& sharding,
                                                              int64_t rank, const Mesh& mesh);

/// Sets the padding of an annotation's split (from layout_from_sharding) against the reference
/// dims, XLA's way (every shard ceil(ref / split) long); false when the dims do not fit.
///
///   pad_to(shard(0,tp), f32[25129], f32[50257], tp=2) == true, now shard(0,tp,pad 50257)
bool pad_to(Layout& layout, const ir::Type& dist, const ir::Type& ref, const Mesh& mesh);

/// Aligns two ordered lists (the ref and dist parameters) without crossings, maximising the
/// sum of `score(r, d)` over the aligned pairs; nullopt scores forbid a pair. Returns, for each
/// dist index, its ref index or -1. Equal counts where every position scores are aligned by
/// position without search; above 4M pairs, by position where it scores.
///
///   align_parameters(2, 3, score) == {0, -1, 1}   // dist 1 has no counterpart
std::vector<int> align_parameters(
    size_t ref_count, size_t dist_count,
    const std::function<std::optional<int>(size_t ref, size_t dist)>& score);

}  // namespace scalify::verify
