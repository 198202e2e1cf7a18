// Helpers of the interpreter's tests: read a module, evaluate it, look at the numbers.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "eval/evaluator.h"
#include "hlo/reader.h"

namespace scalify::eval::testing {

/// A scalar f32 `add` computation, for reductions and scatters (`to_apply=add`).
inline constexpr const char* kAdd =
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(x, y)\n}\n\n";

/// One ENTRY computation around `body` lines, after `extra` computations.
inline std::string module_with(const std::string& body, const std::string& extra = "") {
  return "HloModule m\n\n" + extra + "ENTRY %main {\n" + body + "\n}\n";
}

inline ir::Module read(const std::string& text) {
  auto m = hlo::read_module(text, "t.hlo");
  if (!m) FAIL(m.error().format());
  return std::move(*m);
}

/// Evaluates the ENTRY computation of `text` on `args`; fails the test on an error.
inline Value eval_ok(const std::string& text, std::vector<Value> args = {},
                     const EvalOptions& options = {}) {
  const ir::Module m = read(text);
  auto r = evaluate(m, m.entry_id, args, options);
  if (!r) FAIL(r.error().format());
  return std::move(*r);
}

/// The error of evaluating the ENTRY computation of `text` on `args` (the test fails if there
/// is none).
inline Diagnostic eval_error(const std::string& text, std::vector<Value> args = {},
                             const EvalOptions& options = {}) {
  const ir::Module m = read(text);
  auto r = evaluate(m, m.entry_id, args, options);
  if (r) FAIL("expected an error, got " << r->to_string());
  return r.error();
}

/// The numbers of a tensor value.
inline std::vector<double> data(const Value& v) {
  REQUIRE_FALSE(v.is_tuple());
  return v.tensor().data;
}

/// Tuple element i's numbers.
inline std::vector<double> data(const Value& v, size_t i) {
  REQUIRE(v.is_tuple());
  REQUIRE(i < v.elements().size());
  return data(v.elements()[i]);
}

/// A tensor of `dims` holding `values`.
inline Value tensor(std::vector<int64_t> dims, std::vector<double> values) {
  return Tensor{std::move(dims), std::move(values)};
}

/// A tensor of `dims` holding 0, 1, 2, … in row-major order.
inline Value iota(std::vector<int64_t> dims) {
  Tensor t{std::move(dims), {}};
  for (int64_t i = 0; i < t.element_count(); ++i) t.data.push_back(static_cast<double>(i));
  return t;
}

/// Element-wise comparison with a small tolerance, explaining the first difference.
inline void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  std::string why;
  const Value g = Tensor{{static_cast<int64_t>(got.size())}, got};
  const Value w = Tensor{{static_cast<int64_t>(want.size())}, want};
  const bool ok = all_close(g, w, 1e-12, 1e-12, &why);
  INFO(why);
  CHECK(ok);
}

}  // namespace scalify::eval::testing
