// End-to-end reader tests on the real graphs of ../shared/corpus (see its README for origins).
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

#include "hlo/printer.h"
#include "hlo/reader.h"
#include "test_support.h"

using namespace scalify;

namespace {

// Counts the ENTRY computation's instructions from the text alone, independently of the reader:
// lines of the ENTRY block that start `name = TYPE` or `name = opcode(` (attributes continued on
// later lines look like `key={…}` and do not match).
size_t count_entry_instructions_in_text(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  bool in_entry = false;
  size_t count = 0;
  static const std::regex kEntry(R"(^\s*ENTRY\s)");
  static const std::regex kEnd(R"(^\s*\}\s*$)");
  static const std::regex kInstruction(
      R"(^\s*(ROOT\s+)?%?[A-Za-z0-9_.\-]+\s*=\s*([a-z][a-z0-9]*\[|\(|[a-z][a-z0-9\-]*\())");
  while (std::getline(lines, line)) {
    if (!in_entry) {
      in_entry = std::regex_search(line, kEntry);
      continue;
    }
    if (std::regex_search(line, kEnd)) break;
    if (std::regex_search(line, kInstruction)) ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("every corpus file is read with its exact ENTRY instruction count", "[corpus][reader]") {
  const auto files = test::corpus_hlo_files();
  REQUIRE(files.size() >= 20);
  for (const std::string& path : files) {
    INFO(path);
    const std::string text = test::read_file(path);
    auto module = hlo::read_module(text, path);
    if (!module) FAIL(module.error().format());
    const size_t expected = count_entry_instructions_in_text(text);
    CHECK(expected > 0);
    CHECK(module->entry().size() == expected);
  }
}

TEST_CASE("every corpus file round-trips through the printer", "[corpus][printer]") {
  for (const std::string& path : test::corpus_hlo_files()) {
    INFO(path);
    auto module = hlo::read_module_file(path);
    if (!module) FAIL(module.error().format());
    const std::string printed = hlo::print_module(*module);
    auto again = hlo::read_module(printed, "printed");
    if (!again) FAIL(again.error().format());
    INFO(ir::first_difference(*module, *again));
    CHECK(*module == *again);
    CHECK(hlo::print_module(*again) == printed);  // printing is a fixed point
  }
}

TEST_CASE("at least 97% of XLA's bulk test modules are read, the rest fail with a position",
          "[corpus][reader][bulk]") {
  const auto modules = test::bulk_corpus_modules();
  REQUIRE(modules.size() == 1002);
  size_t read = 0;
  std::vector<std::string> failures;
  for (const auto& m : modules) {
    auto module = hlo::read_module(m.text, m.label);
    if (module) {
      ++read;
      // What is read must also round-trip.
      auto again = hlo::read_module(hlo::print_module(*module), "printed");
      INFO(m.label);
      REQUIRE(again.has_value());
      CHECK(ir::first_difference(*module, *again) == "");
      continue;
    }
    const Diagnostic& d = module.error();
    INFO(m.label << "\n" << d.format());
    CHECK(d.pos.known());
    CHECK(d.format().find(m.label + ":" + std::to_string(d.pos.line) + ":") == 0);
    failures.push_back(d.format());
  }
  const double share = static_cast<double>(read) / static_cast<double>(modules.size());
  INFO("read " << read << " of " << modules.size());
  for (const auto& f : failures) UNSCOPED_INFO(f);
  CHECK(share >= 0.97);
}
