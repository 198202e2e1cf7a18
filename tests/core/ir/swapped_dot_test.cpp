// A dot with its operands swapped, then transposed back, computes the dot: checked numerically
// on random dots (batch, contracting and free dims at random places) with the interpreter.
#include "ir/swapped_dot.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "eval/evaluator.h"
#include "eval/random_values.h"
#include "test_support.h"

using namespace scalify;

namespace {

std::string list(const std::vector<int64_t>& dims) {
  std::string s = "{";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "}";
}

std::string shape(const std::vector<int64_t>& dims) {
  std::string s = "f32[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

/// A random dot as HLO text: its operands' dims (batch, contracting, free) shuffled.
std::string random_dot(std::mt19937& rng) {
  auto sizes = [&](size_t lo, size_t hi) {
    std::vector<int64_t> s(lo + rng() % (hi - lo + 1));
    for (int64_t& d : s) d = 2 + static_cast<int64_t>(rng() % 3);
    return s;
  };
  const auto batch = sizes(0, 1), contracting = sizes(1, 2), lfree = sizes(0, 2),
             rfree = sizes(0, 2);
  struct Side {
    std::vector<int64_t> dims, batch, contracting, free;  ///< free: sizes in dim order
  };
  auto side = [&](const std::vector<int64_t>& free) {
    std::vector<int64_t> roles;  // 0: batch k, 1: contracting k, 2: free k, as 3 * k + role
    for (size_t k = 0; k < batch.size(); ++k) roles.push_back(static_cast<int64_t>(3 * k));
    for (size_t k = 0; k < contracting.size(); ++k)
      roles.push_back(static_cast<int64_t>(3 * k + 1));
    for (size_t k = 0; k < free.size(); ++k) roles.push_back(static_cast<int64_t>(3 * k + 2));
    std::shuffle(roles.begin(), roles.end(), rng);
    Side s;
    s.batch.resize(batch.size());
    s.contracting.resize(contracting.size());
    for (size_t at = 0; at < roles.size(); ++at) {
      const auto k = static_cast<size_t>(roles[at] / 3);
      const int64_t role = roles[at] % 3;
      s.dims.push_back(role == 0 ? batch[k] : role == 1 ? contracting[k] : free[k]);
      if (role == 0) s.batch[k] = static_cast<int64_t>(at);
      if (role == 1) s.contracting[k] = static_cast<int64_t>(at);
      if (role == 2) s.free.push_back(free[k]);
    }
    return s;
  };
  const Side l = side(lfree), r = side(rfree);
  std::vector<int64_t> result = batch;
  result.insert(result.end(), l.free.begin(), l.free.end());
  result.insert(result.end(), r.free.begin(), r.free.end());
  std::string text = "HloModule m\nENTRY e {\n  x = " + shape(l.dims) +
                     " parameter(0)\n  w = " + shape(r.dims) +
                     " parameter(1)\n  ROOT d = " + shape(result) +
                     " dot(x, w), lhs_contracting_dims=" + list(l.contracting) +
                     ", rhs_contracting_dims=" + list(r.contracting);
  if (!batch.empty()) {
    text += ", lhs_batch_dims=" + list(l.batch) + ", rhs_batch_dims=" + list(r.batch);
  }
  return text + "\n}\n";
}

}  // namespace

TEST_CASE("swapped_dot: the dot the other way round, transposed back, numerically", "[ir][dot]") {
  std::mt19937 rng(41);
  std::mt19937_64 values(5);
  for (int trial = 0; trial < 300; ++trial) {
    const std::string text = random_dot(rng);
    INFO(text);
    const ir::Module m = test::parse_module(text);
    const ir::Computation& e = m.entry();
    const ir::Instruction& dot = e[e.root];
    const ir::Type& lt = e[dot.operands[0]].type;
    const ir::Type& rt = e[dot.operands[1]].type;
    const auto s = ir::swapped_dot(dot, lt, rt);
    REQUIRE(s);
    const std::vector<eval::Value> args = {eval::random_value(lt, values),
                                           eval::random_value(rt, values)};
    const auto direct = eval::evaluate_instruction(m, e, dot, args);
    REQUIRE(direct);
    const std::vector<eval::Value> swapped_args = {args[1], args[0]};
    const auto swapped = eval::evaluate_instruction(m, e, s->dot, swapped_args);
    REQUIRE(swapped);
    const ir::Module back =
        test::parse_module("HloModule t\nENTRY e {\n  p = " + shape(s->dot.type.dims()) +
                           " parameter(0)\n  ROOT t = " + shape(dot.type.dims()) +
                           " transpose(p), dimensions=" + list(s->back) + "\n}\n");
    const std::vector<eval::Value> moved_args = {*swapped};
    const auto moved = eval::evaluate(back, back.entry_id, moved_args);
    REQUIRE(moved);
    std::string why;
    CHECK(eval::all_close(*moved, *direct, 1e-9, 1e-9, &why));
    INFO(why);
    // The normal order puts the operand with more free elements first, whichever way round the
    // dot is written: it swaps exactly one of the two.
    const bool first = ir::to_normal_order(dot, lt, rt).has_value();
    const bool second = ir::to_normal_order(s->dot, rt, lt).has_value();
    CHECK((first && second) == false);
  }
}

TEST_CASE("swapped_dot: the doc example", "[ir][dot]") {
  const ir::Module m = test::parse_module(
      "HloModule m\nENTRY e {\n  x = f32[4,8] parameter(0)\n  w = f32[8,6] parameter(1)\n"
      "  ROOT d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  const ir::Computation& e = m.entry();
  const ir::Instruction& d = e[e.root];
  const auto s = ir::to_normal_order(d, e[d.operands[0]].type, e[d.operands[1]].type);
  REQUIRE(s);
  CHECK(s->dot.type.dims() == std::vector<int64_t>{6, 4});
  CHECK(s->dot.dims_attr("lhs_contracting_dims") == ir::DimList{0});
  CHECK(s->dot.dims_attr("rhs_contracting_dims") == ir::DimList{1});
  CHECK(s->back == std::vector<int64_t>{1, 0});
  CHECK_FALSE(ir::to_normal_order(s->dot, e[d.operands[1]].type, e[d.operands[0]].type));
}
