// The HLO reader: every attribute kind, forms of the syntax, and errors with positions.
#include "hlo/reader.h"

#include <catch2/catch.hpp>

#include "hlo/printer.h"
#include "test_support.h"

using namespace scalify;
using ir::DType;
using ir::Type;

namespace {

ir::Module read_ok(const std::string& text) {
  auto m = hlo::read_module(text, "t.hlo");
  if (!m) FAIL(m.error().format());
  // Everything read must print and read back to the same graph.
  auto again = hlo::read_module(hlo::print_module(*m), "printed.hlo");
  if (!again) FAIL("re-reading the printed module: " << again.error().format());
  INFO(ir::first_difference(*m, *again));
  CHECK(*m == *again);
  return std::move(*m);
}

Diagnostic read_error(const std::string& text) {
  auto m = hlo::read_module(text, "bad.hlo");
  REQUIRE_FALSE(m.has_value());
  return m.error();
}

// One ENTRY computation around `body` lines.
std::string module_with(const std::string& body) {
  return "HloModule m\n\nENTRY %main {\n" + body + "\n}\n";
}

const ir::Instruction& entry_instr(const ir::Module& m, const std::string& name) {
  auto id = m.entry().find(name);
  REQUIRE(id.has_value());
  return m.entry()[*id];
}

}  // namespace

TEST_CASE("types: arrays, layouts, tuples, tokens, dynamic dimensions", "[reader]") {
  auto m =
      read_ok(module_with("  %a = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
                          "  %b = (s32[], (bf16[2]{0}, token[])) parameter(1)\n"
                          "  %c = s32[<=16,4] parameter(2)\n"
                          "  ROOT %t = (f32[8,128], s32[<=16,4]) tuple(%a, %c)"));
  const auto& a = entry_instr(m, "a").type;
  CHECK(a.dtype() == DType::kF32);
  CHECK(a.dims() == std::vector<int64_t>{8, 128});
  REQUIRE(a.layout());
  CHECK(a.layout()->minor_to_major == std::vector<int64_t>{1, 0});
  CHECK(a.layout()->tail == "T(8,128)");
  const auto& b = entry_instr(m, "b").type;
  REQUIRE(b.is_tuple());
  CHECK(b.elements()[1].elements()[1].is_token());
  const auto& c = entry_instr(m, "c").type;
  CHECK(c.dynamic(0));
  CHECK_FALSE(c.dynamic(1));
  CHECK(c.to_string() == "s32[<=16,4]");
}

TEST_CASE("operands with and without types, names with and without %", "[reader]") {
  auto m =
      read_ok(module_with("  p0 = f32[4] parameter(0)\n"
                          "  %p1 = f32[4] parameter(1)\n"
                          "  %s = f32[4]{0} add(f32[4]{0} %p0, p1)\n"
                          "  ROOT n = f32[4] negate(%s)"));
  const auto& s = entry_instr(m, "s");
  CHECK(s.opcode == ir::Opcode::kAdd);
  CHECK(s.operands == std::vector<ir::InstrId>{0, 1});
  CHECK(m.entry().root == 3);
}

TEST_CASE("dimension lists, integers, booleans, words and strings", "[reader]") {
  auto m = read_ok(
      module_with("  %p = f32[2,3] parameter(0)\n"
                  "  %t = f32[3,2] transpose(%p), dimensions={1,0}\n"
                  "  %i = s32[2,3] iota(), iota_dimension=1\n"
                  "  %c = pred[2,3] compare(%p, %p), direction=LT, type=TOTALORDER\n"
                  "  %cc = f32[2,3] custom-call(%p), custom_call_target=\"Sharding\", "
                  "custom_call_has_side_effect=true, backend_config=\"{\\\"k\\\": 1}\"\n"
                  "  ROOT %r = (f32[3,2], s32[2,3], pred[2,3], f32[2,3]) tuple(%t, %i, %c, %cc)"));
  CHECK(entry_instr(m, "t").dims_attr("dimensions") == ir::DimList{1, 0});
  CHECK(*entry_instr(m, "i").get<int64_t>("iota_dimension") == 1);
  CHECK(entry_instr(m, "c").get<ir::Word>("direction")->text == "LT");
  const auto& cc = entry_instr(m, "cc");
  CHECK(*cc.get<std::string>("custom_call_target") == "Sharding");
  CHECK(*cc.get<bool>("custom_call_has_side_effect"));
  CHECK(*cc.get<std::string>("backend_config") == "{\"k\": 1}");
}

