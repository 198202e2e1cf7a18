// Fitting an inferred mesh to what a distributed program's shardings say of it: the axes a
// single device count is made of (JAX's `Mesh(devices.reshape(2, 4), ('dp', 'tp'))` writes
// `num_partitions=8` and tiles `devices=[2,4]<=[8]`), and the order of the devices (a program
// partitioned over the device array 3, 2, 1, 0 holds block 0 of a `shard(…,tp)` on device 3,
// `devices=[4,1]3,2,1,0`, and gathers in the order 3, 2, 1, 0).
#pragma once

#include <string>

#include "ir/module.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// The mesh, of `mesh`'s device count, under which the most of `dist`'s tiled `sharding=`
/// annotations (counting twice: they say which device holds which block, where a collective may
/// be the very bug being looked for) and collectives' replica groups read as layouts and mesh
/// axes. Tried: `mesh` itself; `mesh` with the device order of each annotation's device list;
/// and, when `mesh` has one axis, the axes each annotation's tile grid is made of (major to minor
/// as its devices step, in the iota order; or row-major, in the order of its list). `mesh` unless
/// another fits strictly more. `why`, when given and another was chosen, says which annotation
/// gave it.
///
///   // dist: p = f32[2,4] parameter(0), sharding={devices=[4,1]3,2,1,0}
///   fit_mesh(tp=4, dist).to_string() == "tp=4 devices=[3,2,1,0]"
///   // dist: x = f32[2,2] parameter(0), sharding={devices=[2,4]<=[8]}
///   fit_mesh(tp=8, dist).to_string() == "dp=2,tp=4"
Mesh fit_mesh(const Mesh& mesh, const ir::Module& dist, std::string* why = nullptr);

}  // namespace scalify::verify
