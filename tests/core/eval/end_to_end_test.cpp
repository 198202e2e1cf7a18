// End to end: whole modules copied from ../shared/corpus, evaluated on random inputs and
// checked against what they compute, written out independently.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "core/eval/eval_test_support.h"
#include "eval/random_values.h"

using namespace scalify;
using namespace scalify::eval;
using namespace scalify::eval::testing;

namespace {

// ../shared/corpus/xla/tests_extracted/spmdtest_GatherParallelDim.hlo, verbatim: from openxla/xla
// (Apache-2.0), xla/service/spmd/spmd_partitioner_test.cc, test
// SpmdPartitioningTest.GatherParallelDimRedistributionOperand (see the corpus's MANIFEST.json).
// The indices are (iota over dim 2, iota over dim 1) mapped to operand dims (1, 0): element
// (i, j) gathers the 2x2 window operand[i, j, :, :], so the result equals the operand.
const char* const kGatherParallelDim = R"hlo(HloModule module

ENTRY %module {
  %parameter.0 = s32[8,4,2,2]{3,2,1,0} parameter(0),
    sharding={devices=[4,2,1,1]<=[8]}
  %constant = s32[4] constant({0, 1, 2, 3}), sharding={replicated}
  %iota = s32[1,8,4]{2,1,0} broadcast(%constant), dimensions={2},
    sharding={devices=[1,8,1]<=[8]}
  %iota2 = s32[1,8,4]{2,1,0} iota(), iota_dimension=1,
    sharding={devices=[1,8,1]<=[8]}
  %concatenate.19 = s32[2,8,4]{2,1,0} concatenate(s32[1,8,4]{2,1,0} %iota,
    s32[1,8,4]{2,1,0} %iota2), dimensions={0},
    sharding={devices=[1,8,1]<=[8]}
  ROOT %gather.20 = s32[8,4,2,2]{3,2,1,0} gather(
    s32[8,4,2,2]{3,2,1,0} %parameter.0,
    s32[2,8,4]{2,1,0} %concatenate.19), offset_dims={2,3},
    collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=0,
    slice_sizes={1,1,2,2}, sharding={replicated}
}
)hlo";

// ../shared/corpus/neuron_torchxla/linear3_fwd_single.hlo with its metadata={…} and
// frontend_attributes={…} removed: from kahfizulkifli/GraphHelper (Apache-2.0),
// src/HLO/pbtxt/misc/linear.js. A 3-layer linear model's forward pass, torch-xla on AWS Neuron;
// its custom calls are AwsNeuronTransferWithStaticRing (an identity).
const char* const kLinear3 = R"hlo(HloModule SyncTensorsGraph.75

%scalar_add_computation (scalar_lhs: f32[], scalar_rhs: f32[]) -> f32[] {
  %scalar_lhs = f32[] parameter(0)
  %scalar_rhs = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %scalar_lhs, f32[] %scalar_rhs)
}