TEST_CASE("slice, padding, window and dim_labels", "[reader]") {
  auto m = read_ok(module_with(
      "  %p = f32[1,8,8,4] parameter(0)\n"
      "  %k = f32[3,3,4,16] parameter(1)\n"
      "  %s = f32[1,4,8,2] slice(%p), slice={[0:1], [0:8:2], [0:8], [1:3:1]}\n"
      "  %z = f32[] constant(0)\n"
      "  %pd = f32[1,6,8,5] pad(%s, %z), padding=0_0x1_1x0_0x0_2_1\n"
      "  ROOT %conv = f32[1,8,8,16] convolution(%p, %k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f"));
  const auto& s = *entry_instr(m, "s").get<std::vector<ir::SliceRange>>("slice");
  REQUIRE(s.size() == 4);
  CHECK(s[1] == ir::SliceRange{0, 8, 2});
  const auto& pad = *entry_instr(m, "pd").get<ir::PaddingConfig>("padding");
  CHECK(pad[3] == ir::PadDim{0, 2, 1});
  const auto& w = *entry_instr(m, "conv").get<ir::Window>("window");
  REQUIRE(w.dims.size() == 2);
  CHECK(w.dims[0].size == 3);
  CHECK(w.dims[1].pad_high == 1);
  CHECK(w.dims[1].stride == 1);
  const auto& labels = *entry_instr(m, "conv").get<ir::ConvDimLabels>("dim_labels");
  CHECK(labels.input == "b01f");
  CHECK(labels.kernel == "01io");
  CHECK(labels.output == "b01f");
}

TEST_CASE("dot, gather and scatter dimension numbers", "[reader]") {
  auto m = read_ok(
      "HloModule m\n"
      "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%a, %b)\n}\n"
      "ENTRY %e {\n"
      "  %x = f32[4,8,16] parameter(0)\n"
      "  %y = f32[4,16,32] parameter(1)\n"
      "  %d = f32[4,8,32] dot(%x, %y), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_batch_dims={0}, rhs_contracting_dims={1}\n"
      "  %idx = s32[5,1] parameter(2)\n"
      "  %g = f32[5,8,16] gather(%x, %idx), offset_dims={1,2}, collapsed_slice_dims={0}, "
      "start_index_map={0}, index_vector_dim=1, slice_sizes={1,8,16}\n"
      "  %u = f32[5,8,16] parameter(3)\n"
      "  ROOT %sc = f32[4,8,16] scatter(%x, %idx, %u), update_window_dims={1,2}, "
      "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
      "to_apply=%add\n"
      "}\n");
  const auto& d = entry_instr(m, "d");
  CHECK(d.dims_attr("lhs_batch_dims") == ir::DimList{0});
  CHECK(d.dims_attr("rhs_contracting_dims") == ir::DimList{1});
  const auto& g = entry_instr(m, "g");
  CHECK(g.dims_attr("slice_sizes") == ir::DimList{1, 8, 16});
  const auto& sc = entry_instr(m, "sc");
  REQUIRE(sc.called.size() == 1);
  CHECK(m.computations[static_cast<size_t>(sc.called[0])].name == "add");
}

