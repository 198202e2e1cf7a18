// Mesh inference and bijection inference, on the corpus pairs and on small programs.
#include "verify/bijection.h"

#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "test_support.h"
#include "verify/mesh_inference.h"
#include "verify/spec.h"

using namespace scalify;
using namespace scalify::verify;
using Source = BijectionCandidate::Source;

namespace {

ir::Module corpus(const std::string& name) {
  const std::string path = test::corpus_dir() + "/neuron_torchxla/" + name + ".hlo";
  auto m = hlo::read_module_file(path);
  INFO(path << '\n' << (m ? std::string() : m.error().format()));
  REQUIRE(m.has_value());
  return std::move(*m);
}

ir::Module module(const std::string& text) {
  auto m = hlo::read_module(text, "test.hlo");
  INFO((m ? "" : m.error().format()));
  REQUIRE(m.has_value());
  return std::move(*m);
}

/// One corpus pair with its inferred mesh and bijection.
struct Pair {
  ir::Module ref, dist;
  Mesh mesh;
  BijectionCandidates b;

  Pair(const std::string& ref_name, const std::string& dist_name)
      : ref(corpus(ref_name)), dist(corpus(dist_name)) {
    auto m = infer_mesh(ref, dist);
    INFO((m ? "" : m.error().format()));
    REQUIRE(m.has_value());
    mesh = *m;
    b = infer_bijection(ref, dist, mesh, nullptr);
  }
  const ParameterCandidates& param(int64_t number) const {
    const ParameterCandidates* p = b.find(number);
    REQUIRE(p != nullptr);
    return *p;
  }
  /// "REF LAYOUT" of candidate `i` of dist parameter `number`, or "" when there is none.
  std::string candidate(int64_t number, size_t i = 0) const {
    const ParameterCandidates& p = param(number);
    if (i >= p.candidates.size()) return "";
    const BijectionCandidate& c = p.candidates[i];
    return (c.ref ? ref.entry()[*c.ref].name : std::string("none")) + " " +
           c.layout.to_string(mesh);
  }
  std::vector<std::string> unmatched_dist() const {
    std::vector<std::string> out;
    for (const UnmatchedParameter& u : b.unmatched_dist) out.push_back(u.name);
    return out;
  }
  std::vector<std::string> unmatched_ref() const {
    std::vector<std::string> out;
    for (const UnmatchedParameter& u : b.unmatched_ref) out.push_back(u.name);
    return out;
  }
};

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("bijection: llama7b tp2 and tp8", "[verify]") {
  const Pair tp2("llama7b_1layer_decode_tp1", "llama7b_1layer_decode_tp2");
  CHECK(tp2.mesh.to_string() == "tp=2");
  CHECK(tp2.b.parameters.size() == 17);
  CHECK(tp2.candidate(7) == "p7.28 shard(1,tp)");  // f32[4096,2048] of f32[4096,4096]
  CHECK(tp2.param(7).candidates.size() == 1);
  CHECK(tp2.param(7).best()->source == Source::kShape);
  CHECK(tp2.param(7).best()->why == "same position and name; dim 1: 2048 × tp 2 = 4096");
  CHECK(tp2.candidate(4) == "p4.25 shard(2,tp)");  // the KV cache's heads
  CHECK(tp2.candidate(12) == "p12.33 shard(1,tp)");
  CHECK(tp2.candidate(16) == "p16.38 shard(1,tp)");  // lm_head: vocab-sharded
  CHECK(tp2.candidate(3) == "p3.4 rep");
  CHECK(tp2.param(3).candidates.size() == 1);  // an integer: no partial sum
  CHECK(tp2.candidate(6) == "p6.27 rep");
  CHECK(tp2.candidate(6, 1) == "p6.27 partial(sum,tp)");
  CHECK(tp2.unmatched_dist().empty());
  CHECK(tp2.unmatched_ref().empty());

  const Pair tp8("llama7b_1layer_decode_tp1", "llama7b_1layer_decode_tp8");
  CHECK(tp8.mesh.to_string() == "tp=8");
  CHECK(tp8.candidate(12) == "p12.33 shard(1,tp)");  // 1376 × 8 = 11008
  // 4 heads on 8 ranks: 8 head slots, the last 4 padding.
  CHECK(tp8.candidate(7) == "p7.28 shard(1,tp,pad 4096)");
  CHECK(tp8.candidate(4) == "p4.25 shard(2,tp,pad 4)");
  CHECK(tp8.param(4).best()->why ==
        "same position and name; dim 2: 1 × tp 8 = 8 padded (reference 4)");
  CHECK(tp8.unmatched_dist().empty());
}

TEST_CASE("bijection: gpt2 tp2, biases as partial sums ranked second", "[verify]") {
  const Pair p("gpt2_decode_tp1", "gpt2_decode_tp2");
  CHECK(p.mesh.to_string() == "tp=2");
  for (int64_t bias : {16, 22}) {
    const ParameterCandidates& pc = p.param(bias);
    REQUIRE(pc.candidates.size() == 3);
    CHECK(pc.candidates[0].layout.is_rep());
    CHECK(pc.candidates[0].contract.empty());
    CHECK(pc.candidates[1].layout.to_string(p.mesh) == "partial(sum,tp)");
    // Third, each rank's own part of a mean (an accumulator of local means).
    CHECK(pc.candidates[2].layout.to_string(p.mesh) == "partial(mean,tp)");
    CHECK_THAT(pc.candidates[2].contract, Catch::Contains("must average to the reference's"));
    CHECK(pc.candidates[1].source == Source::kContract);
    CHECK(pc.candidates[1].why.find("only one rank may hold it") != std::string::npos);
    CHECK(pc.candidates[1].contract.find("must be held by one rank of tp only") !=
          std::string::npos);
  }
  CHECK(p.candidate(16) == "p16.30 rep");
  CHECK(p.candidate(16, 1) == "p16.30 partial(sum,tp)");
  CHECK(p.candidate(25) == "p25.40 shard(1,tp,pad 50257)");  // 2 × 25129 = 50258
  CHECK(p.candidate(9) == "p9.23 shard(1,tp)");
  CHECK(p.candidate(10) == "p10.24 shard(0,tp)");
  CHECK(p.candidate(5) == "p5.19 shard(2,tp)");
  CHECK(p.unmatched_dist().empty());
  CHECK(p.unmatched_ref().empty());
}

TEST_CASE("bijection: mnist data parallel, batch inputs sharded on dim 0", "[verify]") {
  const Pair p("mnist_mlp_train_single", "mnist_mlp_train_dp");
  CHECK(p.mesh.to_string() == "tp=2");          // from the shapes: the all-reduce's groups are {}
  CHECK(p.candidate(0) == "p0.1 rep");          // the learning rate
  CHECK(p.candidate(2) == "p1.6 shard(0,tp)");  // labels s64[16] of s64[32]
  CHECK(p.param(2).best()->why ==
        "matched in order by shape (reference parameter 1); dim 0: 16 × tp 2 = 32");
  CHECK(p.candidate(3) == "p2.7 rep");
  CHECK(p.candidate(4) == "p3.15 rep");
  // The scale of the gradient all-reduce has no counterpart.
  CHECK(p.unmatched_dist() == Names{"p1.6"});
  CHECK(p.b.unmatched_dist[0].why == "'p0.1' (f32[]) would fit, but stands for 'p0.1'");
  // The images come reshaped: f32[16,1,28,28] is the batch shard of f32[32,784] read as
  // f32[32,1,28,28] (the only split that keeps each rank's rows contiguous).
  CHECK(p.unmatched_ref().empty());
  REQUIRE(p.param(5).candidates.size() == 1);
  const BijectionCandidate& images = p.param(5).candidates[0];
  CHECK(p.candidate(5) == "p4.24 shard(0,tp)");
  CHECK(images.reshape == std::vector<int64_t>{32, 1, 28, 28});
  CHECK_THAT(images.why, Catch::Contains("read as f32[32,1,28,28] (a reshape of f32[32,784])"));
}

TEST_CASE("bijection: linear3 megatron, from sharding annotations with padding", "[verify]") {
  const Pair p("linear3_fwd_single", "linear3_fwd_spmd_megatron");
  CHECK(p.mesh.to_string() == "tp=2");
  // param.1 f32[3,10] sharding={devices=[2,1]0,1} of f32[5,10]: 2 × 3 = 6 > 5.
  CHECK(p.candidate(5) == "p5.43 shard(0,tp,pad 5)");
  CHECK(p.param(5).best()->source == Source::kSharding);
  CHECK(p.param(5).candidates.size() == 1);
  CHECK(p.candidate(3) == "p3.26 shard(1,tp,pad 5)");
  CHECK(p.candidate(6) == "p6.52 rep");
  CHECK(p.param(6).candidates.size() == 1);  // {replicated}: no partial sum
  CHECK(p.candidate(0) == "p0.1 rep");
  CHECK(p.unmatched_dist().empty());
  CHECK(p.unmatched_ref().empty());
}

TEST_CASE("bijection: bert tp2, an extra parameter shifts the positions", "[verify]") {
  const Pair p("bert_pretrain_fwdbwd_tp1", "bert_pretrain_fwdbwd_tp2");
  CHECK(p.mesh.to_string() == "tp=2");
  CHECK(p.candidate(17) == "p17.295 rep");
  CHECK(p.candidate(19) == "p18.297 shard(1,tp)");  // f32[16,8] of f32[16,16]
  CHECK(p.candidate(20) == "p19.304 shard(0,tp)");
  CHECK(p.candidate(21) == "p20.306 shard(0,tp)");
  CHECK(p.candidate(24) == "p23.374 rep");
  CHECK(p.candidate(28) == "p27.401 shard(0,tp)");
  CHECK(p.candidate(41) == "p40.862 rep");
  CHECK(p.candidate(42) == "p41.1265 rep");
  // The extra scalar (torch_xla's all-reduce scale) is reported, not matched.
  CHECK(p.unmatched_dist() == Names{"p18.297"});
  CHECK(p.unmatched_ref().empty());
}

TEST_CASE("bijection: a program against itself is one device, all rep", "[verify]") {
  const Pair p("gpt2_decode_tp1", "gpt2_decode_tp1");
  CHECK(p.mesh.rank() == 0);
  CHECK(p.mesh.device_count() == 1);
  for (const ParameterCandidates& pc : p.b.parameters) {
    REQUIRE(pc.candidates.size() == 1);
    CHECK(pc.candidates[0].layout.is_rep());
    CHECK(p.ref.entry()[*pc.candidates[0].ref].name == p.dist.entry()[pc.dist].name);
  }
}

TEST_CASE("mesh inference: header, collectives, shardings, shapes, one device", "[verify]") {
  const ir::Module ref = module(R"(HloModule r
ENTRY e {
  ROOT x = f32[8,4] parameter(0)
}
)");
  const auto inferred = [&](const std::string& dist_text) {
    const ir::Module dist = module(dist_text);
    auto m = infer_mesh_explained(ref, dist, "d.hlo");
    INFO((m ? "" : m.error().format()));
    REQUIRE(m.has_value());
    return m->mesh.to_string() + " | " + m->why;
  };
  CHECK(
      inferred("HloModule d, num_partitions=4\nENTRY e {\n  ROOT x = f32[8,1] parameter(0)\n}\n") ==
      "tp=4 | tp=4: num_partitions=4 in the header");
  CHECK(inferred("HloModule d, replica_count=2, num_partitions=4\nENTRY e {\n  ROOT x = f32[8,1] "
                 "parameter(0)\n}\n") ==
        "dp=2,tp=4 | dp=2,tp=4: replica_count=2 and num_partitions=4 in the header");
  CHECK(inferred(R"(HloModule d
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT r = f32[8,4] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add
}
)") == "dp=2,tp=2 | dp=2,tp=2: the replica groups of r ({{0,1},{2,3}}), over 4 devices");
  CHECK(inferred(R"(HloModule d
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT r = f32[8,4] all-reduce(x), replica_groups=[1,8]<=[8], to_apply=add
}
)") == "tp=8 | tp=8: the replica groups of r ([1,8]<=[8])");
  CHECK(inferred(R"(HloModule d
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT r = f32[8,4] collective-permute(x), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
}
)") == "tp=4 | tp=4: the replica groups of r (source_target_pairs)");
  CHECK(inferred("HloModule d\nENTRY e {\n  ROOT x = f32[8,2] parameter(0), "
                 "sharding={devices=[1,2]0,1}\n}\n") ==
        "tp=2 | tp=2: the devices of x (sharding={devices=[1,2]0,1})");
  CHECK(inferred("HloModule d\nENTRY e {\n  ROOT x = f32[2,4] parameter(0)\n}\n") ==
        "tp=4 | tp=4: parameter shapes, e.g. x f32[2,4] against x f32[8,4]");
  CHECK(inferred("HloModule d\nENTRY e {\n  ROOT x = f32[8,4] parameter(0)\n}\n") ==
        "(one device) | one device: no partitions, collectives, shardings or shape ratios say "
        "otherwise");
  // A program the partitioner has not run on (JAX's before_optimizations dump): annotated as
  // split, the parameter still has the reference's shape, and nothing communicates. Its header
  // names the devices it is meant for; it is still one device's program.
  const std::string unpartitioned =
      "(one device) | one device: DIST is not partitioned yet (x f32[8,4] is annotated "
      "sharding={devices=[4,1]0,1,2,3} but has the shape of reference parameter x); its values "
      "are whole arrays, its annotations requests";
  CHECK(inferred("HloModule d, num_partitions=4\nENTRY e {\n  ROOT x = f32[8,4] parameter(0), "
                 "sharding={devices=[4,1]0,1,2,3}\n}\n") == unpartitioned);
  CHECK(inferred("HloModule d\nENTRY e {\n  ROOT x = f32[8,4] parameter(0), "
                 "sharding={devices=[4,1]0,1,2,3}\n}\n") == unpartitioned);
  // Split in its shape: partitioned (the header's devices).
  CHECK(inferred("HloModule d, num_partitions=4\nENTRY e {\n  ROOT x = f32[2,4] parameter(0), "
                 "sharding={devices=[4,1]0,1,2,3}\n}\n") ==
        "tp=4 | tp=4: num_partitions=4 in the header");
  // A dim of 4 split over 8 devices leaves padded shards of 1: kept whole, it is not split; cut
  // to 1, it is.
  CHECK_THAT(inferred("HloModule d, num_partitions=8\nENTRY e {\n  ROOT x = f32[8,4] "
                      "parameter(0), sharding={devices=[1,8]<=[8]}\n}\n"),
             Catch::StartsWith("(one device) | one device: DIST is not partitioned yet"));
  CHECK(inferred("HloModule d, num_partitions=8\nENTRY e {\n  ROOT x = f32[8,1] parameter(0), "
                 "sharding={devices=[1,8]<=[8]}\n}\n") ==
        "tp=8 | tp=8: num_partitions=8 in the header");

  // A collective beyond the header's devices is an error at its position.
  const ir::Module bad = module(R"(HloModule d, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT r = f32[8,4] all-reduce(x), replica_groups={{0,1,2,3}}, to_apply=add
}
)");
  const auto m = infer_mesh(ref, bad, "d.hlo");
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error().file == "d.hlo");
  CHECK(m.error().pos.line == 9);
  CHECK(m.error().message == "r names device 3, but the header gives 2 devices");
}

