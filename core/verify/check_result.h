// The result of `scalify check`: verdict, mesh, bijection, goals, assumptions, the first
// divergence and statistics (the JSON of DESIGN.md, "Interfaces").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "verify/derivation.h"
#include "verify/layout.h"
#include "verify/mesh.h"

namespace scalify::verify {

enum class Verdict : uint8_t { kEquivalent, kDivergent, kInconclusive };
std::string_view verdict_name(Verdict v);

/// A distributed parameter related to a reference parameter.
struct BijectionEntry {
  std::string dist, ref;  ///< instruction names without '%'
  int64_t dist_number = -1, ref_number = -1;
  Layout layout;
  std::string why;  ///< how it was inferred ("position and shape", "spec", "sharding=…")
  /// The distributed value relates by `layout` to the reference parameter reshaped to these dims
  /// (empty: as it is), then transposed by `permutation` (empty: none).
  std::vector<int64_t> reshape, permutation;
};

/// One reference output and the distributed output that must compute it.
struct Goal {
  std::string ref, dist;  ///< the output instructions (with `#i` for a tuple element)
  int64_t index = 0;      ///< the element of the output tuple
  bool proven = false;
  std::optional<Layout> layout;    ///< how the distributed output relates, when proven
  std::vector<std::string> proof;  ///< one step a line, when proven
  std::optional<size_t> fact;      ///< the fact of CheckResult::derivation that proves it
  std::string why_not;             ///< when not proven
};

/// A contract the verdict rests on, in words.
struct Assumption {
  std::string dist;
  Layout layout;
  std::string why;
};

/// Where the source recorded a node.
struct SourceSite {
  std::string file;
  int64_t line = -1;
};

/// The first node of the distributed program that stops computing the reference.
struct Divergence {
  std::string dist_node, ref_node, op;
  std::string reason;
  /// true: every node got a layout but this one computes another value than the reference;
  /// false: this node gets no layout at all (the reason says why).
  bool by_value = false;
  std::vector<std::string> operand_layouts;
  std::string op_name;
  std::optional<SourceSite> source;
  int64_t dist_line = -1, ref_line = -1;  ///< where the nodes are written (1-based), for people
  /// Where the cause began, when it is another node: the op that makes the partial sum this
  /// node misuses (an all-reduce is missing between them). Empty otherwise.
  std::string origin_node;
};

/// A distributed node proven to hold a reference node's value in a layout (what the window
/// colours alike): the first reference node, in topological order, of the value's e-class.
struct NodeMatch {
  std::string dist, ref;
  Layout layout;
};

struct CheckStats {
  double seconds = 0;
  size_t parts = 1, memo_hits = 0;
  size_t enodes = 0, eclasses = 0, iterations = 0, facts = 0;
  std::string stop_reason;
};

struct CheckResult {
  Verdict verdict = Verdict::kInconclusive;
  Mesh mesh;
  std::vector<BijectionEntry> bijection;
  std::vector<Goal> goals;
  std::vector<Assumption> assumptions;
  std::vector<std::string> unmatched_ref_outputs, unmatched_dist_parameters;
  std::vector<std::string> notes;  ///< what else the checker wants the user to know
  std::optional<Divergence> divergence;
  /// Every distributed node related to a reference node, in the distributed program's order.
  std::vector<NodeMatch> matches;
  /// Every layout fact in the order the checker derived it (a layered check: the parts' in
  /// order); a goal's proof is the facts its `fact` rests on (verify/derivation.h).
  std::vector<DerivedFact> derivation;
  CheckStats stats;
};

}  // namespace scalify::verify