TEST_CASE("replica groups in list and iota forms, channel ids, global device ids", "[reader]") {
  auto m = read_ok(
      "HloModule m, num_partitions=8\n"
      "%sum (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%a, %b)\n}\n"
      "ENTRY %e {\n"
      "  %x = f32[16] parameter(0)\n"
      "  %r1 = f32[16] all-reduce(%x), channel_id=1, replica_groups={{0,1},{2,3}}, "
      "use_global_device_ids=true, to_apply=%sum\n"
      "  %r2 = f32[16] all-reduce(%x), channel_id=2, replica_groups=[2,4]<=[8], to_apply=%sum\n"
      "  %r3 = f32[16] all-reduce(%x), channel_id=3, replica_groups=[4,2]<=[2,4]T(1,0), "
      "to_apply=%sum\n"
      "  %g = f32[64] all-gather(%x), replica_groups={{0,1,2,3}}, dimensions={0}\n"
      "  ROOT %cp = f32[16] collective-permute(%x), source_target_pairs={{0,1},{1,0}}\n"
      "}\n");
  CHECK(m.num_partitions() == 8);
  const auto& r1 = entry_instr(m, "r1");
  CHECK(*r1.get<int64_t>("channel_id") == 1);
  CHECK(*r1.get<bool>("use_global_device_ids"));
  CHECK(r1.replica_groups()->groups == std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}});
  CHECK(entry_instr(m, "r2").replica_groups()->groups ==
        std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(entry_instr(m, "r3").replica_groups()->groups ==
        std::vector<std::vector<int64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(entry_instr(m, "r3").replica_groups()->iota.has_value());
  CHECK(*entry_instr(m, "cp").get<ir::SourceTargetPairs>("source_target_pairs") ==
        ir::SourceTargetPairs{{0, 1}, {1, 0}});
}

TEST_CASE("shardings: replicated, maximal, tiled, iota, partial replication, tuples", "[reader]") {
  auto m = read_ok(module_with(
      "  %a = f32[8,8] parameter(0), sharding={replicated}\n"
      "  %b = f32[8,8] parameter(1), sharding={maximal device=3}\n"
      "  %c = f32[8,8] parameter(2), sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}\n"
      "  %d = f32[8,8] parameter(3), sharding={devices=[2,4]<=[4,2]T(1,0) "
      "metadata={op_name=\"x\"}}\n"
      "  %e = f32[8,8] parameter(4), sharding={devices=[2,2,2]<=[8] last_tile_dims={manual, "
      "replicated}}\n"
      "  ROOT %t = (f32[8,8], f32[8,8]) tuple(%a, %b), sharding={{replicated}, {manual}}"));
  CHECK(entry_instr(m, "a").sharding()->kind == ir::Sharding::Kind::kReplicated);
  CHECK(entry_instr(m, "b").sharding()->device == 3);
  const auto& c = *entry_instr(m, "c").sharding();
  CHECK(c.kind == ir::Sharding::Kind::kTiled);
  CHECK(c.tile_dims == std::vector<int64_t>{2, 1, 2});
  CHECK(c.last_tile_dim_replicate);
  const auto& d = *entry_instr(m, "d").sharding();
  CHECK(d.device_list() == std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7});
  CHECK(d.metadata == "{op_name=\"x\"}");
  CHECK(entry_instr(m, "e").sharding()->last_tile_dims ==
        std::vector<std::string>{"manual", "replicated"});
  const auto& t = *entry_instr(m, "t").sharding();
  REQUIRE(t.kind == ir::Sharding::Kind::kTuple);
  CHECK(t.elements.size() == 2);
}

TEST_CASE("metadata, frontend attributes and unknown attributes kept verbatim", "[reader]") {
  auto m = read_ok(module_with(
      "  %p = f32[2] parameter(0), metadata={op_type=\"xla__device_data\" op_name=\"layers.3/mlp\" "
      "source_file=\"model.py\" source_line=42 source_column=7 stack_frame_id=2 "
      "deduplicated_name=\"fusion.1\"}\n"
      "  ROOT %c = f32[2] copy(%p), frontend_attributes={_xla_stream=\"1\",key=\"v\"}, "
      "future_attr={a, {b: [1,2]}}, statistics_viz=xyz"));
  const auto& md = entry_instr(m, "p").metadata;
  CHECK(md.op_type == "xla__device_data");
  CHECK(md.op_name == "layers.3/mlp");
  CHECK(md.source_file == "model.py");
  CHECK(md.source_line == 42);
  CHECK(md.source_column == 7);
  CHECK(md.stack_frame_id == 2);
  REQUIRE(md.other.size() == 1);
  CHECK(md.other[0].second == "\"fusion.1\"");
  const auto& c = entry_instr(m, "c");
  CHECK(c.get<ir::FrontendAttributes>("frontend_attributes")->at(1) ==
        std::pair<std::string, std::string>{"key", "v"});
  CHECK(c.get<ir::Raw>("future_attr")->text == "{a, {b: [1,2]}}");
  CHECK(c.get<ir::Raw>("statistics_viz")->text == "xyz");
}