TEST_CASE("mesh inference: shape ratios take the smallest ratio every shard fits", "[verify]") {
  // q: 4096 / 1024 = 4 (4 heads padded to 8 slots), mlp: 11008 / 1376 = 8: the mesh is 8.
  const ir::Module ref = module(R"(HloModule r
ENTRY e {
  q = f32[64,4096] parameter(0)
  m = f32[64,11008] parameter(1)
  ROOT t = (f32[64,4096], f32[64,11008]) tuple(q, m)
}
)");
  const ir::Module dist = module(R"(HloModule d
ENTRY e {
  q = f32[64,1024] parameter(0)
  m = f32[64,1376] parameter(1)
  ROOT t = (f32[64,1024], f32[64,1376]) tuple(q, m)
}
)");
  CHECK(infer_mesh(ref, dist)->to_string() == "tp=8");
}

TEST_CASE("shape_layouts: exact first, padding only when nothing is exact", "[verify]") {
  const Mesh tp2 = *Mesh::parse("tp=2");
  const auto texts = [](const std::vector<Layout>& ls, const Mesh& m) {
    std::vector<std::string> out;
    for (const Layout& l : ls) out.push_back(l.to_string(m));
    return out;
  };
  CHECK(texts(shape_layouts({4096, 2048}, {4096, 4096}, tp2), tp2) == Names{"shard(1,tp)"});
  CHECK(texts(shape_layouts({768, 25129}, {768, 50257}, tp2), tp2) ==
        Names{"shard(1,tp,pad 50257)"});
  CHECK(texts(shape_layouts({8}, {8}, tp2), tp2) == Names{"rep"});
  CHECK(shape_layouts({8}, {32}, tp2).empty());  // 8 × 2 < 32
  CHECK(shape_layouts({9}, {8}, tp2).empty());
  CHECK(shape_layouts({4, 4}, {8}, tp2).empty());
  CHECK(shape_layouts({4}, {8}, Mesh()).empty());  // one device: equal dims only
  const Mesh m = *Mesh::parse("dp=2,tp=4");
  CHECK(texts(shape_layouts({16, 8}, {32, 32}, m), m) == Names{"shard(0,dp)+shard(1,tp)"});
  CHECK(texts(shape_layouts({4}, {32}, m), m) == Names{"shard(0,dp)+shard(0,tp)"});
  CHECK(texts(shape_layouts({8}, {16}, m), m) == Names{"shard(0,dp)"});
  CHECK(texts(shape_layouts({8, 8}, {16, 16}, *Mesh::parse("a=2,b=2")), *Mesh::parse("a=2,b=2")) ==
        Names{"shard(0,a)+shard(1,b)", "shard(1,a)+shard(0,b)"});
  // Padding: minimal (ceil) before more, and a 4-of-8-slots split.
  CHECK(texts(shape_layouts({1}, {4}, *Mesh::parse("tp=8")), *Mesh::parse("tp=8")) ==
        Names{"shard(0,tp,pad 4)"});
}

