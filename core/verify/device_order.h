// The order of the devices in a mesh, as a distributed program's shardings write it: a program
// partitioned over a device array other than 0, 1, 2, … (`devices=[4]3,2,1,0`, JAX's `Mesh` over
// a physical device order) holds block 0 of a `shard(…,tp)` on device 3, and gathers in the
// order 3, 2, 1, 0.
#pragma once

#include <string>

#include "ir/module.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// `mesh` (axes and sizes already known) with the device order under which the most of `dist`'s
/// tiled `sharding=` annotations and collectives' replica groups read as layouts and mesh axes;
/// the iota order unless another fits strictly more of them. Candidates are the device lists of
/// the annotations themselves. `why`, when given and the order is not iota, says where it came
/// from.
///
///   // dist: p = f32[2,4] parameter(0), sharding={devices=[4,1]3,2,1,0}
///   order_devices(tp=4, dist).to_string() == "tp=4 devices=[3,2,1,0]"
Mesh order_devices(const Mesh& mesh, const ir::Module& dist, std::string* why = nullptr);

}  // namespace scalify::verify
