// The guided walk's two halves share these (verify/walk.h is the public interface): walk.cpp
// cuts the derivation into steps, walk_captions.cpp words them.
#pragma once

#include <string>
#include <vector>

#include "verify/check_result.h"
#include "verify/walk.h"

namespace scalify::verify::walk_detail {

using Facts = std::vector<DerivedFact>;

/// A step being built: the facts it covers and those its caption is about.
struct Group {
  WalkStep::Kind kind = WalkStep::Kind::kLayoutChange;
  std::vector<size_t> facts;     ///< ascending
  std::vector<size_t> headline;  ///< the layout changes (or parameters) it explains
};

// What a fact is (walk.cpp).
/// Facts that only hand a value on: tuple elements, get-tuple-element, an async done.
bool is_copy(const DerivedFact& f);
/// A parameter's fact: from the bijection, or a contract on it (no premises).
bool is_input(const DerivedFact& f);
/// A collective's rule (all-reduce, all-gather, reduce-scatter, collective-permute, all-to-all).
bool is_collective(const std::string& rule);
/// The op of a fact's node: from its rule (`factor:dot`), else from the node's name.
std::string op_of(const DerivedFact& f);
/// Two layout changes alike enough to explain once ("likewise `dot.5`"): the same rule, the
/// same layouts in and out.
std::string likeness(const Facts& d, const DerivedFact& f, const Mesh& mesh);

// Words (walk_captions.cpp).
/// `name` in code font (Markdown backticks).
std::string code(const std::string& name);
/// The distinct nodes of `facts`, in order.
std::vector<std::string> nodes_of(const Facts& d, const std::vector<size_t>& facts);
/// "First, `a` (rep), `b` (shard(1,tp)) and 5 more follow their operands' layouts: … " for the
/// facts of a step that are not its headline (empty when there are none).
std::string carried_sentence(const CheckResult& r, const Group& g);
/// The first step: what each parameter holds.
std::string parameters_caption(const CheckResult& r, const Group& g);
/// The last step of an equivalent result: the outputs, proven.
std::string outputs_caption(const CheckResult& r);
/// The last step of a divergent result: the node, its reason and source line.
std::string divergence_caption(const Divergence& dv);
/// A layout change (or several alike), in the terms of its rule.
std::string change_caption(const CheckResult& r, const Group& g);

}  // namespace scalify::verify::walk_detail