TEST_CASE("layout_from_sharding maps tile dims onto mesh axes", "[verify]") {
  const Mesh m = *Mesh::parse("dp=2,tp=2");
  const auto tiled = [](std::vector<int64_t> tiles, std::vector<int64_t> devices,
                        bool replicate_last = false) {
    ir::Sharding s;
    s.kind = ir::Sharding::Kind::kTiled;
    s.tile_dims = std::move(tiles);
    s.devices = std::move(devices);
    s.last_tile_dim_replicate = replicate_last;
    return s;
  };
  const auto text = [&](const ir::Sharding& s, int64_t rank, const Mesh& mesh) {
    std::string why;
    const auto l = layout_from_sharding(s, rank, mesh, &why);
    return l ? l->to_string(mesh) : "no: " + why;
  };
  CHECK(text(tiled({2, 2}, {0, 1, 2, 3}), 2, m) == "shard(0,dp)+shard(1,tp)");
  CHECK(text(tiled({2, 2}, {0, 2, 1, 3}), 2, m) == "shard(1,dp)+shard(0,tp)");
  CHECK(text(tiled({2, 1, 2}, {0, 1, 2, 3}, true), 2, m) == "shard(0,dp)");
  CHECK(text(tiled({1, 2, 2}, {0, 1, 2, 3}, true), 2, m) == "shard(1,dp)");
  CHECK(text(tiled({1, 2, 2}, {0, 2, 1, 3}, true), 2, m) == "shard(1,tp)");
  CHECK(text(tiled({4, 1}, {0, 1, 2, 3}), 2, m) == "shard(0,dp)+shard(0,tp)");
  CHECK(text(tiled({4}, {0, 2, 1, 3}), 1, m) == "no: its device order is not the mesh's");
  CHECK(text(tiled({2, 1}, {0, 1}), 2, m) == "no: 2 devices, but the mesh dp=2,tp=2 has 4");
  CHECK(text(tiled({2, 2}, {0, 1, 2, 3}), 1, m) == "no: 2 tile dims for a value of rank 1");
  CHECK(text(tiled({2, 2}, {0, 1, 1, 3}), 2, m) ==
        "no: the device list is not a permutation of the mesh's devices");
  ir::Sharding maximal;
  maximal.kind = ir::Sharding::Kind::kMaximal;
  CHECK(text(maximal, 2, m) == "no: not tiled or replicated");
  CHECK(text(ir::Sharding{}, 2, m) == "rep");
}

