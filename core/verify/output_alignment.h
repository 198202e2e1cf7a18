// Which distributed output stands for which reference output when the spec does not say:
// by position when every position fits, else by aligning the two output lists in order (a
// data-parallel program may drop an output, such as the labels it was given).
#pragma once

#include <vector>

#include "ir/module.h"
#include "verify/checker.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// Output bindings for the ENTRY roots of `ref` and `dist`: empty when position pairs every
/// output with one of the same element type whose shape fits (the checker's default); else one
/// binding per reference output, `dist_index` nullopt for those left without a counterpart.
///
///   // ref -> (f32[10], s64[32], f32[32,10]); dist -> (f32[10], f32[16,10]) on tp=2
///   infer_output_bindings(ref, dist, mesh) == {{0, 0}, {1, nullopt}, {2, 1}}
std::vector<OutputBinding> infer_output_bindings(const ir::Module& ref, const ir::Module& dist,
                                                 const Mesh& mesh);

}  // namespace scalify::verify
