// Reports of a check: on a generated pair with a planted bug, the Markdown comment leads with the
// verdict, the divergent node and its source line; the HTML page is self-contained (no script but
// its proof as data, nothing fetched), escapes what it quotes, and draws both neighbourhoods; on a
// proven corpus pair it holds every goal's proof. Writing is atomic and refuses other extensions.
#include "report/report.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "hlo/reader.h"
#include "modelgen/llama_generator.h"
#include "report/graph_svg.h"
#include "report/neighbourhood.h"
#include "report/source_snippet.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;

namespace {

/// A generated tiny pair with `bug` planted, written with its model.py, and checked.
struct CheckedPair {
  test::TempDir dir;
  std::string ref_path, dist_path;
  ir::Module ref, dist;
  verify::CheckResult result;

  explicit CheckedPair(const char* bug) {
    modelgen::GenOptions o;
    o.model = *modelgen::llama_preset("tiny");
    o.tp = 2;
    if (bug) o.bug = *modelgen::parse_bug(bug);
    auto pair = modelgen::generate_llama(o);
    REQUIRE(pair);
    ref_path = dir.write("ref.hlo", pair->ref_hlo);
    dist_path = dir.write("dist.hlo", pair->dist_hlo);
    dir.write("model.py", pair->model_py);
    ref = test::parse_module(pair->ref_hlo, ref_path);
    dist = test::parse_module(pair->dist_hlo, dist_path);
    auto checked = verify::check(ref, dist, {});
    REQUIRE(checked);
    result = std::move(*checked);
  }

  report::ReportInput input() const { return {result, ref, dist, ref_path, dist_path}; }
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("report: the Markdown comment leads with the divergence and its source line",
          "[report]") {
  CheckedPair p("missing-allreduce");
  REQUIRE(p.result.verdict == verify::Verdict::kDivergent);
  const verify::Divergence& d = *p.result.divergence;
  const std::string md = report::markdown_report(p.input());
  INFO(md);
  CHECK(md.starts_with("## Scalify: divergent at " + d.dist_node + " (model.py:"));
  const size_t divergence = md.find("**First divergence:**");
  const size_t bijection = md.find("<summary>Bijection");
  REQUIRE(divergence != std::string::npos);
  CHECK(divergence < bijection);
  CHECK_THAT(md, Catch::Contains(d.reason));
  // The source line from model.py, marked, in a python block.
  CHECK_THAT(md, Catch::Contains("```python\n"));
  CHECK_THAT(md, Catch::Contains("> " + std::to_string(d.source->line) + " | "));
  // The bijection is the whole program's, not empty because the check stopped early.
  CHECK(count(md, "| `p") >= 10);
}

TEST_CASE("report: the HTML page is self-contained and shows both neighbourhoods", "[report]") {
  CheckedPair p("missing-allreduce");
  const verify::Divergence& d = *p.result.divergence;
  const std::string html = report::html_report(p.input());
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("<h1 id=\"verdict\">divergent</h1>"));
  CHECK_THAT(html, Catch::Contains("First divergence: <code>" + d.dist_node + "</code>"));
  CHECK(count(html, "<svg ") == 2);
  CHECK_THAT(html, Catch::Contains("distributed: around " + d.dist_node));
  CHECK_THAT(html, Catch::Contains("reference: around " + d.ref_node));
  CHECK_THAT(html, Catch::Contains("class=\"marked\""));
  // Nothing runs and nothing is fetched: no script but the proof (data of type
  // application/json, which browsers do not run), no link, no image or style from elsewhere.
  const std::string open = "<script type=\"application/json\" id=\"scalify-proof\">";
  const size_t proof = html.find(open);
  REQUIRE(proof != std::string::npos);
  const size_t end = html.find("</script>", proof);
  REQUIRE(end != std::string::npos);
  std::string page = html;
  page.erase(proof, end + 9 - proof);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("url(http") == std::string::npos);
  CHECK(page.find("@import") == std::string::npos);
  // Nothing in the proof closes its element early.
  CHECK(html.substr(proof + open.size(), end - proof - open.size()).find('<') == std::string::npos);
}