TEST_CASE("align_parameters: in order, no crossings, best total", "[verify]") {
  // ref: A B C, dist: A X B C (X fits nothing).
  const std::vector<char> ref = {'A', 'B', 'C'}, dist = {'A', 'X', 'B', 'C'};
  const auto score = [&](size_t r, size_t d) -> std::optional<int> {
    if (ref[r] != dist[d]) return std::nullopt;
    return 10;
  };
  CHECK(align_parameters(3, 4, score) == std::vector<int>{0, -1, 1, 2});
  CHECK(align_parameters(4, 3, [&](size_t r, size_t d) { return score(d, r); }) ==
        std::vector<int>{0, 2, 3});
  // Equal counts where every position fits: by position.
  CHECK(align_parameters(3, 3, [](size_t, size_t) { return 1; }) == std::vector<int>{0, 1, 2});
  CHECK(align_parameters(0, 2, score) == std::vector<int>{-1, -1});
}

TEST_CASE("bijection: permuted dims are a lower-ranked candidate", "[verify]") {
  const ir::Module ref = module(R"(HloModule r
ENTRY e {
  h = f32[2,8,16] parameter(0)
  ROOT n = f32[2,8,16] negate(h)
}
)");
  const ir::Module dist = module(R"(HloModule d
ENTRY e {
  h = f32[16,8,2] parameter(0)
  ROOT n = f32[16,8,2] negate(h)
}
)");
  // One device: the hidden state in HSB instead of BSH.
  const BijectionCandidates b = infer_bijection(ref, dist, Mesh(), nullptr);
  REQUIRE(b.parameters.size() == 1);
  REQUIRE(b.parameters[0].candidates.size() == 1);
  const BijectionCandidate& c = b.parameters[0].candidates[0];
  CHECK(c.source == Source::kPermuted);
  CHECK(c.permutation == std::vector<int64_t>{2, 1, 0});
  CHECK(c.layout.is_rep());
  CHECK(c.why ==
        "same position and name; dims permuted {2,1,0} against f32[2,8,16]; same shape "
        "f32[16,8,2]");
  CHECK(b.unmatched_dist.empty());

  // Over tp=2, a transposed shard: dist f32[8,8] of transpose(f32[16,8]) = f32[8,16].
  const ir::Module ref2 = module("HloModule r\nENTRY e {\n  ROOT w = f32[16,8] parameter(0)\n}\n");
  const ir::Module dist2 = module("HloModule d\nENTRY e {\n  ROOT w = f32[4,16] parameter(0)\n}\n");
  const Mesh tp2 = *Mesh::parse("tp=2");
  const BijectionCandidates b2 = infer_bijection(ref2, dist2, tp2, nullptr);
  REQUIRE(b2.parameters[0].candidates.size() == 1);
  CHECK(b2.parameters[0].candidates[0].permutation == std::vector<int64_t>{1, 0});
  CHECK(b2.parameters[0].candidates[0].layout.to_string(tp2) == "shard(0,tp)");
}