TEST_CASE("called computations: to_apply, while body/condition, branches, forward references",
          "[reader]") {
  auto m = read_ok(
      "HloModule m, is_scheduled=true, entry_computation_layout={(s32[])->s32[]}\n"
      "ENTRY %e (p: s32[]) -> s32[] {\n"
      "  %p = s32[] parameter(0)\n"
      "  %w = s32[] while(%p), condition=%cond, body=%body\n"
      "  %b = pred[] constant(true)\n"
      "  ROOT %c = s32[] conditional(%b, %w, %w), branch_computations={%body, %body}\n"
      "}\n"
      "%cond (x: s32[]) -> pred[] {\n  %x = s32[] parameter(0)\n  %ten = s32[] constant(10)\n"
      "  ROOT %lt = pred[] compare(%x, %ten), direction=LT\n}\n"
      "%body (y: s32[]) -> s32[] {\n  %y = s32[] parameter(0)\n  ROOT %n = s32[] negate(%y)\n}\n");
  CHECK(m.entry().name == "e");
  CHECK(m.attr("entry_computation_layout")->value == ir::AttrValue(ir::Raw{"{(s32[])->s32[]}"}));
  CHECK(*m.attr("is_scheduled") == ir::Attribute{"is_scheduled", ir::Raw{"true"}, {}});
  CHECK(entry_instr(m, "w").called.size() == 2);
  CHECK(entry_instr(m, "c").called.size() == 2);
}

TEST_CASE("constants: scalars, arrays, splats, elided and special values", "[reader]") {
  auto m =
      read_ok(module_with("  %a = f32[] constant(-inf)\n"
                          "  %b = f32[2,2] constant({ {1, 2.5}, {nan, 1e-05} })\n"
                          "  %c = s32[3] constant({1, -2, 3})\n"
                          "  %d = pred[2] constant({true, false})\n"
                          "  %e = bf16[4,4] constant(0)\n"
                          "  %f = f32[1000] constant({...})\n"
                          "  ROOT %g = c64[2] constant({(1, 0), (0.5, -1)})"));
  CHECK(entry_instr(m, "b").literal == "{ {1, 2.5}, {nan, 1e-05} }");
}

TEST_CASE("types left out are inferred, as XLA's reader does", "[reader]") {
  auto m =
      read_ok(module_with("  %p = f32[4]{0} parameter(0)\n"
                          "  %q = s32[] parameter(1)\n"
                          "  %n = negate(%p)\n"
                          "  %t = tuple(%n, %q)\n"
                          "  %c = compare(%p, %p), direction=EQ\n"
                          "  ROOT %g = get-tuple-element(%t), index=1"));
  CHECK(entry_instr(m, "n").type == Type::array(DType::kF32, {4}));
  CHECK(entry_instr(m, "t").type.to_string() == "(f32[4], s32[])");
  CHECK(entry_instr(m, "c").type.to_string() == "pred[4]");
  CHECK(entry_instr(m, "g").type.to_string() == "s32[]");
}

TEST_CASE("async wrapped ops, comments, headerless modules and computation attributes",
          "[reader]") {
  auto m = read_ok(
      "// a comment line\n"
      "%called {\n  %a = s32[8] parameter(0)\n  ROOT %n = s32[8] negate(%a) /* inline */\n"
      "}, execution_thread=\"thread_1\"\n"
      "ENTRY %e {\n  %p = s32[8] parameter(0)\n"
      "  %s = ((s32[8]), s32[8], u32[]) call-start(%p), async_execution_thread=\"thread_1\", "
      "to_apply=%called\n"
      "  ROOT %d = s32[8] call-done(%s)\n}\n");
  CHECK(m.name == "module");
  const auto& s = entry_instr(m, "s");
  CHECK(s.opcode == ir::Opcode::kAsyncStart);
  CHECK(s.async_wrapped == ir::Opcode::kCall);
  CHECK(s.opcode_text() == "call-start");
  CHECK(m.computations[0].attrs.size() == 1);
}

