// The --spec file: its format, its errors (with positions) and its check against the programs.
#include "verify/spec.h"

#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "test_support.h"

using namespace scalify;
using namespace scalify::verify;

namespace {

/// The 1-based line and column of the first `needle` in `text` (the test's own expectation).
SourcePos pos_of(std::string_view text, std::string_view needle) {
  const size_t at = text.find(needle);
  REQUIRE(at != std::string_view::npos);
  SourcePos p{1, 1};
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.col = 1;
    } else {
      ++p.col;
    }
  }
  return p;
}

const char* const kExample = R"j({"mesh": {"tp": 2},
 "parameters": [{"dist": "p7.28", "ref": "p7.28", "layout": "shard", "dim": 1, "axis": "tp"},
                {"dist": "p16.30", "ref": "p16.30", "layout": "partial(sum,tp)"},
                {"dist": "p3.4", "ref": null},
                {"dist": 25, "layout": "shard(1,tp,pad 50257)"}],
 "outputs": [{"ref_index": 0, "dist_index": 0, "layout": "shard(0,tp)"}],
 "strict": false}
)j";

ir::Module module(const std::string& text) {
  auto m = hlo::read_module(text, "test.hlo");
  INFO((m ? "" : m.error().format()));
  REQUIRE(m.has_value());
  return std::move(*m);
}

/// A reference and a distributed program over tp=2: w is column-sharded, b replicated.
const char* const kRef = R"j(HloModule ref
ENTRY e {
  w = f32[8,4] parameter(0)
  b = f32[4] parameter(1)
  ROOT t = (f32[8,4], f32[4]) tuple(w, b)
}
)j";
const char* const kDist = R"j(HloModule dist
ENTRY e {
  w = f32[8,2] parameter(0)
  b = f32[4] parameter(1)
  ROOT t = (f32[8,2], f32[4]) tuple(w, b)
}
)j";

struct ErrorCase {
  std::string text;
  std::string at;       ///< the text the error points at (its first occurrence)
  std::string message;  ///< a part of the message
};

}  // namespace

TEST_CASE("spec: the documented example parses", "[verify]") {
  const auto spec = parse_spec(kExample, "spec.json");
  INFO((spec ? "" : spec.error().format()));
  REQUIRE(spec.has_value());
  const Mesh tp2 = *Mesh::parse("tp=2");
  REQUIRE(spec->mesh.has_value());
  CHECK(*spec->mesh == tp2);
  CHECK(spec->layout_mesh == tp2);
  CHECK(spec->mesh_pos == pos_of(kExample, "{\"tp\""));
  REQUIRE(spec->parameters.size() == 4);
  const SpecParameter& p0 = spec->parameters[0];
  CHECK(p0.dist.name == "p7.28");
  CHECK(p0.dist.to_string() == "'p7.28'");
  REQUIRE(p0.ref.has_value());
  CHECK(p0.ref->name == "p7.28");
  REQUIRE(p0.layout.has_value());
  CHECK(p0.layout->to_string(tp2) == "shard(1,tp)");
  CHECK(spec->parameters[1].layout->to_string(tp2) == "partial(sum,tp)");
  CHECK(spec->parameters[2].no_ref);
  CHECK_FALSE(spec->parameters[2].ref.has_value());
  CHECK_FALSE(spec->parameters[2].layout.has_value());
  CHECK(spec->parameters[3].dist.number == 25);
  CHECK(spec->parameters[3].dist.to_string() == "parameter 25");
  CHECK_FALSE(spec->parameters[3].ref.has_value());
  CHECK(spec->parameters[3].layout->to_string(tp2) == "shard(1,tp,pad 50257)");
  CHECK(spec->parameters[3].layout_pos == pos_of(kExample, "\"shard(1,tp,pad"));
  REQUIRE(spec->outputs.size() == 1);
  CHECK(spec->outputs[0].ref_index == 0);
  CHECK(spec->outputs[0].dist_index == 0);
  CHECK(spec->outputs[0].layout->to_string(tp2) == "shard(0,tp)");
  CHECK(spec->strict == false);
}

