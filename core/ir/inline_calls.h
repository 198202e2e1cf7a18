// Inlining calls, fusions and control flow: an optimised dump wraps most of its ops in fusions,
// a framework may factor a block into a called computation, a scan or a windowed einsum is a
// `while` loop; the checker reasons about the ops themselves, so it sees the ENTRY with every
// call and fusion replaced by the body it runs, every loop whose trip count is known unrolled,
// and every conditional whose branch is known replaced by that branch.
#pragma once

#include <optional>

#include "ir/module.h"

namespace scalify::ir {

/// `m` with every `call` and `fusion` of its ENTRY replaced by the instructions of the
/// computation it calls, recursively (a body that calls again is inlined too): the body's
/// parameters become the call's operands, the call's users read the body's root. An inlined
/// instruction is named `CALL.NAME` (the call's name, a dot, its own name; with a further
/// suffix if that name is taken) and keeps its metadata and source position, so diagnostics
/// still point into the text.
///
/// A `while` whose condition folds to a constant on every iteration (a counter made of
/// constants, at most 4096 iterations) is unrolled: iteration K of loop W is named
/// `W.iterK.NAME`, and the loop state flows from one iteration to the next element by element
/// (a get-tuple-element of a tuple is the element itself). A `conditional` whose selector is a
/// constant is its taken branch, named `COND.NAME`. Loops and conditionals that do not fold stay
/// as they are. Once control flow is flattened, instructions nothing reads are dropped. Tuples
/// are kept apart wherever they are built: an element taken from a tuple (nested ones too) is
/// that element, a copy of a tuple is the tuple, and an ENTRY parameter that is a tuple of
/// arrays becomes one parameter per element (`P.I`, numbered in its place, with its element's
/// sharding).
///
/// nullopt when the ENTRY has nothing to inline or forward (or calls are nested deeper than 64,
/// or a body has a cycle: then it is left as it is).
///
///   // ENTRY { p = f32[2] parameter(0)  ROOT c = f32[2] call(p), to_apply=f }
///   // f { x = f32[2] parameter(0)  ROOT e = f32[2] exponential(x) }
///   auto flat = inline_calls(m);
///   flat->entry()[flat->entry().root].name == "c.e";   // exponential(p)
std::optional<Module> inline_calls(const Module& m);

}  // namespace scalify::ir