TEST_CASE("fuzzer findings stay fixed", "[reader][fuzz]") {
  // A computation attribute with a bare value printed before the body swallowed the '{'.
  auto m = read_ok("H{p=s2[]parameter(0)},d=e");
  CHECK(m.computations[0].attrs.size() == 1);
  // A sharding with two kinds printed as one of them.
  const Diagnostic two =
      read_error(module_with("  %p = f32[4] parameter(0), sharding={devices=[2]<=[2]unknown}"));
  CHECK(two.message.find("'unknown' is a second") != std::string::npos);
  const Diagnostic stray = read_error(
      module_with("  %p = f32[4] parameter(0), sharding={replicated last_tile_dim_replicate}"));
  CHECK(stray.message.find("need devices=") != std::string::npos);
  // A typed operand cut off right after its element type: no read past the end.
  const Diagnostic d =
      read_error("HloModule m\nENTRY %e {\n  %p = f32[] parameter(0)\n  %n = f32[] negate(f32");
  CHECK(d.pos == SourcePos{4, 24});  // the end of the text
  CHECK(d.message.find("end of file") != std::string::npos);
}

TEST_CASE("instruction positions are recorded", "[reader]") {
  auto m = read_ok(
      "HloModule m\nENTRY %e {\n  %p = f32[] parameter(0)\n  ROOT %n = f32[] negate(%p)\n}\n");
  CHECK(entry_instr(m, "p").pos == SourcePos{3, 3});
  CHECK(entry_instr(m, "n").pos == SourcePos{4, 3});
  CHECK(m.entry().pos == SourcePos{2, 1});
}

TEST_CASE("errors carry FILE:LINE:COL, the line and a caret", "[reader][errors]") {
  const Diagnostic d =
      read_error(module_with("  %p = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%q)"));
  CHECK(d.file == "bad.hlo");
  CHECK(d.pos == SourcePos{5, 27});
  CHECK(d.message == "undefined operand 'q' in computation 'main'");
  CHECK(d.format() ==
        "bad.hlo:5:27: error: undefined operand 'q' in computation 'main'\n"
        "    ROOT %n = f32[4] negate(%q)\n"
        "                            ^\n");
}

TEST_CASE("malformed modules are rejected with a precise message", "[reader][errors]") {
  struct Case {
    const char* what;
    std::string text;
    SourcePos pos;
    const char* message_part;
  };
  const std::vector<Case> cases = {
      {"empty", "", {1, 1}, "empty file"},
      {"only spaces", "  \n\n", {3, 1}, "empty file"},
      {"no header", "garbage", {1, 1}, "expected 'HloModule'"},
      {"truncated after a line",
       "HloModule m\nENTRY %e {\n  %p = f32[4] parameter(0)\n",
       {2, 1},
       "not closed"},
      {"truncated in the operands",
       "HloModule m\nENTRY %e {\n  %p = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%p",
       {4, 29},
       "expected ')'"},
      {"truncated type", "HloModule m\nENTRY %e {\n  %p = f32[4", {3, 13}, "expected ']'"},
      {"duplicate name",
       module_with("  %p = f32[] parameter(0)\n  %p = f32[] parameter(1)"),
       {5, 3},
       "duplicate instruction name 'p'"},
      {"declared operand type contradicts",
       module_with("  %p = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(f32[8] %p)"),
       {5, 34},
       "declared f32[8] here but defined as f32[4]"},
      {"unknown opcode",
       module_with("  %p = f32[4] parameter(0)\n  ROOT %n = f32[4] frobnicate(%p)"),
       {5, 20},
       "unknown opcode 'frobnicate'"},
      {"unknown type",
       module_with("  %p = f33[4] parameter(0)"),
       {4, 8},
       "unknown element type 'f33'"},
      {"bad layout",
       module_with("  %p = f32[4,2]{0,0} parameter(0)"),
       {4, 16},
       "not a permutation"},
      {"unknown computation",
       module_with("  %p = f32[] parameter(0)\n  ROOT %r = f32[] call(%p), to_apply=%nowhere"),
       {5, 29},
       "unknown computation 'nowhere'"},
      {"cycle",
       module_with("  %a = f32[] negate(%b)\n  %b = f32[] negate(%a)"),
       {3, 1},
       "form a cycle"},
      {"missing parameter",
       module_with(
           "  %p = f32[] parameter(1)\n  %q = f32[] parameter(2)\n  ROOT %r = f32[] add(%p, %q)"),
       {3, 1},
       "has no parameter(0)"},
      {"parameter out of range",
       module_with("  %p = f32[] parameter(1)"),
       {4, 3},
       "parameter number 1 is out of range"},
      {"literal count",
       module_with("  %c = f32[3] constant({1, 2})"),
       {4, 30},
       "has 2 elements, the type says 3"},
      {"literal value",
       module_with("  %c = s32[2] constant({1, x})"),
       {4, 28},
       "'x' is not a s32 value"},
      {"bad replica groups",
       module_with(
           "  %p = f32[] parameter(0)\n  %r = f32[] all-reduce(%p), replica_groups=[2,4]<=[6]"),
       {5, 45},
       "changes the device count"},
      {"duplicate attribute",
       module_with("  %p = f32[2] parameter(0)\n  %t = f32[2] transpose(%p), dimensions={0}, "
                   "dimensions={0}"),
       {5, 46},
       "duplicate attribute 'dimensions'"},
      {"unterminated string",
       module_with("  %p = f32[2] parameter(0), metadata={op_name=\"abc}"),
       {4, 47},
       "unterminated string"},
      {"garbage bytes",
       std::string("HloModule m\nENTRY %e {\n  %p = f32[2] \x01\x02 parameter(0)\n}\n"),
       {3, 15},
       "byte 0x01"},
      {"second ROOT",
       module_with("  ROOT %p = f32[] parameter(0)\n  ROOT %q = f32[] parameter(1)"),
       {5, 3},
       "second ROOT"},
      {"huge integer",
       module_with("  %p = f32[99999999999999999999] parameter(0)"),
       {4, 12},
       "out of range"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const Diagnostic d = read_error(c.text);
    INFO(d.format());
    CHECK(d.pos == c.pos);
    CHECK(d.message.find(c.message_part) != std::string::npos);
  }
}

TEST_CASE("files: missing, empty, binary and directories give clear errors", "[reader][errors]") {
  test::TempDir dir;
  auto missing = hlo::read_module_file(dir.path() + "/nope.hlo");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("cannot open") != std::string::npos);
  auto empty = hlo::read_module_file(dir.write("empty.hlo", ""));
  REQUIRE_FALSE(empty.has_value());
  CHECK(empty.error().message.find("empty") != std::string::npos);
  auto binary = hlo::read_module_file(dir.write("bin.hlo", std::string("HloModule m\n\0\x7f", 15)));
  REQUIRE_FALSE(binary.has_value());
  CHECK(binary.error().pos == SourcePos{2, 1});
  CHECK(binary.error().message.find("binary") != std::string::npos);
  auto directory = hlo::read_module_file(dir.path());
  REQUIRE_FALSE(directory.has_value());
}