TEST_CASE("spec: structured layouts, empty specs and the caller's mesh", "[verify]") {
  const Mesh m = *Mesh::parse("dp=2,tp=4");
  const auto spec = parse_spec(R"j({"mesh": {"dp": 2, "tp": 4}, "parameters": [
      {"dist": "a", "layout": "partial", "axis": "dp", "op": "max"},
      {"dist": "b", "layout": "partial", "axis": "tp"},
      {"dist": "c", "layout": "shard", "dim": 0, "axis": "tp", "pad": 50257},
      {"dist": "%d", "ref": 3, "layout": "rep"},
      {"dist": "e", "layout": "shard(0,dp)+partial(sum,tp)"}]})j",
                               "s.json");
  INFO((spec ? "" : spec.error().format()));
  REQUIRE(spec.has_value());
  CHECK(spec->parameters[0].layout->to_string(m) == "partial(max,dp)");
  CHECK(spec->parameters[1].layout->to_string(m) == "partial(sum,tp)");
  CHECK(spec->parameters[2].layout->to_string(m) == "shard(0,tp,pad 50257)");
  CHECK(spec->parameters[3].dist.name == "d");
  CHECK(spec->parameters[3].ref->number == 3);
  CHECK(spec->parameters[3].layout->is_rep());
  CHECK(spec->parameters[4].layout->to_string(m) == "shard(0,dp)+partial(sum,tp)");
  CHECK_FALSE(spec->strict.has_value());

  const auto empty = parse_spec("{}", "e.json");
  REQUIRE(empty.has_value());
  CHECK_FALSE(empty->mesh.has_value());
  CHECK(empty->parameters.empty());

  const auto one_device = parse_spec(R"j({"mesh": {}})j", "e.json");
  REQUIRE(one_device.has_value());
  CHECK(one_device->mesh->rank() == 0);

  // Without a "mesh", layouts are read against the caller's mesh.
  const Mesh tp8 = *Mesh::parse("tp=8");
  const auto borrowed =
      parse_spec(R"j({"parameters": [{"dist": 0, "layout": "shard(1,tp)"}]})j", "b.json", &tp8);
  REQUIRE(borrowed.has_value());
  CHECK(borrowed->layout_mesh == tp8);
  CHECK(borrowed->parameters[0].layout->to_string(tp8) == "shard(1,tp)");
  // ... and must then be checked against that same mesh.
  const ir::Module ref = module(kRef), dist = module(kDist);
  const auto other = check_spec(*borrowed, ref, dist, *Mesh::parse("tp=2"));
  REQUIRE(other.has_value());
  CHECK(other->message == "the layout was read against the mesh tp=8, not the mesh in use tp=2");
}

TEST_CASE("spec: errors point at the offending JSON", "[verify]") {
  const std::vector<ErrorCase> cases = {
      {R"j({"mesh": {"tp" 2}})j", "2}", "expected ':'"},
      {"[1, 2]", "[1", "a spec is a JSON object"},
      {R"j({"mesh": {"tp": 2}, "paramters": []})j", "\"paramters\"", "unknown key 'paramters'"},
      {R"j({"mesh": {"tp": 0}})j", "0}", "the size of axis 'tp'"},
      {R"j({"mesh": {"t-p": 2}})j", "\"t-p\"", "not an axis name"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "a", "layout": "shard(1,pp)"}]})j",
       "\"shard(1,pp)\"", "unknown axis 'pp' (the mesh has tp) in layout 'shard(1,pp)'"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "a", "layout": "shard(1;tp)"}]})j",
       "\"shard(1;tp)\"", "bad layout 'shard(1;tp)'"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "a", "layout": "shard", "dim": 1,
           "axis": "pp"}]})j",
       "\"pp\"", "unknown axis 'pp'"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "a", "layout": "shard", "axis": "tp"}]})j",
       "\"shard\"", "needs \"dim\""},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "a", "layout": "rep", "dim": 1}]})j",
       "\"dim\"", "\"dim\" goes with"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "a", "layout": "partial", "axis": "tp",
           "op": "avg"}]})j",
       "\"avg\"", "\"op\" is one of"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"ref": "a"}]})j", "{\"ref\"", "needs \"dist\""},
      {R"j({"parameters": [{"dist": -1}]})j", "-1", "\"dist\" names a parameter"},
      {R"j({"parameters": [{"dist": "a"}, {"dist": "a"}]})j", "\"a\"}]", "already described"},
      {R"j({"parameters": [{"dist": "a", "layout": "shard(0,tp)"}]})j", "\"shard(0,tp)\"",
       "give the spec a \"mesh\""},
      {R"j({"parameters": {"dist": "a"}})j", "{\"dist\"", "\"parameters\" is an array"},
      {R"j({"outputs": [{"ref_index": 0}]})j", "{\"ref_index\"", "needs \"dist_index\""},
      {R"j({"outputs": [{"ref_index": "x", "dist_index": 0}]})j", "\"x\"", "needs \"ref_index\""},
      {R"j({"strict": "yes"})j", "\"yes\"", "\"strict\" is true or false"},
  };
  for (const ErrorCase& c : cases) {
    INFO(c.text);
    const auto spec = parse_spec(c.text, "bad.json");
    REQUIRE_FALSE(spec.has_value());
    const Diagnostic& d = spec.error();
    INFO(d.format());
    CHECK(d.file == "bad.json");
    CHECK(d.pos == pos_of(c.text, c.at));
    CHECK(d.message.find(c.message) != std::string::npos);
    CHECK_FALSE(d.line_text.empty());
  }
}

