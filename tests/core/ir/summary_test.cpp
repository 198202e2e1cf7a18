#include "ir/summary.h"

#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "test_support.h"

using scalify::ir::ModuleSummary;
using scalify::ir::Opcode;

namespace {

constexpr const char* kModule = R"(HloModule test_module, num_partitions=2, replica_count=1

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}

ENTRY %main (p0: f32[4,8], p1: f32[8,16]) -> (f32[4,16], f32[4,8], f32[2,8]) {
  %p1 = f32[8,16]{1,0} parameter(1), metadata={op_name="jit(f)/p1"}
  %p0 = f32[4,8]{1,0} parameter(0), sharding={replicated}, metadata={op_name="jit(f)/p0" source_file="m.py" source_line=3}
  %dot = f32[4,16]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/dot" source_file="m.py" source_line=4}
  %ar = f32[4,16]{1,0} all-reduce(%dot), replica_groups={{0,1}}, channel_id=1, use_global_device_ids=true, to_apply=%add
  %ag = f32[8,8]{1,0} all-gather(%p0), replica_groups=[1,2]<=[2], dimensions={0}
  %rs = f32[2,8]{1,0} reduce-scatter(%p0), replica_groups={{0,1}}, dimensions={0}, to_apply=%max
  %cc = f32[4,8]{1,0} custom-call(%p0), custom_call_target="Foo"
  %cc2 = f32[4,8]{1,0} custom-call(%cc), custom_call_target="Foo"
  %bar = f32[4,8]{1,0} custom-call(%cc2), custom_call_target="Bar"
  ROOT %t = (f32[4,16]{1,0}, f32[4,8]{1,0}, f32[2,8]{1,0}) tuple(%ar, %bar, %rs)
}
)";

ModuleSummary summary_of(std::string_view text) {
  auto m = scalify::hlo::read_module(text, "test.hlo");
  if (!m) FAIL(m.error().format());
  return scalify::ir::summarize(*m);
}

}  // namespace

TEST_CASE("summary: counts computations, instructions and opcodes", "[summary]") {
  const ModuleSummary s = summary_of(kModule);
  CHECK(s.module == "test_module");
  CHECK(s.entry == "main");
  REQUIRE(s.computations.size() == 3);
  CHECK(s.computations[0].name == "add");
  CHECK_FALSE(s.computations[0].is_entry);
  CHECK(s.computations[0].instructions == 3);
  CHECK(s.computations[2].is_entry);
  CHECK(s.computations[2].instructions == 10);
  CHECK(s.instructions == 16);
  CHECK(s.entry_instructions == 10);
  CHECK(s.opcodes.at("parameter") == 6);
  CHECK(s.opcodes.at("custom-call") == 3);
  CHECK(s.opcodes.at("add") == 1);
  CHECK(s.opcodes.at("tuple") == 1);
  CHECK(s.custom_calls.size() == 2);
  CHECK(s.custom_calls.at("Foo") == 2);
  CHECK(s.custom_calls.at("Bar") == 1);
  CHECK(s.num_partitions == 2);
  CHECK(s.replica_count == 1);
}

TEST_CASE("summary: parameters by number, outputs from the root tuple", "[summary]") {
  const ModuleSummary s = summary_of(kModule);
  REQUIRE(s.parameters.size() == 2);
  CHECK(s.parameters[0].name == "p0");  // by number, not by text order
  CHECK(s.parameters[0].index == 0);
  CHECK(s.parameters[0].type == "f32[4,8]");
  CHECK(s.parameters[0].sharding == "{replicated}");
  CHECK(s.parameters[1].name == "p1");
  CHECK(s.parameters[1].sharding.empty());
  REQUIRE(s.outputs.size() == 3);
  CHECK(s.outputs[0].name == "ar");
  CHECK(s.outputs[0].type == "f32[4,16]");
  CHECK(s.outputs[1].name == "bar");
  CHECK(s.outputs[2].name == "rs");
  CHECK(s.outputs[2].index == 2);
  CHECK(s.outputs[2].type == "f32[2,8]");
}

TEST_CASE("summary: a non-tuple root is the single output", "[summary]") {
  const ModuleSummary s = summary_of(
      "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n  ROOT n = f32[2,3] negate(p)\n}\n");
  REQUIRE(s.outputs.size() == 1);
  CHECK(s.outputs[0].name == "n");
  CHECK(s.outputs[0].index == 0);
  CHECK(s.outputs[0].type == "f32[2,3]");
  CHECK(s.collectives.empty());
  CHECK(s.custom_calls.empty());
  CHECK(s.metadata_coverage() == 0.0);
  CHECK(s.num_partitions == 1);
}

