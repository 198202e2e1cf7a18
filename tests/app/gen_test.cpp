// `scalify gen llama` end to end: the built binary writes a pair that `inspect` reads and
// `check` proves (or, with a planted bug, finds in its layer); usage errors exit 2.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "support/json.h"
#include "test_support.h"

using scalify::test::run_cli;

TEST_CASE("gen llama writes ref.hlo, dist.hlo and model.py that check proves", "[app][gen]") {
  scalify::test::TempDir dir;
  const std::string out = dir.path() + "/tiny_tp4";
  const auto gen = run_cli("gen llama --preset tiny --tp 4 --sp --out " + out);
  REQUIRE(gen.exit_code == 0);
  CHECK_THAT(gen.out, Catch::Contains("ref.hlo"));
  CHECK_THAT(gen.out, Catch::Contains("instructions"));
  for (const char* f : {"/ref.hlo", "/dist.hlo", "/model.py"}) {
    CHECK(std::filesystem::file_size(out + f) > 1000);
  }
  CHECK(run_cli("inspect " + out + "/dist.hlo").exit_code == 0);
  const auto check = run_cli("check " + out + "/ref.hlo " + out + "/dist.hlo");
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.out, Catch::Contains("verdict   equivalent"));
  CHECK_THAT(check.out, Catch::Contains("tp=4"));
}

TEST_CASE("gen llama --bug: check is divergent inside the planted layer", "[app][gen]") {
  scalify::test::TempDir dir;
  const std::string out = dir.path() + "/bug";
  REQUIRE(
      run_cli("gen llama --preset tiny --layers 3 --tp 2 --bug missing-allreduce@2 --out " + out)
          .exit_code == 0);
  const auto r = run_cli("check --json " + out + "/ref.hlo " + out + "/dist.hlo");
  CHECK(r.exit_code == 1);
  auto v = scalify::json::parse(r.out);
  REQUIRE(v);
  CHECK((*v)["verdict"].as_string() == "divergent");
  CHECK_THAT((*v)["divergence"]["op_name"].as_string(), Catch::StartsWith("model.layers.2"));
  CHECK_THAT((*v)["divergence"]["reason"].as_string(), Catch::Contains("partial(sum,tp)"));
  CHECK((*v)["divergence"]["source"]["file"].as_string() == "model.py");
}

TEST_CASE("gen example writes both variants and a README; --list names the gallery", "[app][gen]") {
  const auto list = run_cli("gen example --list");
  CHECK(list.exit_code == 0);
  CHECK_THAT(list.out,
             Catch::Contains("vocab-parallel-embedding") && Catch::Contains("gqa-replicated-kv"));
  scalify::test::TempDir dir;
  const std::string out = dir.path() + "/mlp";
  const auto gen = run_cli("gen example mlp-column-row --out " + out);
  REQUIRE(gen.exit_code == 0);
  CHECK(scalify::test::read_file(out + "/README.md").starts_with("# Column-parallel"));
  CHECK(run_cli("check " + out + "/correct/ref.hlo " + out + "/correct/dist.hlo").exit_code == 0);
  const auto bug = run_cli("check " + out + "/bug/ref.hlo " + out + "/bug/dist.hlo");
  CHECK(bug.exit_code == 1);
  CHECK_THAT(bug.out, Catch::Contains("model.py:"));
}

TEST_CASE("gen: usage errors exit 2 with a message", "[app][gen]") {
  scalify::test::TempDir dir;
  const std::string out = " --out " + dir.path() + "/x";
  auto refused = [](const std::string& args, const std::string& words) {
    const auto r = run_cli(args);
    INFO(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(words));
  };
  refused("gen llama --tp 2" + out, "missing --preset");
  refused("gen llama --preset tiny", "missing --out");
  refused("gen llama --preset 7b" + out, "presets: tiny, 8b, 70b, 405b");
  refused("gen gpt --preset tiny" + out, "unknown generator 'gpt'");
  refused("gen example" + out, "missing the example's name");
  refused("gen example moe" + out, "unknown example 'moe'; examples: mlp-column-row");
  refused("gen example mlp-column-row", "missing --out");
  refused("gen llama --preset tiny --tp two" + out, "--tp expects a whole number");
  refused("gen llama --preset tiny --bug nope" + out, "kinds: missing-allreduce");
  refused("gen llama --preset tiny --bug rope-offset" + out, "needs --sp");
  refused("gen llama --preset tiny --tp 3" + out, "does not divide");
  refused("gen llama --preset tiny --frobnicate" + out, "unknown argument '--frobnicate'");
  const auto help = run_cli("gen --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("reshape-wrong-factor"));
  CHECK_THAT(run_cli("--help").out, Catch::Contains("scalify gen llama --preset P"));
}
