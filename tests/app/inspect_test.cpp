// `scalify inspect` end to end: the built binary on real corpus files.
#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "support/json.h"
#include "test_support.h"

using scalify::json::Value;
using scalify::test::CommandResult;
using scalify::test::run_cli;

namespace {

std::string corpus(const std::string& relative) {
  return scalify::test::corpus_dir() + "/" + relative;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// Instructions of the ENTRY computation counted from the text alone: the `name = …` lines
/// between the `ENTRY` line and the closing `}` (independent of the reader).
size_t count_entry_instructions(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  size_t n = 0;
  while (std::getline(in, line)) {
    const std::string_view t = trimmed(line);
    if (!inside) {
      inside = t.starts_with("ENTRY");
      continue;
    }
    if (t == "}") break;
    if (t.find(" = ") != std::string_view::npos) ++n;
  }
  return n;
}

Value inspect_json(const std::string& path) {
  const CommandResult r = run_cli("inspect '" + path + "' --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto v = scalify::json::parse(r.out, "stdout");  // rejects anything after the one object
  if (!v) FAIL(v.error().format());
  REQUIRE(v->is_object());
  return *v;
}

size_t line_count(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

TEST_CASE("inspect --json: gpt2 tp2 summary matches the text", "[cli]") {
  const std::string path = corpus("neuron_torchxla/gpt2_decode_tp2.hlo");
  const Value j = inspect_json(path);
  const size_t expected = count_entry_instructions(scalify::test::read_file(path));
  REQUIRE(expected > 100);
  CHECK(j.find("entry_instructions")->as_int() == static_cast<int64_t>(expected));

  CHECK(j.find("module")->as_string() == "FullyUnrolled.217");
  CHECK(j.find("instructions")->as_int() >= j.find("entry_instructions")->as_int());
  CHECK(j.find("parameters")->size() == 26);
  const Value& p9 = (*j.find("parameters"))[9];
  CHECK(p9.find("name")->as_string() == "p9.23");
  CHECK(p9.find("type")->as_string() == "f32[768,384]");
  // The ROOT is a tuple of three: one output per element.
  REQUIRE(j.find("outputs")->size() == 3);
  CHECK((*j.find("outputs"))[0].find("name")->as_string() == "reshape.215");
  CHECK((*j.find("outputs"))[0].find("type")->as_string() == "f32[25129,1,4]");

  // Two all-reduces over ranks {0,1}, summing.
  const Value& collectives = *j.find("collectives");
  REQUIRE(collectives.size() == 2);
  for (const Value& c : collectives.as_array()) {
    CHECK(c.find("opcode")->as_string() == "all-reduce");
    CHECK(c.find("replica_groups")->dump() == "[[0,1]]");
    CHECK(c.find("reduction")->as_string() == "add");
  }
  CHECK(collectives[0].find("name")->as_string() == "all-reduce.158");
  CHECK(j.find("opcodes")->find("all-reduce")->as_int() == 2);
  CHECK(j.find("custom_calls")->find("AwsNeuronTransferWithStaticRing")->as_int() > 0);
}

TEST_CASE("inspect --json: the contract keys and their types, on every corpus file", "[cli]") {
  for (const std::string& path : scalify::test::corpus_hlo_files()) {
    INFO(path);
    const Value j = inspect_json(path);
    CHECK(j.find("module")->is_string());
    CHECK(j.find("computations")->is_integer());
    CHECK(j.find("instructions")->is_integer());
    CHECK(j.find("entry_instructions")->is_integer());
    CHECK(j.find("opcodes")->is_object());
    CHECK(j.find("parameters")->is_array());
    CHECK(j.find("outputs")->is_array());
    CHECK(j.find("collectives")->is_array());
    CHECK(j.find("custom_calls")->is_object());
    const double coverage = j.find("metadata_coverage")->as_double();
    CHECK(coverage >= 0.0);
    CHECK(coverage <= 1.0);
    for (const Value& v : j.find("parameters")->as_array()) {
      CHECK(v.find("name")->is_string());
      CHECK(v.find("type")->is_string());
    }
    for (const Value& v : j.find("outputs")->as_array()) {
      CHECK(v.find("name")->is_string());
      CHECK(v.find("type")->is_string());
    }
    CHECK(j.find("entry_instructions")->as_int() ==
          static_cast<int64_t>(count_entry_instructions(scalify::test::read_file(path))));
    int64_t opcode_total = 0;
    for (const auto& [name, n] : j.find("opcodes")->as_object()) opcode_total += n.as_int();
    CHECK(opcode_total == j.find("instructions")->as_int());
  }
}

TEST_CASE("inspect --json: source coverage and iota replica groups", "[cli]") {
  const Value bert = inspect_json(corpus("neuron_torchxla/bert_pretrain_fwdbwd_tp2.hlo"));
  CHECK(bert.find("metadata_coverage")->as_double() > 0.3);
  CHECK(bert.find("collectives")->size() == 4);

  const Value llama = inspect_json(corpus("xla/llama31_405b_train_step_spmd_16x8.hlo"));
  const Value& collectives = *llama.find("collectives");
  REQUIRE(collectives.size() > 0);
  const Value& first = collectives[0];
  CHECK(first.find("iota")->as_bool());
  CHECK(first.find("replica_groups_text")->as_string() == "[1,128]<=[128]");
  REQUIRE(first.find("replica_groups")->size() == 1);
  CHECK(first.find("replica_groups")->as_array()[0].size() == 128);
  CHECK(llama.find("parameters")->as_array()[2].find("sharding")->as_string() ==
        "{devices=[128,1,1]<=[128]}");
}

TEST_CASE("inspect: a readable summary", "[cli]") {
  const CommandResult r =
      run_cli("inspect '" + corpus("neuron_torchxla/gpt2_decode_tp2.hlo") + "'");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("FullyUnrolled.217") != std::string::npos);
  CHECK(r.out.find("178 in ENTRY") != std::string::npos);
  CHECK(r.out.find("p9.23") != std::string::npos);
  CHECK(r.out.find("f32[768,384]") != std::string::npos);
  CHECK(std::regex_search(
      r.out,
      std::regex(
          "all-reduce\\.158 +all-reduce\\(add\\) +f32\\[768,1,4\\] +groups \\{\\{0,1\\}\\}")));
  CHECK(r.out.find("AwsNeuronTransferWithStaticRing") != std::string::npos);
  CHECK(r.out.find("source sites") != std::string::npos);
  CHECK(r.out.find("… and 16 more") != std::string::npos);  // 26 parameters, 10 shown
  // Opcodes sorted by count: parameter (42) is the most frequent.
  CHECK(std::regex_search(r.out, std::regex("opcodes[^\n]*\n  parameter +42 ")));
}

TEST_CASE("inspect: big modules stay within a screen", "[cli]") {
  for (const char* file : {"xla/maxtext_train_step_before_optimizations.hlo",
                           "xla/llama31_405b_train_step_spmd_16x8.hlo",
                           "neuron_torchxla/bert_pretrain_fwdbwd_tp2.hlo"}) {
    const CommandResult r = run_cli(std::string("inspect '") + corpus(file) + "'");
    INFO(file << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(line_count(r.out) <= 60);
    CHECK(r.out.find("… and") != std::string::npos);
  }
  const CommandResult r =
      run_cli("inspect '" + corpus("xla/llama31_405b_train_step_spmd_16x8.hlo") + "'");
  CHECK(r.out.find("(1 group of 128)") != std::string::npos);
}

TEST_CASE("inspect: a corrupt file gives FILE:LINE:COL and exit 2", "[cli]") {
  scalify::test::TempDir dir;
  const std::string path = dir.write("corrupt.hlo",
                                     "HloModule m\n"
                                     "ENTRY e {\n"
                                     "  p = f32[2] parameter(0)\n"
                                     "  ROOT n = f32[2] negate(q)\n"
                                     "}\n");
  for (const char* flag : {"", " --json"}) {
    const CommandResult r = run_cli("inspect '" + path + "'" + flag);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    REQUIRE(r.err.starts_with(path + ":4:"));
    CHECK(std::regex_search(r.err.substr(path.size()), std::regex("^:4:[0-9]+: error: ")));
  }
  const std::string binary = dir.write("binary.hlo", std::string("\x7f"
                                                                 "ELF\x00\x01\x02",
                                                                 7));
  const CommandResult b = run_cli("inspect '" + binary + "'");
  CHECK(b.exit_code == 2);
  CHECK(b.err.find("error:") != std::string::npos);
}

TEST_CASE("inspect: a missing file is exit 2", "[cli]") {
  scalify::test::TempDir dir;
  const std::string path = dir.path() + "/no-such-file.hlo";
  const CommandResult r = run_cli("inspect '" + path + "' --json");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(path) != std::string::npos);
  CHECK(r.err.find("error:") != std::string::npos);
}

TEST_CASE("scalify: usage errors are exit 2 with usage on stderr", "[cli]") {
  for (const char* args : {"", "frobnicate", "--frobnicate", "inspect", "inspect --bogus x.hlo",
                           "inspect a.hlo b.hlo"}) {
    const CommandResult r = run_cli(args);
    INFO("scalify " << args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("usage: scalify") != std::string::npos);
  }
  CHECK(run_cli("frobnicate").err.find("unknown command 'frobnicate'") != std::string::npos);
  CHECK(run_cli("inspect --bogus x.hlo").err.find("unknown option '--bogus'") != std::string::npos);
}

TEST_CASE("scalify: help and version are exit 0 on stdout", "[cli]") {
  for (const char* args : {"--help", "-h", "help"}) {
    const CommandResult r = run_cli(args);
    INFO(args);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("usage: scalify") != std::string::npos);
    CHECK(r.out.find("inspect FILE [--json]") != std::string::npos);
  }
  for (const char* args : {"inspect --help", "help inspect"}) {
    const CommandResult r = run_cli(args);
    INFO(args);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("usage: scalify inspect") != std::string::npos);
  }
  const CommandResult v = run_cli("--version");
  CHECK(v.exit_code == 0);
  CHECK(std::regex_search(v.out, std::regex("^scalify [0-9]+\\.[0-9]+")));
}
