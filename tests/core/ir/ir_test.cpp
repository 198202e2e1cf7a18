// Invariants of the graph IR: types, opcodes, device lists, computations and modules.
#include <catch2/catch.hpp>

#include "ir/module.h"

using namespace scalify::ir;

TEST_CASE("dtype names round-trip and classify", "[ir]") {
  for (int i = 0; i <= static_cast<int>(DType::kOpaque); ++i) {
    const auto t = static_cast<DType>(i);
    CHECK(parse_dtype(dtype_name(t)) == t);
  }
  CHECK_FALSE(parse_dtype("f31").has_value());
  CHECK(is_float(DType::kBF16));
  CHECK(is_float(DType::kF8E4M3FN));
  CHECK_FALSE(is_float(DType::kS32));
  CHECK(is_signed_int(DType::kS4));
  CHECK(is_unsigned_int(DType::kU64));
  CHECK(is_complex(DType::kC64));
  CHECK(bit_width(DType::kBF16) == 16);
  CHECK(bit_width(DType::kC128) == 128);
}

TEST_CASE("opcode names round-trip and families", "[ir]") {
  for (int i = 0; i <= static_cast<int>(Opcode::kXor); ++i) {
    const auto op = static_cast<Opcode>(i);
    CHECK(parse_opcode(opcode_name(op)) == op);
  }
  CHECK(parse_opcode("all-reduce") == Opcode::kAllReduce);
  CHECK_FALSE(parse_opcode("all_reduce").has_value());
  CHECK(is_collective(Opcode::kReduceScatter));
  CHECK(is_elementwise(Opcode::kTanh));
  CHECK(is_elementwise(Opcode::kMultiply));
  CHECK_FALSE(is_elementwise(Opcode::kDot));
}

TEST_CASE("types: text form, element count, compatibility ignores layout", "[ir]") {
  Type a = Type::array(DType::kF32, {8, 128});
  CHECK(a.to_string() == "f32[8,128]");
  CHECK(a.element_count() == 1024);
  Type b = a;
  b.set_layout(Layout{{0, 1}, ""});
  CHECK(b.to_string() == "f32[8,128]{0,1}");
  CHECK(b.to_string(false) == "f32[8,128]");
  CHECK(a.compatible(b));
  CHECK_FALSE(a == b);
  Type c = Type::array(DType::kBF16, {8, 128});
  CHECK_FALSE(a.compatible(c));
  CHECK(a.same_dims(c));
  Type d = Type::array(DType::kS32, {16});
  d.set_dynamic(0, true);
  CHECK(d.to_string() == "s32[<=16]");
  CHECK_FALSE(d.compatible(Type::array(DType::kS32, {16})));
  Type t = Type::tuple({a, Type::token(), Type::tuple({})});
  CHECK(t.to_string() == "(f32[8,128], token[], ())");
  CHECK(Type::array(DType::kF32, {}).element_count() == 1);
}

TEST_CASE("iota device lists materialise as XLA defines them", "[ir]") {
  CHECK(IotaDevices{{8}, {8}, {}}.materialize() == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  // [2,4]<=[2,4]T(1,0): the transpose of [[0,1,2,3],[4,5,6,7]] read row-major, reshaped.
  CHECK(IotaDevices{{2, 4}, {2, 4}, {1, 0}}.materialize() ==
        std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7});
  // [4,2]<=[2,2,2]T(2,0,1)
  CHECK(IotaDevices{{4, 2}, {2, 2, 2}, {2, 0, 1}}.materialize() ==
        std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7});
  CHECK(IotaDevices{{4, 2}, {2, 4}, {1, 0}}.to_string() == "[4,2]<=[2,4]T(1,0)");
}

TEST_CASE("sharding text form", "[ir]") {
  Sharding s;
  s.kind = Sharding::Kind::kTiled;
  s.tile_dims = {2, 1, 2};
  s.devices = {0, 1, 2, 3};
  s.last_tile_dim_replicate = true;
  CHECK(s.to_string() == "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}");
  CHECK(s.device_list() == std::vector<int64_t>{0, 1, 2, 3});
  Sharding tuple;
  tuple.kind = Sharding::Kind::kTuple;
  tuple.elements = {Sharding{}, s};
  CHECK(tuple.to_string() == "{{replicated}, {devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}}");
}

TEST_CASE("attribute values print in HLO syntax", "[ir]") {
  CHECK(attr_value_to_string(DimList{0, 1}) == "{0,1}");
  CHECK(attr_value_to_string(std::vector<SliceRange>{{0, 4, 1}, {1, 9, 2}}) == "{[0:4], [1:9:2]}");
  CHECK(attr_value_to_string(PaddingConfig{{0, 0, 0}, {1, 2, 1}}) == "0_0x1_2_1");
  Window w;
  w.dims = {WindowDim{3, 2, 1, 1, 1, 1, false}, WindowDim{3, 1, 0, 0, 1, 1, false}};
  CHECK(attr_value_to_string(w) == "{size=3x3 stride=2x1 pad=1_1x0_0}");
  CHECK(attr_value_to_string(ComputationRefs{{"add"}}) == "%add");
  CHECK(attr_value_to_string(ComputationRefs{{"a", "b"}}) == "{%a, %b}");
  CHECK(attr_value_to_string(std::string("a\"b\n")) == "\"a\\\"b\\n\"");
  CHECK(attr_kind_of("replica_groups") == AttrKind::kReplicaGroups);
  CHECK(attr_kind_of("something_new") == AttrKind::kRaw);
}

TEST_CASE("computations index names, order parameters and find topological orders", "[ir]") {
  Computation c;
  c.name = "f";
  Instruction p1;
  p1.name = "p1";
  p1.parameter_number = 1;
  Instruction p0;
  p0.name = "p0";
  p0.parameter_number = 0;
  Instruction add;
  add.name = "add";
  add.opcode = Opcode::kAdd;
  add.operands = {2, 0};  // uses "later" instruction 2 (forward reference)
  REQUIRE(c.add(p1) == 0);
  REQUIRE(c.add(add) == 1);
  REQUIRE(c.add(p0) == 2);
  CHECK_FALSE(c.add(p0).has_value());  // names are unique
  CHECK(c.find("add") == 1);
  CHECK_FALSE(c.find("nope").has_value());
  CHECK(c.parameters() == std::vector<InstrId>{2, 0});
  auto order = c.topological_order();
  REQUIRE(order.has_value());
  CHECK(*order == std::vector<InstrId>{0, 2, 1});
  c[0].operands = {1};  // p1 -> add -> p1: a cycle
  CHECK_FALSE(c.topological_order().has_value());
}

TEST_CASE("metadata prints only what is present", "[ir]") {
  Metadata md;
  CHECK(md.empty());
  CHECK_FALSE(md.has_source_site());
  md.op_name = "layers.0/mlp";
  md.source_file = "model.py";
  md.source_line = 12;
  CHECK(md.has_source_site());
  CHECK(md.to_string() == "{op_name=\"layers.0/mlp\" source_file=\"model.py\" source_line=12}");
}