TEST_CASE("bijection: the spec overrides, and names what it leaves out", "[verify]") {
  const Pair p("gpt2_decode_tp1", "gpt2_decode_tp2");
  const std::string text = R"j({"mesh": {"tp": 2},
 "parameters": [{"dist": "p16.30", "ref": "p16.30", "layout": "partial(sum,tp)"},
                {"dist": 22, "ref": 22},
                {"dist": "p3.4", "ref": null},
                {"dist": 25, "layout": "shard", "dim": 1, "axis": "tp", "pad": 50257},
                {"dist": "p7.21", "ref": "p8.22"},
                {"dist": "p8.22", "ref": "p7.21", "layout": "rep"}]})j";
  const auto spec = parse_spec(text, "spec.json");
  INFO((spec ? "" : spec.error().format()));
  REQUIRE(spec.has_value());
  REQUIRE_FALSE(check_spec(*spec, p.ref, p.dist, p.mesh).has_value());
  const BijectionCandidates b = infer_bijection(p.ref, p.dist, p.mesh, &*spec);
  CHECK(b.spec_errors.empty());
  const auto& R = p.ref.entry();
  const auto top = [&](int64_t n, size_t i = 0) {
    const ParameterCandidates* pc = b.find(n);
    REQUIRE(pc != nullptr);
    if (i >= pc->candidates.size()) return std::string();
    const BijectionCandidate& c = pc->candidates[i];
    return (c.ref ? R[*c.ref].name : std::string("none")) + " " + c.layout.to_string(p.mesh);
  };
  // A stated layout is the only candidate.
  CHECK(top(16) == "p16.30 partial(sum,tp)");
  CHECK(b.find(16)->candidates.size() == 1);
  CHECK(b.find(16)->best()->source == Source::kSpec);
  CHECK(b.find(16)->best()->why.rfind("the spec (spec.json:2:17) says so", 0) == 0);
  // A stated ref alone: the layouts are inferred for it.
  CHECK(top(22) == "p22.36 rep");
  CHECK(top(22, 1) == "p22.36 partial(sum,tp)");
  // "ref": null: no counterpart, said by name.
  CHECK(top(3) == "none rep");
  REQUIRE(b.unmatched_dist.size() == 1);
  CHECK(b.unmatched_dist[0].name == "p3.4");
  CHECK(b.unmatched_dist[0].why ==
        "the spec (spec.json:4:17) says it has no reference counterpart");
  // The ref p3.4 is left without a counterpart.
  REQUIRE(b.unmatched_ref.size() == 1);
  CHECK(b.unmatched_ref[0].name == "p3.4");
  // A stated layout alone: the ref is the aligned one.
  CHECK(top(25) == "p25.40 shard(1,tp,pad 50257)");
  // Crossed pairs, as stated.
  CHECK(top(7) == "p8.22 rep");
  CHECK(top(8) == "p7.21 rep");
  // Parameters the spec does not mention are inferred as usual.
  CHECK(top(9) == "p9.23 shard(1,tp)");
}

