// Robustness on real modules: every module of ../shared/corpus (and XLA's bulk test strings) that
// reads is evaluated on random inputs under tight limits. Each evaluation must end, with a value
// or a positioned error; none may crash or hang.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "core/eval/eval_test_support.h"
#include "eval/random_values.h"
#include "test_support.h"

using namespace scalify;
using namespace scalify::eval;

namespace {

struct Tally {
  int evaluated = 0, refused = 0, skipped = 0;
  std::map<std::string, int> reasons;  ///< the first words of each error
};

/// Random arguments for `m`'s ENTRY, or nullopt when they would be large.
std::optional<std::vector<Value>> small_args(const ir::Module& m, std::mt19937_64& rng) {
  std::vector<Value> args;
  int64_t total = 0;
  for (ir::InstrId p : m.entry().parameters()) {
    if (p < 0) return std::nullopt;
    const ir::Type& t = m.entry()[p].type;
    std::vector<const ir::Type*> leaves{&t};
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (leaves[i]->is_tuple()) {
        for (const ir::Type& e : leaves[i]->elements()) leaves.push_back(&e);
      } else if (leaves[i]->is_array()) {
        for (int64_t d : leaves[i]->dims()) {
          if (d < 0) return std::nullopt;
        }
        total += leaves[i]->element_count();
        if (total > 100'000) return std::nullopt;
      }
    }
    args.push_back(random_value(t, rng));
  }
  return args;
}

void evaluate_one(const std::string& text, const std::string& label, Tally& tally) {
  auto m = hlo::read_module(text, label);
  if (!m) return;
  std::mt19937_64 rng(3);
  const std::optional<std::vector<Value>> args = small_args(*m, rng);
  if (!args) {
    ++tally.skipped;
    return;
  }
  EvalOptions options;
  options.max_elements = int64_t{1} << 18;
  options.max_steps = 200'000;
  options.max_while_iterations = 1'000;
  options.file_name = label;
  auto r = evaluate(*m, m->entry_id, *args, options);
  if (r) {
    ++tally.evaluated;
    return;
  }
  ++tally.refused;
  INFO(r.error().format());
  CHECK(r.error().pos.known());  // every refusal points at an instruction
  const std::string& msg = r.error().message;
  const size_t colon = msg.find(": ");
  std::string reason = colon == std::string::npos ? msg : msg.substr(colon + 2);
  if (reason.size() > 60) reason = reason.substr(0, 60);
  ++tally.reasons[reason];
}

}  // namespace

TEST_CASE("every readable corpus module evaluates or is refused cleanly", "[eval][corpus]") {
  Tally tally;
  for (const std::string& file : test::corpus_hlo_files()) {
    evaluate_one(test::read_file(file), file, tally);
  }
  for (const test::BulkModule& b : test::bulk_corpus_modules())
    evaluate_one(b.text, b.label, tally);
  std::string summary;
  for (const auto& [reason, n] : tally.reasons)
    summary += std::to_string(n) + " x " + reason + "\n";
  INFO(summary << "evaluated " << tally.evaluated << ", refused " << tally.refused
               << ", skipped (large) " << tally.skipped);
  CHECK(tally.evaluated > 500);  // 518 when written
}
