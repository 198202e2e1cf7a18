// `scalify check` end to end: the built binary on the real pairs, on an injected bug, and on
// bad input (exit codes, the JSON interface of DESIGN.md, messages with positions).
#include <catch2/catch.hpp>
#include <string>

#include "hlo/printer.h"
#include "hlo/reader.h"
#include "support/hlo_mutations.h"
#include "support/json.h"
#include "support/layered_example.h"
#include "support/two_axis_example.h"
#include "test_support.h"

using scalify::test::run_cli;

namespace {

std::string pair_args(const std::string& ref, const std::string& dist) {
  const std::string dir = scalify::test::corpus_dir() + "/neuron_torchxla/";
  return dir + ref + " " + dir + dist;
}

scalify::json::Value parse(const std::string& text) {
  auto v = scalify::json::parse(text);
  REQUIRE(v);
  return *v;
}

/// The corpus program `dist` with its first collective dropped.
scalify::test::Mutant first_collective_dropped(const std::string& dist) {
  auto m = scalify::hlo::read_module_file(scalify::test::corpus_dir() + "/neuron_torchxla/" + dist);
  REQUIRE(m);
  const auto sites =
      scalify::test::mutation_sites(*m, scalify::test::MutationKind::kDropCollective);
  REQUIRE(!sites.empty());
  auto mutant = scalify::test::apply_mutation(*m, sites.front());
  REQUIRE(mutant);
  return std::move(*mutant);
}

}  // namespace