TEST_CASE("bijection: spec entries that cannot be used are reported", "[verify]") {
  const Pair p("gpt2_decode_tp1", "gpt2_decode_tp2");
  const std::string text = R"j({"mesh": {"tp": 2},
 "parameters": [{"dist": "p99", "ref": "p9.23"},
                {"dist": 9, "ref": "nope"},
                {"dist": 10, "ref": 10, "layout": "rep"},
                {"dist": 11, "ref": 3}]})j";
  const auto spec = parse_spec(text, "spec.json");
  REQUIRE(spec.has_value());
  // check_spec stops at the first problem ...
  const auto first = check_spec(*spec, p.ref, p.dist, p.mesh);
  REQUIRE(first.has_value());
  CHECK(first->pos == SourcePos{2, 26});
  // ... infer_bijection reports every one and goes on.
  const BijectionCandidates b = infer_bijection(p.ref, p.dist, p.mesh, &*spec);
  REQUIRE(b.spec_errors.size() == 4);
  CHECK(b.spec_errors[0].message == "the distributed program has no parameter 'p99'");
  CHECK(b.spec_errors[1].message == "the reference program has no parameter 'nope'");
  CHECK(b.spec_errors[1].pos == SourcePos{3, 36});
  CHECK(b.spec_errors[2].message ==
        "layout rep cannot relate 'p10.24' to 'p10.24': the layout makes f32[384] a f32[384], "
        "not f32[768]");
  CHECK(b.spec_errors[2].pos == SourcePos{4, 51});
  CHECK(b.spec_errors[3].message ==
        "'p11.25' (f32[768,384]): no layout relates it to 'p3.4' (s32[])");
  // The unusable entries leave their parameters unmatched (10, 11) or inferred (9).
  CHECK(b.find(9)->best() != nullptr);
  CHECK(b.find(10)->candidates.empty());
  CHECK(b.find(11)->candidates.empty());
  Names unmatched;
  for (const UnmatchedParameter& u : b.unmatched_dist) unmatched.push_back(u.name);
  CHECK(unmatched == Names{"p3.4", "p10.24", "p11.25"});
  // p3.4 lost its counterpart to the (unusable) entry of p11.25.
  CHECK(b.unmatched_dist[0].why == "'p3.4' (s32[]) would fit, but the spec gives it to 'p11.25'");
}