TEST_CASE("spec: read_spec reads files and reports unreadable ones", "[verify]") {
  test::TempDir dir;
  const std::string path = dir.write("spec.json", kExample);
  const auto spec = read_spec(path);
  REQUIRE(spec.has_value());
  CHECK(spec->file == path);
  CHECK(spec->parameters.size() == 4);
  const auto missing = read_spec(dir.path() + "/nope.json");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().file == dir.path() + "/nope.json");
  const std::string bad = dir.write("bad.json", "{\n  \"mesh\": {\"tp\": 2},\n  \"x\": 1\n}\n");
  const auto unknown = read_spec(bad);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().pos == SourcePos{3, 3});
  CHECK(unknown.error().format().find(bad + ":3:3: error: unknown key 'x'") == 0);
}

TEST_CASE("spec: check_spec against the programs", "[verify]") {
  const ir::Module ref = module(kRef), dist = module(kDist);
  const Mesh tp2 = *Mesh::parse("tp=2");
  const auto check = [&](const std::string& text, const Mesh& mesh) {
    const auto spec = parse_spec(text, "c.json");
    INFO((spec ? "" : spec.error().format()));
    REQUIRE(spec.has_value());
    return check_spec(*spec, ref, dist, mesh);
  };
  CHECK_FALSE(check(R"j({"mesh": {"tp": 2}, "parameters": [
      {"dist": "w", "ref": "w", "layout": "shard(1,tp)"},
      {"dist": 1, "ref": 1, "layout": "rep"}],
      "outputs": [{"ref_index": 1, "dist_index": 1, "layout": "rep"},
                  {"ref_index": 0, "dist_index": 0, "layout": "shard", "dim": 1, "axis": "tp"}]})j",
                    tp2)
                  .has_value());

  const std::vector<ErrorCase> cases = {
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "w2", "ref": "w"}]})j", "\"w2\"",
       "the distributed program has no parameter 'w2'"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "t", "ref": "w"}]})j", "\"t\"",
       "no parameter 't'"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": 0, "ref": 7}]})j", "7",
       "the reference program has no parameter parameter 7"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": 0}, {"dist": "w"}]})j", "\"w\"",
       "'w' is already described at 1:45"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": 0, "ref": 0}, {"dist": 1, "ref": "w"}]})j",
       "\"w\"", "already stands for another"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "w", "ref": "w", "layout": "rep"}]})j",
       "\"rep\"", "the layout makes f32[8,2] a f32[8,2], not f32[8,4]"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "w", "ref": "w", "layout": "shard(0,tp)"}]})j",
       "\"shard(0,tp)\"", "cannot relate 'w' to 'w'"},
      {R"j({"mesh": {"tp": 2}, "parameters": [{"dist": "b", "ref": "w", "layout": "rep"}]})j",
       "\"rep\"", "not f32[8,4]"},
      {R"j({"mesh": {"tp": 4}})j", "{\"tp\": 4}",
       "the spec's mesh tp=4 is not the mesh in use, tp=2"},
      {R"j({"outputs": [{"ref_index": 2, "dist_index": 0}]})j", "{\"ref_index\"",
       "the reference program has 2 result(s): no index 2"},
      {R"j({"outputs": [{"ref_index": 0, "dist_index": 5}]})j", "{\"ref_index\"",
       "the distributed program has 2 result(s)"},
      {R"j({"mesh": {"tp": 2}, "outputs": [{"ref_index": 0, "dist_index": 0, "layout": "rep"}]})j",
       "\"rep\"", "cannot relate the outputs"},
  };
  for (const ErrorCase& c : cases) {
    INFO(c.text);
    const std::optional<Diagnostic> d = check(c.text, tp2);
    REQUIRE(d.has_value());
    INFO(d->format());
    CHECK(d->file == "c.json");
    CHECK(d->pos == pos_of(c.text, c.at));
    CHECK(d->message.find(c.message) != std::string::npos);
  }
}

TEST_CASE("spec: layout_misfit explains", "[verify]") {
  const Mesh tp2 = *Mesh::parse("tp=2");
  const auto f32 = [](std::vector<int64_t> dims) {
    return ir::Type::array(ir::DType::kF32, std::move(dims));
  };
  const Layout col = Layout::on(tp2, 0, AxisLayout::shard(1));
  CHECK(layout_misfit(col, f32({4096, 2048}), f32({4096, 4096}), tp2).empty());
  CHECK(layout_misfit(Layout::replicated(1), f32({4096, 2048}), f32({4096, 4096}), tp2) ==
        "the layout makes f32[4096,2048] a f32[4096,2048], not f32[4096,4096]");
  CHECK(layout_misfit(Layout::on(tp2, 0, AxisLayout::shard(1, 50257)), f32({768, 25129}),
                      f32({768, 50257}), tp2)
            .empty());
  CHECK(layout_misfit(Layout::replicated(1), f32({4}), ir::Type::array(ir::DType::kS32, {4}), tp2)
            .find("element types differ") != std::string::npos);
  CHECK(layout_misfit(Layout::on(tp2, 0, AxisLayout::shard(3)), f32({4}), f32({8}), tp2) ==
        "the layout does not fit f32[4]");
  CHECK(layout_misfit(Layout::replicated(2), f32({4}), f32({4}), tp2) ==
        "the layout was read against another mesh");
}
