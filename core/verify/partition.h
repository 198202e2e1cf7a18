// Layer partitioning: cutting a program into the layers its metadata names (`op_name` scopes
// such as `model.layers.17.self_attn/aten__mm`), each a module of its own whose parameters are
// the values it reads from outside and whose outputs are the values read after it. Checking a
// large model part by part, with identical layers checked once (memo), is what makes it fast.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/module.h"

namespace scalify::verify {

/// The layer an `op_name` scope names: the number after a `layers`, `layer`, `h`, `blocks` or
/// `block` path component (`model.layers.17.mlp/…`, `transformer/h_3/…`, `blocks/2/…`).
///
///   layer_of("model.layers.17.self_attn/aten__mm") == 17
///   layer_of("aten__mm") == std::nullopt
std::optional<int64_t> layer_of(std::string_view op_name);

/// The iteration of an unrolled loop an instruction belongs to, from its name `W.iterK.NAME`
/// (ir/inline_calls.h): the loop W and K (the outermost loop's, for nested loops).
///
///   iteration_of("while.3.iter17.dot.2") == std::pair{"while.3", 17}
///   iteration_of("dot.2") == std::nullopt
std::optional<std::pair<std::string_view, int64_t>> iteration_of(std::string_view name);

/// One part: the ENTRY instructions of a layer, or of what comes before the first layer
/// (`key` kPrologue) or after the last (kEpilogue).
struct Part {
  static constexpr int64_t kPrologue = -1;
  static constexpr int64_t kEpilogue = INT64_MAX;
  int64_t key = kPrologue;
  std::vector<ir::InstrId> members;  ///< in topological order
  std::string label;                 ///< "layer 3", "iteration 3 of loop.1", "prologue"
  /// Cut by repeated structure (verify/repeated_structure.h), no name saying where layers are.
  bool by_structure = false;
};

/// The parts of `m`'s ENTRY in order (prologue, layers by number, epilogue); empty when the
/// metadata names fewer than two layers. Parameters belong to no part (they are every part's
/// inputs); an instruction without a layer scope joins the part of its operands' latest layer
/// (constants and broadcasts feeding a layer join their first user's layer). A program without
/// layer scopes whose loops were unrolled (a scan over layers) is cut by iteration instead:
/// the iterations of its first loop, then of the next, each a part; one with neither by its
/// repeated structure (partition_by_repetition).
std::vector<Part> partition_layers(const ir::Module& m);

/// A part as a module of its own. Its ENTRY's parameters are the values it reads from outside
/// (named and typed as in the whole program); its ROOT is a tuple of the values read after it,
/// in topological order (with the program's ROOT in the last part, its elements).
/// How the name of a part's ROOT tuple ends (`main.part3.outputs`); no other name of a part's
/// ENTRY is not the whole program's.
inline constexpr std::string_view kPartOutputsSuffix = ".outputs";

struct PartModule {
  ir::Module module;
  std::vector<ir::InstrId> inputs;   ///< per parameter number: the whole program's instruction
  std::vector<ir::InstrId> outputs;  ///< per ROOT tuple element: the whole program's instruction
  bool has_root = false;             ///< the part computes the program's ROOT (its outputs)
};

/// Builds the parts of `parts` (from partition_layers(m)) as modules, one at a time, on any
/// thread: a caller that needs a part only for a while (a repeat of a part already checked)
/// frees it before building the next, so that the next reuses its memory.
///
///   const PartExtractor parts(m, partition_layers(m));
///   PartModule first = parts.extract(0);  // parts.size() of them
class PartExtractor {
 public:
  /// Keeps references to `m` and `parts`, which must outlive it.
  PartExtractor(const ir::Module& m, const std::vector<Part>& parts);
  size_t size() const { return parts_.size(); }
  PartModule extract(size_t p) const;

 private:
  const ir::Module& module_;
  const std::vector<Part>& parts_;
  std::vector<int> part_of_;      ///< per whole ENTRY instruction: its part, or -1
  std::vector<int> last_reader_;  ///< per whole ENTRY instruction: the last part reading it
};

/// Builds every part of `parts` (from partition_layers(m)) as a module.
std::vector<PartModule> extract_parts(const ir::Module& m, const std::vector<Part>& parts);

}  // namespace scalify::verify