TEST_CASE("bijection: candidates never contradict shapes or element types", "[verify]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"llama7b_1layer_decode_tp1", "llama7b_1layer_decode_tp2"},
      {"llama7b_1layer_decode_tp1", "llama7b_1layer_decode_tp8"},
      {"gpt2_decode_tp1", "gpt2_decode_tp2"},
      {"mnist_mlp_train_single", "mnist_mlp_train_dp"},
      {"linear3_fwd_single", "linear3_fwd_spmd_megatron"},
      {"bert_pretrain_fwdbwd_tp1", "bert_pretrain_fwdbwd_tp2"},
  };
  for (const auto& [r, d] : pairs) {
    const Pair p(r, d);
    INFO(d);
    for (const ParameterCandidates& pc : p.b.parameters) {
      for (const BijectionCandidate& c : pc.candidates) {
        REQUIRE(c.ref.has_value());
        ir::Type ref_type = p.ref.entry()[*c.ref].type;
        if (!c.reshape.empty()) ref_type = ir::Type::array(ref_type.dtype(), c.reshape);
        if (!c.permutation.empty()) {
          std::vector<int64_t> dims;
          for (int64_t k : c.permutation) dims.push_back(ref_type.dim(k));
          ref_type = ir::Type::array(ref_type.dtype(), dims);
        }
        INFO(p.dist.entry()[pc.dist].name << " as " << c.layout.to_string(p.mesh));
        CHECK(layout_misfit(c.layout, p.dist.entry()[pc.dist].type, ref_type, p.mesh).empty());
        CHECK_FALSE(c.why.empty());
      }
    }
  }
}

