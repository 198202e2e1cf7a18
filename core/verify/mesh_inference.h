// Mesh inference: the device mesh of a check when the user gave no `--mesh` (and no spec mesh).
#pragma once

#include <string>
#include <string_view>

#include "ir/module.h"
#include "support/expected.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// An inferred mesh and the evidence, in words.
struct InferredMesh {
  Mesh mesh;
  std::string why;  ///< "tp=2: the replica groups of all-reduce.115 ({{0,1}})"
};

/// Infers the mesh of `dist` against `ref`, from the first of these that says anything:
///  1. the header: `num_partitions=P` and/or `replica_count=N` above 1 give `tp=P` (or `tp=N`),
///     both give `dp=N,tp=P`;
///  2. the replica groups (explicit or iota) and source-target pairs of the collectives
///     (all-reduce, all-gather, reduce-scatter, all-to-all, collective-permute, their -start
///     forms, in every computation): n devices (the largest id + 1) in groups of at most g gives
///     `tp=n`, or `dp=n/g,tp=g` when every collective's groups then lie along mesh axes;
///  3. the largest device list of a `sharding=` annotation: `tp=n`;
///  4. shape ratios between the parameters (paired as infer_bijection pairs them, ignoring the
///     mesh): the smallest whole ratio ref dim / dist dim that every sharded dim fits into
///     (`dist × n >= ref`, so padded shards count too): `tp=n`;
///  5. otherwise one device: the empty mesh (no axes, device_count() 1), which makes every
///     layout `rep` (the refactoring check).
/// The mesh found so is then fitted to DIST's tiled annotations and replica groups (fit_mesh in
/// mesh_fitting.h): a single axis may become the axes a tiling is made of (`num_partitions=8`
/// with `devices=[2,4]<=[8]`: `dp=2,tp=4`), and the devices may take an annotation's order.
/// A single axis is otherwise always named `tp` (the checker's proofs do not depend on the name;
/// give
/// `--mesh dp=2` for other names). Errors: a collective naming a device beyond the header's
/// device count, labelled with `dist_file` and the instruction's position.
///
///   auto m = infer_mesh(*ref, *dist);   // llama7b_1layer_decode_tp8: tp=8
///   if (!m) std::cerr << m.error().format(); else std::cout << m->to_string();
Expected<InferredMesh> infer_mesh_explained(const ir::Module& ref, const ir::Module& dist,
                                            std::string_view dist_file = "<dist>");

/// infer_mesh_explained without the words.
Expected<Mesh> infer_mesh(const ir::Module& ref, const ir::Module& dist,
                          std::string_view dist_file = "<dist>");

}  // namespace scalify::verify