TEST_CASE("report: an equivalent corpus pair lists every goal with its proof", "[report]") {
  const std::string dir = test::corpus_dir() + "/neuron_torchxla/";
  auto ref = hlo::read_module_file(dir + "linear3_fwd_single.hlo");
  auto dist = hlo::read_module_file(dir + "linear3_fwd_spmd_megatron.hlo");
  REQUIRE(ref);
  REQUIRE(dist);
  auto result = verify::check(*ref, *dist, {});
  REQUIRE(result);
  REQUIRE(result->verdict == verify::Verdict::kEquivalent);
  const report::ReportInput in{*result, *ref, *dist, "linear3_fwd_single.hlo",
                               "linear3_fwd_spmd_megatron.hlo"};
  const std::string html = report::html_report(in);
  CHECK_THAT(html, Catch::Contains("<h1 id=\"verdict\">equivalent</h1>"));
  CHECK(count(html, "<details>") == result->goals.size());
  CHECK(count(html, "<span class=\"yes\">proven</span>") == result->goals.size());
  CHECK_THAT(html, Catch::Contains("by bijection"));
  CHECK(html.find("<svg") == std::string::npos);  // no divergence, no drawing
  const std::string md = report::markdown_report(in);
  CHECK(md.starts_with("## Scalify: equivalent: " + std::to_string(result->goals.size()) + " of " +
                       std::to_string(result->goals.size()) + " outputs proven"));
}

TEST_CASE("report: quoted text is escaped", "[report]") {
  CHECK(report::escape_xml("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  report::Neighbourhood g;
  g.nodes.push_back({"a<b", "add  f32[2]", true});
  const std::string svg = report::to_svg(g, "t & u", "x");
  CHECK_THAT(svg, Catch::Contains("a&lt;b"));
  CHECK_THAT(svg, Catch::Contains("t &amp; u"));
  CHECK(svg.find("a<b") == std::string::npos);
}

TEST_CASE("report: the neighbourhood holds the operands up to two hops and the readers",
          "[report]") {
  const ir::Module m = test::parse_module(R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] exponential(a)
  c = f32[2] negate(b)
  d = f32[2] tanh(c)
  e = f32[2] add(d, d)
  ROOT f = f32[2] multiply(e, a)
})");
  const report::Neighbourhood n = report::neighbourhood(m, "d");
  std::vector<std::string> names;
  for (const auto& node : n.nodes) names.push_back(node.name);
  CHECK(names == std::vector<std::string>{"b", "c", "d", "e"});
  CHECK(n.nodes[2].center);
  CHECK(n.edges.size() == 3);  // b→c, c→d, d→e (once, though e reads d twice)
  CHECK(report::neighbourhood(m, "nothing").nodes.empty());
}

TEST_CASE("report: source snippets and the files they come from", "[report]") {
  test::TempDir dir;
  const std::string py = dir.write("model.py", "a\nb\nc\nd\ne\n");
  const std::string hlo = dir.write("dist.hlo", "");
  CHECK(report::locate_source("model.py", hlo) == py);
  CHECK_FALSE(report::locate_source("missing.py", hlo));
  auto s = report::snippet(py, 2, 2);
  REQUIRE(s);
  REQUIRE(s->lines.size() == 4);  // lines 1 to 4
  CHECK(s->lines[1].marked);
  CHECK(s->lines[1].text == "b");
  CHECK_FALSE(report::snippet(py, 9, 2));
}

TEST_CASE("report: written atomically, by extension", "[report]") {
  CheckedPair p("missing-allreduce");
  test::TempDir out;
  const std::string html = out.path() + "/r.html", md = out.path() + "/r.md";
  REQUIRE(report::write_report(html, p.input()));
  REQUIRE(report::write_report(md, p.input()));
  CHECK(test::read_file(md).starts_with("## Scalify: divergent"));
  CHECK_FALSE(std::filesystem::exists(html + ".partial"));
  auto bad = report::write_report(out.path() + "/r.txt", p.input());
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains(".html or .md"));
  // A report that cannot be written leaves the old one as it was.
  auto unwritable = report::write_report(out.path() + "/no/such/dir/r.md", p.input());
  CHECK_FALSE(unwritable);
  CHECK(test::read_file(md).starts_with("## Scalify: divergent"));
}