TEST_CASE("bijection: annotations on a two-axis mesh, and annotations set aside", "[verify]") {
  const ir::Module ref = module(R"(HloModule r
ENTRY e {
  w = f32[8,16] parameter(0)
  v = f32[8,16] parameter(1)
  ROOT t = (f32[8,16], f32[8,16]) tuple(w, v)
}
)");
  const ir::Module dist = module(R"(HloModule d
ENTRY e {
  w = f32[4,8] parameter(0), sharding={devices=[2,2]0,1,2,3}
  v = f32[4,16] parameter(1), sharding={devices=[8,1]0,1,2,3,4,5,6,7}
  ROOT t = (f32[4,8], f32[4,16]) tuple(w, v)
}
)");
  const Mesh m = *Mesh::parse("dp=2,tp=2");
  const BijectionCandidates b = infer_bijection(ref, dist, m, nullptr);
  const ParameterCandidates& w = *b.find(0);
  REQUIRE(w.candidates.size() == 1);
  CHECK(w.best()->source == Source::kSharding);
  CHECK(w.best()->layout.to_string(m) == "shard(0,dp)+shard(1,tp)");
  CHECK(w.best()->why ==
        "same position and name; sharding={devices=[2,2]0,1,2,3}; dim 0: 4 × dp 2 = 8, dim 1: 8 × "
        "tp 2 = 16");
  // 8 devices on a 4-device mesh: set aside (with a note), the shapes decide.
  const ParameterCandidates& v = *b.find(1);
  REQUIRE(v.notes.size() == 1);
  CHECK(v.notes[0] ==
        "sharding={devices=[8,1]0,1,2,3,4,5,6,7} set aside: 8 devices, but the mesh dp=2,tp=2 "
        "has 4");
  REQUIRE(v.candidates.size() == 2);
  CHECK(v.candidates[0].source == Source::kShape);
  CHECK(v.candidates[0].layout.to_string(m) == "shard(0,dp)");
  CHECK(v.candidates[1].layout.to_string(m) == "shard(0,tp)");
}

TEST_CASE("bijection: a parameter the spec names twice keeps its first entry", "[verify]") {
  const Pair p("gpt2_decode_tp1", "gpt2_decode_tp2");
  const std::string text = R"j({"mesh": {"tp": 2},
 "parameters": [{"dist": 16, "layout": "partial(sum,tp)"},
                {"dist": "p16.30", "layout": "rep"}]})j";
  const auto spec = parse_spec(text, "spec.json");
  REQUIRE(spec.has_value());
  REQUIRE(check_spec(*spec, p.ref, p.dist, p.mesh).has_value());
  const BijectionCandidates b = infer_bijection(p.ref, p.dist, p.mesh, &*spec);
  REQUIRE(b.spec_errors.size() == 1);
  CHECK(b.spec_errors[0].message == "'p16.30' is already described at 2:17");
  CHECK(b.spec_errors[0].pos == SourcePos{3, 26});
  REQUIRE(b.find(16)->candidates.size() == 1);
  CHECK(b.find(16)->best()->layout.to_string(p.mesh) == "partial(sum,tp)");
}

TEST_CASE("bijection: a reference input read reshaped goes to one parameter, not to each",
          "[verify]") {
  // One reference input of four elements; the distributed program reads two inputs of four
  // elements in other shapes. Only the first may take it as "a reference parameter no other
  // takes"; the second is left without a counterpart.
  const ir::Module ref = module(R"(HloModule r
ENTRY e {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
)");
  const ir::Module dist = module(R"(HloModule d
ENTRY e {
  a = f32[1,4] parameter(0)
  b = f32[4,1] parameter(1)
  ROOT t = (f32[1,4], f32[4,1]) tuple(a, b)
}
)");
  const BijectionCandidates b = infer_bijection(ref, dist, Mesh(), nullptr);
  REQUIRE(b.parameters.size() == 2);
  REQUIRE(b.parameters[0].candidates.size() == 1);
  CHECK_THAT(b.parameters[0].candidates[0].why,
             Catch::Contains("no other takes, with its elements, read as f32[1,4]"));
  CHECK(b.parameters[1].candidates.empty());
}