ENTRY %SyncTensorsGraph.75 (p0.1: f32[1], p1.9: f32[1,1], p2.18: f32[1], p3.26: f32[1,5], p4.35: f32[5], p5.43: f32[5,10], p6.52: f32[10,10]) -> (f32[10,1]) {
  %p6.52 = f32[10,10]{1,0} parameter(6)
  %p5.43 = f32[5,10]{1,0} parameter(5)
  %custom-call.7 = f32[5,10]{1,0} custom-call(f32[5,10]{1,0} %p5.43), custom_call_target="AwsNeuronTransferWithStaticRing", api_version=API_VERSION_UNSPECIFIED
  %transpose.51 = f32[10,5]{0,1} transpose(f32[5,10]{1,0} %custom-call.7), dimensions={1,0}
  %dot.53 = f32[10,5]{1,0} dot(f32[10,10]{1,0} %p6.52, f32[10,5]{0,1} %transpose.51), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %p4.35 = f32[5]{0} parameter(4)
  %custom-call.8 = f32[5]{0} custom-call(f32[5]{0} %p4.35), custom_call_target="AwsNeuronTransferWithStaticRing", api_version=API_VERSION_UNSPECIFIED
  %broadcast.57 = f32[10,5]{1,0} broadcast(f32[5]{0} %custom-call.8), dimensions={1}
  %add.58 = f32[10,5]{1,0} add(f32[10,5]{1,0} %dot.53, f32[10,5]{1,0} %broadcast.57)
  %constant.59 = f32[] constant(0)
  %broadcast.60 = f32[10,5]{1,0} broadcast(f32[] %constant.59), dimensions={}
  %maximum.61 = f32[10,5]{1,0} maximum(f32[10,5]{1,0} %add.58, f32[10,5]{1,0} %broadcast.60)
  %p3.26 = f32[1,5]{1,0} parameter(3)
  %custom-call.9 = f32[1,5]{1,0} custom-call(f32[1,5]{1,0} %p3.26), custom_call_target="AwsNeuronTransferWithStaticRing", api_version=API_VERSION_UNSPECIFIED
  %reshape.3 = f32[5]{0} reshape(f32[1,5]{1,0} %custom-call.9)
  %broadcast.3 = f32[10,5]{1,0} broadcast(f32[5]{0} %reshape.3), dimensions={1}
  %multiply = f32[10,5]{1,0} multiply(f32[10,5]{1,0} %maximum.61, f32[10,5]{1,0} %broadcast.3)
  %constant = f32[] constant(0)
  %reduce = f32[10]{0} reduce(f32[10,5]{1,0} %multiply, f32[] %constant), dimensions={1}, to_apply=%scalar_add_computation
  %p2.18 = f32[1]{0} parameter(2)
  %custom-call.10 = f32[1]{0} custom-call(f32[1]{0} %p2.18), custom_call_target="AwsNeuronTransferWithStaticRing", api_version=API_VERSION_UNSPECIFIED
  %reshape.7 = f32[] reshape(f32[1]{0} %custom-call.10)
  %broadcast.5 = f32[10]{0} broadcast(f32[] %reshape.7), dimensions={}
  %add.1 = f32[10]{0} add(f32[10]{0} %reduce, f32[10]{0} %broadcast.5)
  %p1.9 = f32[1,1]{1,0} parameter(1)
  %custom-call.11 = f32[1,1]{1,0} custom-call(f32[1,1]{1,0} %p1.9), custom_call_target="AwsNeuronTransferWithStaticRing", api_version=API_VERSION_UNSPECIFIED
  %reshape.10 = f32[] reshape(f32[1,1]{1,0} %custom-call.11)
  %broadcast.11 = f32[10]{0} broadcast(f32[] %reshape.10), dimensions={}
  %multiply.3 = f32[10]{0} multiply(f32[10]{0} %add.1, f32[10]{0} %broadcast.11)
  %p0.1 = f32[1]{0} parameter(0)
  %custom-call.13 = f32[1]{0} custom-call(f32[1]{0} %p0.1), custom_call_target="AwsNeuronTransferWithStaticRing", api_version=API_VERSION_UNSPECIFIED
  %reshape.14 = f32[] reshape(f32[1]{0} %custom-call.13)
  %broadcast.15 = f32[10]{0} broadcast(f32[] %reshape.14), dimensions={}
  %add.4 = f32[10]{0} add(f32[10]{0} %multiply.3, f32[10]{0} %broadcast.15)
  %reshape.47 = f32[10,1]{1,0} reshape(f32[10]{0} %add.4)
  ROOT %tuple.74 = (f32[10,1]{1,0}) tuple(f32[10,1]{1,0} %reshape.47)
}
)hlo";

}  // namespace

TEST_CASE("end to end: the corpus's GatherParallelDim gather returns its operand", "[eval]") {
  const ir::Module m = read(kGatherParallelDim);
  std::mt19937_64 rng(1);
  const std::vector<Value> args{random_value(m.entry()[m.entry().parameters()[0]].type, rng)};
  auto r = evaluate(m, m.entry_id, args);
  if (!r) FAIL(r.error().format());
  CHECK(*r == args[0]);
}

TEST_CASE("end to end: the corpus's linear3 forward pass against a hand-written one", "[eval]") {
  const ir::Module m = read(kLinear3);
  const ir::Computation& entry = m.entry();
  std::mt19937_64 rng(2);
  std::vector<Value> args;
  for (ir::InstrId p : entry.parameters()) args.push_back(random_value(entry[p].type, rng));
  auto r = evaluate(m, m.entry_id, args);
  if (!r) FAIL(r.error().format());

  // out[i] = (sum_j relu(sum_k p6[i,k] p5[j,k] + p4[j]) * p3[0,j] + p2) * p1 + p0
  auto at = [&](size_t arg, size_t i) { return args[arg].tensor().data[i]; };
  std::vector<double> want;
  for (size_t i = 0; i < 10; ++i) {
    double s = 0;
    for (size_t j = 0; j < 5; ++j) {
      double h = at(4, j);
      for (size_t k = 0; k < 10; ++k) h += at(6, i * 10 + k) * at(5, j * 10 + k);
      s += std::max(h, 0.0) * at(3, j);
    }
    want.push_back((s + at(2, 0)) * at(1, 0) + at(0, 0));
  }
  const Value expected = Value::tuple({Tensor{{10, 1}, want}});
  std::string why;
  const bool ok = all_close(*r, expected, 1e-12, 1e-12, &why);
  INFO(why);
  CHECK(ok);
}