TEST_CASE("check --json on GPT-2 tp2: equivalent, with the DESIGN.md fields", "[app][check]") {
  const auto r = run_cli("check --json " + pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo"));
  REQUIRE(r.exit_code == 0);
  auto v = parse(r.out);
  CHECK(v["verdict"].as_string() == "equivalent");
  CHECK(v["mesh"]["tp"].as_int() == 2);
  CHECK(v["divergence"].is_null());
  REQUIRE(v["goals"].as_array().size() == 3);
  for (const auto& g : v["goals"].as_array()) {
    CHECK(g.as_object().find("proven")->as_bool());
    CHECK(!g.as_object().find("proof")->as_array().empty());
  }
  const auto& first = v["bijection"].as_array().at(9).as_object();
  CHECK(first.find("dist")->as_string() == "p9.23");
  CHECK(first.find("layout")->as_string() == "shard");
  CHECK(first.find("dim")->as_int() == 1);
  CHECK(first.find("axis")->as_string() == "tp");
  REQUIRE(v["assumptions"].as_array().size() == 2);
  CHECK(v["assumptions"].as_array()[0].as_object().find("layout")->as_string() ==
        "partial(sum,tp)");
  CHECK(v["unmatched"]["ref_outputs"].as_array().empty());
  CHECK(v["stats"]["enodes"].as_int() > 0);
}

TEST_CASE("check: a dropped all-reduce is divergent (exit 1) with node, reason and source",
          "[app][check]") {
  scalify::test::TempDir dir;
  const auto mutant = first_collective_dropped("gpt2_decode_tp2.hlo");
  const std::string path = dir.write("dist.hlo", scalify::hlo::print_module(mutant.module));
  const std::string ref = scalify::test::corpus_dir() + "/neuron_torchxla/gpt2_decode_tp1.hlo";

  const auto text = run_cli("check " + ref + " " + path);
  CHECK(text.exit_code == 1);
  CHECK_THAT(text.out, Catch::Contains("verdict   divergent"));
  CHECK_THAT(text.out, Catch::Contains("first divergence:"));
  CHECK_THAT(text.out, Catch::Contains("partial(sum,tp)"));

  const auto r = run_cli("check --json " + ref + " " + path);
  CHECK(r.exit_code == 1);
  auto v = parse(r.out);
  CHECK(v["verdict"].as_string() == "divergent");
  auto& d = v["divergence"];
  const auto& near = mutant.mutation.near;
  CHECK(std::find(near.begin(), near.end(), d["dist_node"].as_string()) != near.end());
  CHECK_THAT(d["reason"].as_string(),
             Catch::Contains("all-reduce is missing") || Catch::Contains("counted 2 times"));
  CHECK(d["operand_layouts"].as_array().size() >= 1);
}

TEST_CASE("check: the source site of a divergence comes from the metadata", "[app][check]") {
  // BERT carries source_file/source_line: a planted bug is reported at its node with the
  // Python line behind it.
  const std::string ref =
      scalify::test::corpus_dir() + "/neuron_torchxla/bert_pretrain_fwdbwd_tp1.hlo";
  scalify::test::TempDir dir;
  const std::string path = dir.write(
      "dist.hlo",
      scalify::hlo::print_module(first_collective_dropped("bert_pretrain_fwdbwd_tp2.hlo").module));
  const auto r = run_cli("check --json " + ref + " " + path);
  CHECK(r.exit_code == 1);
  auto v = parse(r.out);
  REQUIRE(v["verdict"].as_string() == "divergent");
  CHECK(v["divergence"]["source"]["file"].as_string().ends_with(".py"));
  CHECK(v["divergence"]["source"]["line"].as_int() > 0);
}

TEST_CASE("check: bad input and usage exit 2 with a message", "[app][check]") {
  scalify::test::TempDir dir;
  const std::string bad =
      dir.write("bad.hlo", "HloModule m\nENTRY e {\n  ROOT %p = f32[2] bogus(0)\n}\n");
  const std::string ref = scalify::test::corpus_dir() + "/neuron_torchxla/gpt2_decode_tp1.hlo";
  const auto r = run_cli("check " + ref + " " + bad);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("bad.hlo:3:"));
  CHECK(run_cli("check " + ref).exit_code == 2);
  CHECK(run_cli("check --mesh tp=zero " + ref + " " + ref).exit_code == 2);
  const std::string tp2 = scalify::test::corpus_dir() + "/neuron_torchxla/gpt2_decode_tp2.hlo";
  const auto small = run_cli("check --mesh tp=1 " + ref + " " + tp2);
  CHECK(small.exit_code == 2);
  CHECK_THAT(small.err, Catch::Contains("gpt2_decode_tp2.hlo:") &&
                            Catch::Contains("name device 1, but the mesh tp=1 has 1 device"));
  const std::string spec =
      dir.write("spec.json", "{\"mesh\": {\"tp\": 2},\n \"parameters\": [{\"dist\": \"nope\"}]}\n");
  const auto s = run_cli("check --spec " + spec + " " +
                         pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo"));
  CHECK(s.exit_code == 2);
  CHECK_THAT(s.err, Catch::Contains("spec.json:2:"));
}

TEST_CASE("check --report writes the Markdown and HTML reports beside the usual output",
          "[app][check]") {
  scalify::test::TempDir dir;
  const std::string pair = pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo");
  const auto md = run_cli("check --report " + dir.path() + "/r.md " + pair);
  CHECK(md.exit_code == 0);
  CHECK_THAT(md.out, Catch::Contains("verdict   equivalent"));
  const std::string text = scalify::test::read_file(dir.path() + "/r.md");
  CHECK(text.starts_with("## Scalify: equivalent"));
  CHECK_THAT(text, Catch::Contains("**The verdict holds only if:**"));  // GPT-2's bias contract
  const auto html = run_cli("check --json --report " + dir.path() + "/r.html " + pair);
  CHECK(html.exit_code == 0);
  CHECK(parse(html.out)["verdict"].as_string() == "equivalent");
  CHECK_THAT(scalify::test::read_file(dir.path() + "/r.html"),
             Catch::Contains("<h1 id=\"verdict\">equivalent</h1>"));
  const auto bad = run_cli("check --report " + dir.path() + "/r.txt " + pair);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--report needs a file ending in .html or .md"));
  const auto nowhere = run_cli("check --report " + dir.path() + "/no/dir/r.md " + pair);
  CHECK(nowhere.exit_code == 2);
  CHECK_THAT(nowhere.err, Catch::Contains("cannot write the report"));
}

TEST_CASE("check --spec can state a layout the inference would not choose", "[app][check]") {
  scalify::test::TempDir dir;
  // Replicated biases (the wrong contract for this program): the check must then fail.
  const std::string spec = dir.write(
      "spec.json",
      "{\"parameters\": [{\"dist\": \"p16.30\", \"ref\": \"p16.30\", \"layout\": \"rep\"},\n"
      "                {\"dist\": \"p22.36\", \"ref\": \"p22.36\", \"layout\": \"rep\"}]}\n");
  const auto r = run_cli("check --json --spec " + spec + " " +
                         pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo"));
  CHECK(r.exit_code == 1);
  auto v = parse(r.out);
  CHECK(v["verdict"].as_string() == "divergent");
  CHECK_THAT(v["divergence"]["reason"].as_string(), Catch::Contains("counted 2 times"));
}

TEST_CASE("check --spec output layouts are goals: the right value in another layout diverges",
          "[app][check]") {
  scalify::test::TempDir dir;
  const std::string args = pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo");
  const std::string right = dir.write("right.json",
                                      "{\"outputs\": [{\"ref_index\": 0, \"dist_index\": 0,\n"
                                      "              \"layout\": \"shard(0,tp,pad 50257)\"}]}\n");
  CHECK(run_cli("check --spec " + right + " " + args).exit_code == 0);
  // A layout the shapes allow but the program does not give: the two-axis product is summed
  // over tp, so the output is shard(0,dp), not still partial over tp.
  const std::string ref = dir.write("ref.hlo", scalify::test::kTwoAxisRef);
  const std::string dist = dir.write("dist.hlo", scalify::test::kTwoAxisDist);
  const std::string wrong =
      dir.write("wrong.json",
                "{\"mesh\": {\"dp\": 2, \"tp\": 4},\n \"outputs\": [{\"ref_index\": 0, "
                "\"dist_index\": 0, \"layout\": \"shard(0,dp)+partial(sum,tp)\"}]}\n");
  const auto r = run_cli("check --json --spec " + wrong + " " + ref + " " + dist);
  CHECK(r.exit_code == 1);
  auto v = parse(r.out);
  CHECK_THAT(v["divergence"]["reason"].as_string(),
             Catch::Contains("the spec requires shard(0,dp)+partial(sum,tp)"));
  CHECK(v["divergence"]["dist_node"].as_string() == "y");
  // An output the spec says has no counterpart is reported, not a goal.
  const std::string none =
      dir.write("none.json", "{\"outputs\": [{\"ref_index\": 2, \"dist_index\": null}]}\n");
  const auto n = run_cli("check --json --spec " + none + " " + args);
  CHECK(n.exit_code == 0);
  auto nv = parse(n.out);
  CHECK(nv["unmatched"]["ref_outputs"].as_array().size() == 1);
  CHECK(nv["goals"].as_array().size() == 2);
}

TEST_CASE("check --explain prints every proven goal's proof under it", "[app][check]") {
  const std::string args = pair_args("linear3_fwd_single.hlo", "linear3_fwd_spmd_megatron.hlo");
  const auto plain = run_cli("check --no-cache " + args);
  const auto explained = run_cli("check --no-cache --explain " + args);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(explained.exit_code == 0);
  CHECK_THAT(plain.out, !Catch::Contains("by bijection"));
  // The facts the goal rests on, one a line, then how the reference term meets the output.
  CHECK_THAT(explained.out, Catch::Contains("proven, rep\n      [0] param.6 ~ rep of e-class"));
  CHECK_THAT(explained.out, Catch::Contains("by all-gather from [5]"));
  CHECK_THAT(explained.out, Catch::Contains("the reference term equals tuple.74#0 by"));
}

TEST_CASE("check by layers: parts and memo hits, the cache reused across runs", "[app][check]") {
  scalify::test::TempDir dir;
  const std::string ref = dir.write("ref.hlo", scalify::test::layered_hlo({5}, 1));
  const std::string dist = dir.write("dist.hlo", scalify::test::layered_hlo({5}, 2));
  const std::string cache = dir.path() + "/memo.sqlite";
  const std::string args = "check -j 2 --cache " + cache + " " + ref + " " + dist;
  auto first = run_cli(args);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::Contains("5 parts"));
  auto second = run_cli(args + " --json");
  REQUIRE(second.exit_code == 0);
  auto v = parse(second.out);
  CHECK(v["stats"]["parts"].as_int() == 5);
  CHECK(v["stats"]["memo_hits"].as_int() == 5);  // all from the cache file
  // A damaged cache is moved aside with a warning; the check goes on.
  dir.write("bad.sqlite", "not a database");
  auto damaged = run_cli("check --cache " + dir.path() + "/bad.sqlite " + ref + " " + dist);
  CHECK(damaged.exit_code == 0);
  CHECK_THAT(damaged.err, Catch::Contains("moved to"));
  // --no-cache and --whole.
  auto whole = run_cli("check --no-cache --whole --json " + ref + " " + dist);
  REQUIRE(whole.exit_code == 0);
  CHECK(parse(whole.out)["stats"]["parts"].as_int() == 1);
  CHECK(run_cli("check -j 0 " + ref + " " + dist).exit_code == 2);
  CHECK(run_cli("check --cache").exit_code == 2);
}
