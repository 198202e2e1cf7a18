// A typed instance of a rule side written as an HLO module, for the reader to check and the
// interpreter to evaluate.
#pragma once

#include <string>
#include <string_view>

#include "rules/tensor_term.h"

namespace scalify::rules::check {

/// The HLO text of `side`: ENTRY has one parameter per operand variable of the rule (all of
/// them, in RuleVars order, named after the variable, so that both sides of a rule take the
/// same arguments), one instruction per node, and a computation per reducer that a `reduce`
/// names. A number is a scalar constant, broadcast (`dimensions={}`) where an elementwise op
/// uses it on tensors.
///
///   // (transpose ?x :dimensions [1 0]) with ?x : f32[2,3]
///   HloModule lhs
///   ENTRY %main {
///     %x = f32[2,3] parameter(0)
///     ROOT %n.1 = f32[3,2] transpose(%x), dimensions={1,0}
///   }
std::string to_hlo_module(const Typed& side, const RuleVars& vars, const Binding& b,
                          std::string_view module_name);

}  // namespace scalify::rules::check