TEST_CASE("summary: collectives with groups, channel and reduction", "[summary]") {
  const ModuleSummary s = summary_of(kModule);
  REQUIRE(s.collectives.size() == 3);
  const auto& ar = s.collectives[0];
  CHECK(ar.name == "ar");
  CHECK(ar.opcode == Opcode::kAllReduce);
  CHECK(ar.computation == "main");
  CHECK(ar.type == "f32[4,16]");
  CHECK(ar.replica_groups == std::vector<std::vector<int64_t>>{{0, 1}});
  CHECK_FALSE(ar.iota);
  CHECK(ar.replica_groups_text == "{{0,1}}");
  CHECK(ar.channel_id == 1);
  CHECK(ar.use_global_device_ids);
  CHECK(ar.reduction == Opcode::kAdd);

  const auto& ag = s.collectives[1];
  CHECK(ag.opcode == Opcode::kAllGather);
  CHECK(ag.iota);
  CHECK(ag.replica_groups == std::vector<std::vector<int64_t>>{{0, 1}});
  CHECK(ag.replica_groups_text == "[1,2]<=[2]");
  CHECK(ag.dimensions == std::vector<int64_t>{0});
  CHECK_FALSE(ag.channel_id.has_value());
  CHECK_FALSE(ag.reduction.has_value());

  CHECK(s.collectives[2].opcode == Opcode::kReduceScatter);
  CHECK(s.collectives[2].reduction == Opcode::kMaximum);
}

TEST_CASE("summary: metadata coverage over all instructions", "[summary]") {
  const ModuleSummary s = summary_of(kModule);
  CHECK(s.with_source_site == 2);
  CHECK(s.with_op_name == 3);
  CHECK(s.metadata_coverage() == Approx(2.0 / 16));
  CHECK(s.op_name_coverage() == Approx(3.0 / 16));
}

TEST_CASE("summary: to_json has the contract keys", "[summary][json]") {
  const scalify::json::Value j = scalify::ir::to_json(summary_of(kModule));
  for (const char* key :
       {"module", "computations", "instructions", "entry_instructions", "opcodes", "parameters",
        "outputs", "collectives", "custom_calls", "metadata_coverage"}) {
    INFO(key);
    CHECK(j.find(key) != nullptr);
  }
  CHECK(j.find("module")->as_string() == "test_module");
  CHECK(j.find("computations")->as_int() == 3);
  CHECK(j.find("instructions")->as_int() == 16);
  CHECK(j.find("entry_instructions")->as_int() == 10);
  CHECK(j.find("opcodes")->find("custom-call")->as_int() == 3);
  CHECK(j.find("custom_calls")->find("Foo")->as_int() == 2);
  CHECK(j.find("metadata_coverage")->as_double() == Approx(0.125));
  CHECK(j.find("num_partitions")->as_int() == 2);

  const scalify::json::Value& p0 = (*j.find("parameters"))[0];
  CHECK(p0.find("name")->as_string() == "p0");
  CHECK(p0.find("number")->as_int() == 0);
  CHECK(p0.find("type")->as_string() == "f32[4,8]");
  const scalify::json::Value& out2 = (*j.find("outputs"))[2];
  CHECK(out2.find("name")->as_string() == "rs");
  CHECK(out2.find("type")->as_string() == "f32[2,8]");

  const scalify::json::Value& ar = (*j.find("collectives"))[0];
  CHECK(ar.find("opcode")->as_string() == "all-reduce");
  CHECK(ar.find("replica_groups")->dump() == "[[0,1]]");
  CHECK(ar.find("channel_id")->as_int() == 1);
  CHECK(ar.find("reduction")->as_string() == "add");
  const scalify::json::Value& ag = (*j.find("collectives"))[1];
  CHECK(ag.find("iota")->as_bool());
  CHECK(ag.find("channel_id")->is_null());
  CHECK(ag.find("dimensions")->dump() == "[0]");

  // The object survives its own text.
  auto back = scalify::json::parse(j.dump(2));
  REQUIRE(back.has_value());
  CHECK(*back == j);
}

TEST_CASE("summary: the ENTRY count matches the module on a real file", "[summary]") {
  auto m = scalify::hlo::read_module_file(scalify::test::corpus_dir() +
                                          "/neuron_torchxla/llama7b_1layer_decode_tp8.hlo");
  if (!m) FAIL(m.error().format());
  const ModuleSummary s = scalify::ir::summarize(*m);
  CHECK(s.entry_instructions == m->entry().size());
  CHECK(s.instructions == m->instruction_count());
  CHECK(s.parameters.size() == m->entry().parameters().size());
  size_t all_reduces = 0;
  for (const auto& c : s.collectives) {
    CHECK(!c.replica_groups.empty());
    if (c.opcode == Opcode::kAllReduce) ++all_reduces;
  }
  CHECK(all_reduces == s.opcodes.at("all-reduce"));
}
