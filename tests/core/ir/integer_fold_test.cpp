// Folding integer scalars: every op and type agrees with the reference interpreter on random
// values (wrapping, unsigned comparison, division), and what cannot be folded is not.
#include "ir/integer_fold.h"

#include <catch2/catch.hpp>
#include <random>

#include "eval/evaluator.h"
#include "test_support.h"

using namespace scalify;

namespace {

/// `ROOT r = T[] OP(a, b)` (with `direction=DIR` for a compare) over scalar parameters of `t`.
ir::Module binary_module(std::string_view op, std::string_view t, std::string_view dir) {
  const std::string type(t);
  const std::string result = op == "compare" ? "pred" : type;
  std::string text = "HloModule m\nENTRY e {\n  a = " + type + "[] parameter(0)\n  b = " + type +
                     "[] parameter(1)\n  ROOT r = " + result + "[] " + std::string(op) + "(a, b)";
  if (op == "compare") text += ", direction=" + std::string(dir);
  return test::parse_module(text + "\n}\n");
}

}  // namespace

TEST_CASE("fold_integer: agrees with the interpreter on every op and integer type", "[ir]") {
  std::mt19937_64 rng(7);
  const std::vector<std::string_view> ops = {"add",       "subtract", "multiply", "divide",
                                             "remainder", "maximum",  "minimum",  "and",
                                             "or",        "xor",      "compare"};
  const std::vector<std::pair<std::string_view, ir::DType>> types = {
      {"s8", ir::DType::kS8},   {"u8", ir::DType::kU8},   {"s16", ir::DType::kS16},
      {"s32", ir::DType::kS32}, {"u32", ir::DType::kU32}, {"s64", ir::DType::kS64}};
  const std::vector<std::string_view> dirs = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  int compared = 0;
  for (std::string_view op : ops) {
    for (const auto& [name, dtype] : types) {
      for (std::string_view dir : op == "compare" ? dirs : std::vector<std::string_view>{""}) {
        const ir::Module m = binary_module(op, name, dir);
        const ir::Instruction& r = m.entry()[m.entry().root];
        for (int trial = 0; trial < 40; ++trial) {
          // Values of the type, small enough that the interpreter's doubles are exact.
          std::uniform_int_distribution<int64_t> any(-40000, 40000);
          const int64_t a = *ir::wrap_integer(any(rng), dtype);
          const int64_t b = *ir::wrap_integer(trial % 7 == 0 ? a : any(rng), dtype);
          const std::vector<std::optional<ir::IntScalar>> operands = {ir::IntScalar{a, dtype},
                                                                      ir::IntScalar{b, dtype}};
          const auto folded = ir::fold_integer(r, operands);
          const std::vector<eval::Value> args = {eval::Tensor::scalar(static_cast<double>(a)),
                                                 eval::Tensor::scalar(static_cast<double>(b))};
          const auto want = eval::evaluate(m, m.entry_id, args);
          REQUIRE(want);
          INFO(op << " " << dir << " " << name << " " << a << " " << b);
          if (b == 0 && (op == "divide" || op == "remainder")) {
            CHECK_FALSE(folded);  // XLA defines it; the folder leaves it alone
            continue;
          }
          REQUIRE(folded);
          CHECK(static_cast<double>(folded->value) == want->tensor().data[0]);
          ++compared;
        }
      }
    }
  }
  CHECK(compared > 2000);
}

TEST_CASE("fold_integer: constants, converts, select, and what it leaves alone", "[ir]") {
  const ir::Module m = test::parse_module(R"(HloModule m
ENTRY e {
  big = u32[] constant(4294967295)
  one = u32[] constant(1)
  wrapped = u32[] add(big, one)
  less = pred[] compare(one, big), direction=LT
  neg = s32[] constant(-3)
  as_u8 = u8[] convert(neg)
  t = pred[] constant(true)
  pick = s32[] select(t, neg, neg)
  table = s32[3] constant({0, 512, 1024})
  f = f32[] constant(1.5)
  g = pred[] compare(f, f), direction=EQ
  pid = u32[] partition-id()
  ROOT k = u32[] add(pid, one)
}
)");
  const ir::Computation& e = m.entry();
  std::vector<std::optional<ir::IntScalar>> known(e.size());
  for (ir::InstrId id = 0; id < static_cast<ir::InstrId>(e.size()); ++id) {
    std::vector<std::optional<ir::IntScalar>> operands;
    for (ir::InstrId o : e[id].operands) operands.push_back(known[static_cast<size_t>(o)]);
    known[static_cast<size_t>(id)] = ir::fold_integer(e[id], operands);
  }
  const auto value = [&](const char* name) { return known[static_cast<size_t>(*e.find(name))]; };
  CHECK(value("wrapped")->value == 0);
  CHECK(value("less")->value == 1);  // unsigned: 4294967295 is the larger
  CHECK(value("as_u8")->value == 253);
  CHECK(value("pick")->value == -3);
  CHECK(value("t")->dtype == ir::DType::kPred);
  CHECK_FALSE(value("table"));  // not a scalar
  CHECK_FALSE(value("f"));      // not an integer
  CHECK_FALSE(value("g"));      // a compare of floats
  CHECK_FALSE(value("pid"));    // differs by rank
  CHECK_FALSE(value("k"));
  CHECK(*ir::integer_literal(e[*e.find("table")]) == std::vector<int64_t>{0, 512, 1024});
}