TEST_CASE("files read side by side: each result in its place, errors too", "[reader][errors]") {
  test::TempDir dir;
  // A module whose text ends exactly at a page's end, without a newline: the mapped file has
  // no terminating NUL after it.
  std::string text = "HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}";
  text.insert(text.find('}'), 4096 - text.size(), ' ');
  REQUIRE(text.size() == 4096);
  const std::string paths[] = {dir.write("a.hlo", text), dir.path() + "/missing.hlo",
                               dir.write("b.hlo", text + "\n")};
  const auto read = hlo::read_module_files(paths);
  REQUIRE(read.size() == 3);
  REQUIRE(read[0].has_value());
  CHECK(read[0]->entry().size() == 1);
  REQUIRE_FALSE(read[1].has_value());
  CHECK(read[1].error().message.find("cannot open") != std::string::npos);
  CHECK(read[2].has_value());
}

TEST_CASE("every prefix of a real module is either read or rejected with a position",
          "[reader][errors]") {
  const std::string text =
      test::read_file(test::corpus_dir() + "/neuron_torchxla/linear3_fwd_spmd_megatron.hlo");
  for (size_t n = 0; n < text.size(); n += 7) {
    auto m = hlo::read_module(text.substr(0, n), "prefix.hlo");
    if (!m) {
      INFO("prefix of " << n << " bytes: " << m.error().format());
      CHECK(m.error().pos.known());
    }
  }
}

TEST_CASE("reader: a negative source line is an error, not a silently dropped field",
          "[hlo][reader]") {
  // Found by the fuzzer: `source_line=-06` read, printed without it, and read back different.
  const Diagnostic d = read_error(module_with(
      "  ROOT %p = f32[4] parameter(0), metadata={source_file=\"a.py\" source_line=-06}"));
  CHECK(d.pos.line == 4);  // the parameter's line: after the header, a blank line and ENTRY
  CHECK_THAT(d.message, Catch::Contains("source_line must not be negative"));
}
