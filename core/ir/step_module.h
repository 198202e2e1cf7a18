// A computation run once as a program of its own: what a loop's body, a loop's condition or a
// conditional's branch does to one state, checked (verify/checker_control_flow.cpp) and
// re-checked (proofcheck/control_flow_steps.cpp) as the same module.
#pragma once

#include <optional>

#include "ir/module.h"

namespace scalify::ir {

/// `m` with an ENTRY that runs computation `step` once on its parameter given element by
/// element: ENTRY parameter i (named `state.i`) is element i of `step`'s parameter (the
/// parameter itself when it is an array); the result is `step`'s. Calls inlined
/// (inline_calls.h), so the step's instructions are named `step.NAME`. nullopt when `step` has
/// not exactly one parameter, or its parameter is not an array or a tuple of arrays.
///
///   // body { p = (s32[], f32[4]) parameter(0)  …  ROOT t = (s32[], f32[4]) tuple(n, s) }
///   auto once = step_module(m, *called_computation(m, loop, "body"));
///   once->entry().parameters().size() == 2;   // state.0: s32[], state.1: f32[4]
std::optional<Module> step_module(const Module& m, CompId step);

}  // namespace scalify::ir
