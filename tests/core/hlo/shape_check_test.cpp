// Result-type checks on small HLO snippets: each op family accepts XLA's types and names the
// expected type (or the faulty attribute) otherwise.
#include "hlo/shape_check.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "hlo/reader.h"
#include "test_support.h"

namespace {

using scalify::hlo::check_result_type;
using scalify::hlo::read_module;
using scalify::hlo::ReadOptions;

/// Reads `text` without shape checks and checks the instruction `name` (in any computation).
std::optional<std::string> check_module(const std::string& text, const std::string& name) {
  auto m = read_module(text, "t.hlo", ReadOptions{.check_shapes = false});
  if (!m) FAIL(m.error().format());
  for (const auto& comp : m->computations) {
    if (auto id = comp.find(name)) return check_result_type(*m, comp, comp[*id]);
  }
  FAIL("no instruction named " << name);
  return std::nullopt;
}

/// `body` is the ENTRY computation's instructions; the checked instruction is named `r`.
std::optional<std::string> check(const std::string& body, const std::string& extra = "") {
  return check_module("HloModule m\n\n" + extra + "\nENTRY e {\n" + body + "\n}\n", "r");
}

const char* const kAdd =
    "add_f32 {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(x, y)\n}\n";

const char* const kAddBf16 =
    "add_bf16 {\n  x = bf16[] parameter(0)\n  y = bf16[] parameter(1)\n"
    "  ROOT s = bf16[] add(x, y)\n}\n";

}  // namespace

TEST_CASE("shape_check: elementwise unary", "[shape_check]") {
  CHECK_FALSE(check("p = f32[2,3] parameter(0)\nROOT r = f32[2,3] exponential(p)"));
  CHECK_FALSE(check("p = c64[4] parameter(0)\nROOT r = f32[4] abs(p)"));
  CHECK_FALSE(check("p = (f32[2], s32[]) parameter(0)\nROOT r = (f32[2], s32[]) copy(p)"));
  CHECK(check("p = f32[2,3] parameter(0)\nROOT r = f32[3,2] negate(p)") ==
        "negate result should be f32[2,3] but is declared f32[3,2]");
  CHECK(check("p = c64[4] parameter(0)\nROOT r = c64[4] abs(p)") ==
        "abs result should be f32[4] but is declared c64[4]");
  CHECK(check("p = s32[4] parameter(0)\nROOT r = s32[4] cosine(p)") ==
        "cosine: operand must have a floating-point or complex element type but is s32[4]");
  CHECK(check("p = f32[4] parameter(0)\nq = f32[4] parameter(1)\nROOT r = f32[4] tanh(p, q)") ==
        "tanh takes 1 operand but has 2");
}

TEST_CASE("shape_check: elementwise binary", "[shape_check]") {
  CHECK_FALSE(
      check("a = bf16[8] parameter(0)\nb = bf16[8] parameter(1)\nROOT r = bf16[8] add(a, b)"));
  CHECK_FALSE(
      check("a = f64[2] parameter(0)\nb = f64[2] parameter(1)\nROOT r = c128[2] complex(a, b)"));
  CHECK(
      check("a = f32[8] parameter(0)\nb = f32[8] parameter(1)\nROOT r = bf16[8] multiply(a, b)") ==
      "multiply result should be f32[8] but is declared bf16[8]");
  CHECK(check("a = f32[8] parameter(0)\nb = f32[4] parameter(1)\nROOT r = f32[8] add(a, b)") ==
        "add: operands have different dimensions: f32[8] and f32[4]");
  CHECK(check("a = f32[8] parameter(0)\nb = s32[8] parameter(1)\nROOT r = f32[8] add(a, b)") ==
        "add: operands have different element types: f32[8] and s32[8]");
  CHECK(check("a = f32[8] parameter(0)\nb = f32[8] parameter(1)\nROOT r = f32[8] and(a, b)") ==
        "and: operands must have pred or integer element type but are f32[8]");
}

TEST_CASE("shape_check: compare, is-finite, real, imag", "[shape_check]") {
  CHECK_FALSE(
      check("a = f32[3] parameter(0)\nb = f32[3] parameter(1)\n"
            "ROOT r = pred[3] compare(a, b), direction=LT"));
  CHECK(check("a = f32[3] parameter(0)\nb = f32[3] parameter(1)\n"
              "ROOT r = f32[3] compare(a, b), direction=LT") ==
        "compare result should be pred[3] but is declared f32[3]");
  CHECK(check("a = f32[3] parameter(0)\nb = f32[3] parameter(1)\n"
              "ROOT r = pred[3] compare(a, b), direction=XX") ==
        "compare: direction=XX is not one of EQ, NE, LT, LE, GT, GE");
  CHECK(check("a = f32[3] parameter(0)\nb = f32[3] parameter(1)\nROOT r = pred[3] compare(a, b)") ==
        "compare: missing direction=EQ|NE|LT|LE|GT|GE");
  CHECK_FALSE(check("p = bf16[3] parameter(0)\nROOT r = pred[3] is-finite(p)"));
  CHECK_FALSE(check("p = c128[3] parameter(0)\nROOT r = f64[3] imag(p)"));
  CHECK(check("p = c64[3] parameter(0)\nROOT r = c64[3] real(p)") ==
        "real result should be f32[3] but is declared c64[3]");
}

TEST_CASE("shape_check: convert and bitcast-convert", "[shape_check]") {
  CHECK_FALSE(check("p = f32[2,3] parameter(0)\nROOT r = s8[2,3] convert(p)"));
  CHECK(check("p = f32[2,3] parameter(0)\nROOT r = s8[3,2] convert(p)") ==
        "convert result should be s8[2,3] but is declared s8[3,2]");
  CHECK_FALSE(check("p = f32[5] parameter(0)\nROOT r = u32[5] bitcast-convert(p)"));
  CHECK_FALSE(check("p = f32[5] parameter(0)\nROOT r = u8[5,4] bitcast-convert(p)"));
  CHECK_FALSE(check("p = u16[5,2] parameter(0)\nROOT r = f32[5] bitcast-convert(p)"));
  CHECK(check("p = f32[5] parameter(0)\nROOT r = u8[5] bitcast-convert(p)") ==
        "bitcast-convert result should be u8[5,4] but is declared u8[5]");
  CHECK(check("p = u16[5,3] parameter(0)\nROOT r = f32[5] bitcast-convert(p)") ==
        "bitcast-convert: to widen u16 to f32 the operand's last dimension must be 2, but the "
        "operand is u16[5,3]");
}

TEST_CASE("shape_check: select and clamp", "[shape_check]") {
  CHECK_FALSE(
      check("p = pred[4] parameter(0)\na = f32[4] parameter(1)\nb = f32[4] parameter(2)\n"
            "ROOT r = f32[4] select(p, a, b)"));
  CHECK_FALSE(
      check("p = pred[] parameter(0)\na = f32[4] parameter(1)\nb = f32[4] parameter(2)\n"
            "ROOT r = f32[4] select(p, a, b)"));
  CHECK(check("p = pred[4] parameter(0)\na = f32[4] parameter(1)\nb = f32[2] parameter(2)\n"
              "ROOT r = f32[4] select(p, a, b)") ==
        "select: operands 1 and 2 must have one type but are f32[4] and f32[2]");
  CHECK(check("p = s32[4] parameter(0)\na = f32[4] parameter(1)\nb = f32[4] parameter(2)\n"
              "ROOT r = f32[4] select(p, a, b)") ==
        "select: operand 0 must have element type pred but is s32[4]");
  CHECK_FALSE(
      check("lo = f32[] parameter(0)\nx = f32[4] parameter(1)\nhi = f32[] parameter(2)\n"
            "ROOT r = f32[4] clamp(lo, x, hi)"));
  CHECK(check("lo = f32[3] parameter(0)\nx = f32[4] parameter(1)\nhi = f32[] parameter(2)\n"
              "ROOT r = f32[4] clamp(lo, x, hi)") ==
        "clamp: min must be a scalar or have the dimensions of f32[4] but is f32[3]");
}

TEST_CASE("shape_check: broadcast", "[shape_check]") {
  CHECK_FALSE(check("p = f32[3] parameter(0)\nROOT r = f32[2,3] broadcast(p), dimensions={1}"));
  CHECK_FALSE(check("p = f32[] parameter(0)\nROOT r = f32[2,3] broadcast(p), dimensions={}"));
  // XLA's verifier does not require the dimensions to be sorted.
  CHECK_FALSE(
      check("p = f32[3,2] parameter(0)\nROOT r = f32[2,5,3] broadcast(p), dimensions={2,0}"));
  CHECK(check("p = f32[4,3,2] parameter(0)\nROOT r = f32[4,3,2] broadcast(p), dimensions={0,1}") ==
        "broadcast: dimensions={0,1} has 2 entries but the operand f32[4,3,2] has rank 3");
  CHECK(check("p = f32[3] parameter(0)\nROOT r = f32[3,2] broadcast(p), dimensions={1}") ==
        "broadcast: operand dimension 0 (size 3) maps to result dimension 1, which is declared "
        "with size 2 in f32[3,2]");
  CHECK(check("p = f32[3] parameter(0)\nROOT r = f32[3] broadcast(p), dimensions={5}") ==
        "broadcast: dimensions={5} names dimension 5, outside [0, 1)");
  CHECK(check("p = f32[3] parameter(0)\nROOT r = s32[2,3] broadcast(p), dimensions={1}") ==
        "broadcast result should be f32[2,3] but is declared s32[2,3]");
}

TEST_CASE("shape_check: reshape and transpose", "[shape_check]") {
  CHECK_FALSE(check("p = f32[6,4] parameter(0)\nROOT r = f32[2,3,4] reshape(p)"));
  CHECK(check("p = f32[6,4] parameter(0)\nROOT r = f32[2,3,5] reshape(p)") ==
        "reshape: result f32[2,3,5] has 30 elements but the operand f32[6,4] has 24");
  CHECK(check("p = f32[6,4] parameter(0)\nROOT r = bf16[24] reshape(p)") ==
        "reshape result should be f32[24] but is declared bf16[24]");
  CHECK_FALSE(
      check("p = f32[2,3,4] parameter(0)\nROOT r = f32[4,2,3] transpose(p), dimensions={2,0,1}"));
  CHECK(
      check("p = f32[2,3,4] parameter(0)\nROOT r = f32[4,3,2] transpose(p), dimensions={2,0,1}") ==
      "transpose result should be f32[4,2,3] but is declared f32[4,3,2]");
  CHECK(check("p = f32[2,3] parameter(0)\nROOT r = f32[3,2] transpose(p), dimensions={1,1}") ==
        "transpose: dimensions={1,1} repeats dimension 1");
}

TEST_CASE("shape_check: dot", "[shape_check]") {
  CHECK_FALSE(
      check("a = f32[8,16] parameter(0)\nb = f32[16,5] parameter(1)\n"
            "ROOT r = f32[8,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  // Batch dims first, then lhs free, then rhs free; the element type may differ (preferred type).
  CHECK_FALSE(
      check("a = bf16[4,8,16] parameter(0)\nb = bf16[4,5,16] parameter(1)\n"
            "ROOT r = f32[4,8,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
            "lhs_contracting_dims={2}, rhs_contracting_dims={2}"));
  CHECK(check("a = f32[8,16] parameter(0)\nb = f32[16,5] parameter(1)\n"
              "ROOT r = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}") ==
        "dot result should be f32[8,5] but is declared f32[8,4]");
  CHECK(check("a = f32[8,16] parameter(0)\nb = f32[15,5] parameter(1)\n"
              "ROOT r = f32[8,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}") ==
        "dot: contracting dimension 1 of f32[8,16] and dimension 0 of f32[15,5] differ in size");
  CHECK(check("a = f32[8,16] parameter(0)\nb = f32[16,5] parameter(1)\n"
              "ROOT r = f32[8,5] dot(a, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}") ==
        "dot: lhs_batch_dims+lhs_contracting_dims={2} names dimension 2, outside [0, 2)");
}

TEST_CASE("shape_check: reduce", "[shape_check]") {
  CHECK_FALSE(
      check("p = f32[4,5,6] parameter(0)\nz = f32[] constant(0)\n"
            "ROOT r = f32[5] reduce(p, z), dimensions={0,2}, to_apply=add_f32",
            kAdd));
  CHECK(check("p = f32[4,5,6] parameter(0)\nz = f32[] constant(0)\n"
              "ROOT r = f32[4] reduce(p, z), dimensions={0,2}, to_apply=add_f32",
              kAdd) == "reduce result should be f32[5] but is declared f32[4]");
  CHECK(check("p = f32[4,5] parameter(0)\nz = f32[] constant(0)\n"
              "ROOT r = f32[5] reduce(p, z), dimensions={3}, to_apply=add_f32",
              kAdd) == "reduce: dimensions={3} names dimension 3, outside [0, 2)");
  const char* argmax =
      "argmax {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n"
      "  d = s32[] parameter(3)\n  ROOT t = (f32[], s32[]) tuple(a, b)\n}\n";
  CHECK_FALSE(
      check("v = f32[4,5] parameter(0)\ni = s32[4,5] parameter(1)\n"
            "z = f32[] constant(0)\nk = s32[] constant(0)\n"
            "ROOT r = (f32[4], s32[4]) reduce(v, i, z, k), dimensions={1}, to_apply=argmax",
            argmax));
  CHECK(check("v = f32[4,5] parameter(0)\ni = s32[4,5] parameter(1)\n"
              "z = f32[] constant(0)\nk = s32[] constant(0)\n"
              "ROOT r = f32[4] reduce(v, i, z, k), dimensions={1}, to_apply=argmax",
              argmax) == "reduce result should be (f32[4], s32[4]) but is declared f32[4]");
}

TEST_CASE("shape_check: slice, concatenate, pad", "[shape_check]") {
  CHECK_FALSE(
      check("p = f32[10,8] parameter(0)\nROOT r = f32[4,3] slice(p), slice={[2:6], [0:8:3]}"));
  CHECK(check("p = f32[10,8] parameter(0)\nROOT r = f32[4,4] slice(p), slice={[2:6], [0:8:3]}") ==
        "slice result should be f32[4,3] but is declared f32[4,4]");
  CHECK(check("p = f32[10,8] parameter(0)\nROOT r = f32[4,3] slice(p), slice={[2:6], [0:9:3]}") ==
        "slice: range 1 [0:9:3] ends past the operand's dimension of size 8");
  CHECK_FALSE(
      check("a = f32[2,3] parameter(0)\nb = f32[2,5] parameter(1)\n"
            "ROOT r = f32[2,8] concatenate(a, b), dimensions={1}"));
  CHECK(check("a = f32[2,3] parameter(0)\nb = f32[2,5] parameter(1)\n"
              "ROOT r = f32[2,8] concatenate(a, b), dimensions={0}") ==
        "concatenate: operand 1 f32[2,5] does not match operand 0 f32[2,3] outside dimension 0");
  // low + high + size + interior * (size - 1); negative edge padding crops.
  CHECK_FALSE(
      check("p = f32[4,5] parameter(0)\nz = f32[] constant(0)\n"
            "ROOT r = f32[9,4] pad(p, z), padding=1_1_1x-1_0"));
  CHECK(check("p = f32[4,5] parameter(0)\nz = f32[] constant(0)\n"
              "ROOT r = f32[8,4] pad(p, z), padding=1_1_1x-1_0") ==
        "pad result should be f32[9,4] but is declared f32[8,4]");
  CHECK(check("p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT r = f32[0] pad(p, z), "
              "padding=-3_-3") == "pad: padding makes dimension 0 negative (-2)");
}

TEST_CASE("shape_check: iota, reverse, dynamic slices", "[shape_check]") {
  CHECK_FALSE(check("ROOT r = s32[4,8] iota(), iota_dimension=1"));
  CHECK(check("ROOT r = s32[4,8] iota(), iota_dimension=2") ==
        "iota: iota_dimension=2 is outside the result s32[4,8]");
  CHECK_FALSE(check("p = f32[3,4] parameter(0)\nROOT r = f32[3,4] reverse(p), dimensions={0,1}"));
  CHECK(check("p = f32[3,4] parameter(0)\nROOT r = f32[4,3] reverse(p), dimensions={0}") ==
        "reverse result should be f32[3,4] but is declared f32[4,3]");
  const std::string ds =
      "p = f32[8,6] parameter(0)\ni = s32[] parameter(1)\nj = s32[] parameter(2)\n";
  CHECK_FALSE(check(ds + "ROOT r = f32[2,6] dynamic-slice(p, i, j), dynamic_slice_sizes={2,6}"));
  CHECK(check(ds + "ROOT r = f32[2,5] dynamic-slice(p, i, j), dynamic_slice_sizes={2,6}") ==
        "dynamic-slice result should be f32[2,6] but is declared f32[2,5]");
  CHECK(check(ds + "ROOT r = f32[2,6] dynamic-slice(p, i), dynamic_slice_sizes={2,6}") ==
        "dynamic-slice: takes one start index per dimension of f32[8,6] (2) but has 1");
  CHECK(check(ds + "ROOT r = f32[9,6] dynamic-slice(p, i, j), dynamic_slice_sizes={9,6}") ==
        "dynamic-slice: dynamic_slice_sizes={9,6} asks for 9 elements of dimension 0 of f32[8,6]");
  CHECK_FALSE(check(ds + "u = f32[2,6] parameter(3)\n"
                         "ROOT r = f32[8,6] dynamic-update-slice(p, u, i, j)"));
  CHECK(
      check(ds + "u = f32[2,7] parameter(3)\nROOT r = f32[8,6] dynamic-update-slice(p, u, i, j)") ==
      "dynamic-update-slice: the update f32[2,7] does not fit in f32[8,6]");
}

TEST_CASE("shape_check: gather", "[shape_check]") {
  // Take rows of a [5,8] table by s32[3] indices: index_vector_dim == rank means scalar indices.
  const std::string g = "t = f32[5,8] parameter(0)\ni = s32[3] parameter(1)\n";
  const std::string dn =
      "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
      "index_vector_dim=1, slice_sizes={1,8}";
  CHECK_FALSE(check(g + "ROOT r = f32[3,8] gather(t, i), " + dn));
  CHECK(check(g + "ROOT r = f32[8,3] gather(t, i), " + dn) ==
        "gather result should be f32[3,8] but is declared f32[8,3]");
  CHECK(check(g + "ROOT r = f32[3,8] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, "
                  "start_index_map={0}, index_vector_dim=1, slice_sizes={2,8}") ==
        "gather: dimension 0 is collapsed or batching, so its slice size must be 0 or 1, not 2");
  // Batching dims: operand dim 0 pairs with indices dim 0; result keeps the index batch dims.
  const std::string b = "t = f32[4,5,8] parameter(0)\ni = s32[4,3,1] parameter(1)\n";
  const std::string bdn =
      "offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, "
      "operand_batching_dims={0}, start_indices_batching_dims={0}, "
      "index_vector_dim=2, slice_sizes={1,1,8}";
  CHECK_FALSE(check(b + "ROOT r = f32[4,3,8] gather(t, i), " + bdn));
  CHECK(check("t = f32[4,5,8] parameter(0)\ni = s32[2,3,1] parameter(1)\n"
              "ROOT r = f32[2,3,8] gather(t, i), " +
              bdn) ==
        "gather: batching dimension 0 of f32[4,5,8] and dimension 0 of the indices s32[2,3,1] "
        "differ in size");
}

TEST_CASE("shape_check: scatter", "[shape_check]") {
  const char* comps =
      "add_f32 {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(x, y)\n}\n"
      "add2 {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  c = f32[] parameter(2)\n  d = s32[] parameter(3)\n"
      "  ROOT t = (f32[], s32[]) tuple(a, b)\n}\n";
  const std::string s =
      "t = f32[5,8] parameter(0)\ni = s32[3] parameter(1)\nu = f32[3,8] parameter(2)\n";
  const std::string dn =
      "update_window_dims={1}, inserted_window_dims={0}, "
      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32";
  CHECK_FALSE(check(s + "ROOT r = f32[5,8] scatter(t, i, u), " + dn, comps));
  CHECK(check(s + "ROOT r = f32[3,8] scatter(t, i, u), " + dn, comps) ==
        "scatter result should be f32[5,8] but is declared f32[3,8]");
  CHECK(check("t = f32[5,8] parameter(0)\ni = s32[3] parameter(1)\nu = f32[4,8] parameter(2)\n"
              "ROOT r = f32[5,8] scatter(t, i, u), " +
                  dn,
              comps) ==
        "scatter: the updates f32[4,8] must have the index batch dimensions {3} outside "
        "update_window_dims={1}");
  // Variadic scatter gives a tuple.
  const std::string v =
      "t = f32[5,8] parameter(0)\nw = s32[5,8] parameter(1)\ni = s32[3] parameter(2)\n"
      "u = f32[3,8] parameter(3)\nx = s32[3,8] parameter(4)\n";
  const std::string vdn =
      "update_window_dims={1}, inserted_window_dims={0}, "
      "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add2";
  CHECK_FALSE(check(v + "ROOT r = (f32[5,8], s32[5,8]) scatter(t, w, i, u, x), " + vdn, comps));
  CHECK(check(v + "ROOT r = f32[5,8] scatter(t, w, i, u, x), " + vdn, comps) ==
        "scatter result should be (f32[5,8], s32[5,8]) but is declared f32[5,8]");
}

TEST_CASE("shape_check: tuple and get-tuple-element", "[shape_check]") {
  CHECK_FALSE(check(
      "a = f32[2] parameter(0)\nb = s32[] parameter(1)\nROOT r = (f32[2], s32[]) tuple(a, b)"));
  CHECK(check("a = f32[2] parameter(0)\nb = s32[] parameter(1)\nROOT r = (f32[2], f32[]) tuple(a, "
              "b)") == "tuple result should be (f32[2], s32[]) but is declared (f32[2], f32[])");
  const std::string t = "p = (f32[2], s32[]) parameter(0)\n";
  CHECK_FALSE(check(t + "ROOT r = s32[] get-tuple-element(p), index=1"));
  CHECK(check(t + "ROOT r = f32[2] get-tuple-element(p), index=1") ==
        "get-tuple-element result should be s32[] but is declared f32[2]");
  CHECK(check(t + "ROOT r = f32[2] get-tuple-element(p), index=2") ==
        "get-tuple-element: index=2 is outside the tuple (f32[2], s32[]) of 2 elements");
}

TEST_CASE("shape_check: all-reduce, all-gather, reduce-scatter", "[shape_check]") {
  const std::string p = "p = f32[8,16] parameter(0)\nq = f32[4] parameter(1)\n";
  CHECK_FALSE(check(
      p + "ROOT r = f32[8,16] all-reduce(p), replica_groups={{0,1}}, to_apply=add_f32", kAdd));
  CHECK_FALSE(check(
      p + "ROOT r = (f32[8,16], f32[4]) all-reduce(p, q), replica_groups={}, to_apply=add_f32",
      kAdd));
  CHECK(check(p + "ROOT r = f32[8,16] all-reduce(p, q), replica_groups={}, to_apply=add_f32",
              kAdd) == "all-reduce result should be (f32[8,16], f32[4]) but is declared f32[8,16]");
  // all-gather multiplies dimension d by the group size when the groups fix it.
  CHECK_FALSE(
      check(p + "ROOT r = f32[8,64] all-gather(p), dimensions={1}, replica_groups={{0,1,2,3}}"));
  CHECK(check(p + "ROOT r = f32[8,32] all-gather(p), dimensions={1}, replica_groups={{0,1,2,3}}") ==
        "all-gather result should be f32[8,64] but is declared f32[8,32] (dimension 1 over groups "
        "of 4)");
  CHECK_FALSE(check(p + "ROOT r = f32[8,32] all-gather(p), channel_id=1, dimensions={1}, "
                        "replica_groups=[4,2]<=[8], use_global_device_ids=true"));
  // No groups: the factor is read from the result, which must be a multiple.
  CHECK_FALSE(check(p + "ROOT r = f32[32,16] all-gather(p), dimensions={0}, replica_groups={}"));
  CHECK(check(p + "ROOT r = f32[12,16] all-gather(p), dimensions={0}, replica_groups={}") ==
        "all-gather: result dimension 0 (size 12) must be a positive multiple of the operand's "
        "(size 8)");
  CHECK(check(p + "ROOT r = f32[8,16] all-gather(p), dimensions={2}, replica_groups={}") ==
        "all-gather: dimensions={2} is outside operand 0 f32[8,16]");
  CHECK_FALSE(check(p + "ROOT r = f32[2,16] reduce-scatter(p), dimensions={0}, "
                        "replica_groups={{0,1,2,3}}, to_apply=add_f32",
                    kAdd));
  CHECK(
      check(p + "ROOT r = f32[4,16] reduce-scatter(p), dimensions={0}, replica_groups={{0,1,2,3}}, "
                "to_apply=add_f32",
            kAdd) ==
      "reduce-scatter result should be f32[2,16] but is declared f32[4,16] (dimension 0 over "
      "groups of 4)");
  CHECK(check(p + "ROOT r = f32[8,16] reduce-scatter(p), dimensions={0}, "
                  "replica_groups={{0,1,2},{3,4,5}}, "
                  "to_apply=add_f32",
              kAdd) ==
        "reduce-scatter: dimension 0 of operand 0 f32[8,16] is not divisible by the group size 3");
}

TEST_CASE("shape_check: a scalar token rides through a tuple gather or scatter", "[shape_check]") {
  // torch-xla threads a scalar (its ordering token) through its tuple collectives, after the
  // arrays, and it comes back as it went in — over groups of one device, and over real groups
  // too (Neuron's pipeline-parallel dumps: `(f32[2,3], f32[]) all-gather(f32[1,3], f32[])`,
  // replica_groups={{0,1}}). A scalar with nothing else, or first, has no dimension to gather.
  const std::string p = "p = bf16[4,4] parameter(0)\ns = bf16[] parameter(1)\n";
  CHECK_FALSE(check(p + "ROOT r = (bf16[4,4], bf16[]) reduce-scatter(p, s), "
                        "replica_groups={{0},{1}}, dimensions={0}, to_apply=add_bf16",
                    kAddBf16));
  CHECK_FALSE(check(p + "ROOT r = (bf16[4,4], bf16[]) all-gather(p, s), replica_groups={{0}}, "
                        "dimensions={0}"));
  CHECK_FALSE(check(p + "ROOT r = (bf16[8,4], bf16[]) all-gather(p, s), replica_groups={{0,1}}, "
                        "dimensions={0}"));
  CHECK_FALSE(check(p + "ROOT r = (bf16[2,4], bf16[]) reduce-scatter(p, s), "
                        "replica_groups={{0,1}}, dimensions={0}, to_apply=add_bf16",
                    kAddBf16));
  CHECK(check(p + "ROOT r = (bf16[8,4], bf16[2]) all-gather(p, s), replica_groups={{0,1}}, "
                  "dimensions={0}") ==
        "all-gather result should be (bf16[8,4], bf16[]) but is declared (bf16[8,4], bf16[2]) "
        "(dimension 0 over groups of 2)");
  CHECK(check(p + "ROOT r = (bf16[], bf16[8,4]) all-gather(s, p), replica_groups={{0,1}}, "
                  "dimensions={0}") == "all-gather: dimensions={0} is outside operand 0 bf16[]");
  CHECK(check(p + "ROOT r = bf16[] all-gather(s), replica_groups={{0,1}}, dimensions={0}") ==
        "all-gather: dimensions={0} is outside operand 0 bf16[]");
}

TEST_CASE("shape_check: collective group sizes follow XLA's group modes", "[shape_check]") {
  auto module = [](const std::string& header, const std::string& instr) {
    return "HloModule m" + header +
           "\n\nENTRY e {\n  p = f32[8,16] parameter(0)\n  ROOT r = " + instr + "\n}\n";
  };
  // Empty groups: all replicas, when the header says how many.
  CHECK_FALSE(check_module(
      module(", replica_count=4", "f32[32,16] all-gather(p), dimensions={0}, replica_groups={}"),
      "r"));
  CHECK(check_module(module(", replica_count=4",
                            "f32[16,16] all-gather(p), dimensions={0}, replica_groups={}"),
                     "r") ==
        "all-gather result should be f32[32,16] but is declared f32[16,16] (dimension 0 over "
        "groups of 4)");
  // Without the count, the factor is read off the result.
  CHECK_FALSE(
      check_module(module("", "f32[16,16] all-gather(p), dimensions={0}, replica_groups={}"), "r"));
  // channel_id without use_global_device_ids: every partition of the listed replicas takes part.
  CHECK_FALSE(check_module(
      module(", num_partitions=2",
             "f32[8,64] all-gather(p), channel_id=1, dimensions={1}, replica_groups={{0,1}}"),
      "r"));
  CHECK(check_module(
            module(", num_partitions=2",
                   "f32[8,32] all-gather(p), channel_id=1, dimensions={1}, replica_groups={{0,1}}"),
            "r") ==
        "all-gather result should be f32[8,64] but is declared f32[8,32] (dimension 1 over groups "
        "of 4)");
  CHECK(
      check_module(
          module("",
                 "f32[8,16] all-to-all(p), channel_id=1, dimensions={0}, replica_groups={{0,1,2}}"),
          "r") == "all-to-all: dimension 0 of f32[8,16] is not divisible by the group size 3");
  CHECK(check_module(
            module("", "f32[16,16] all-gather(p), dimensions={0}, replica_groups={{0,1},{2}}"),
            "r") ==
        "all-gather: replica_groups must all have the same size, but has groups of 2 and 1");
}

TEST_CASE("shape_check: all-to-all, collective-permute, async pairs", "[shape_check]") {
  const std::string p = "p = f32[8,16] parameter(0)\nq = f32[8,16] parameter(1)\n";
  CHECK_FALSE(
      check(p + "ROOT r = f32[8,16] all-to-all(p), dimensions={0}, replica_groups={{0,1}}"));
  CHECK(check(p + "ROOT r = f32[16,8] all-to-all(p), dimensions={0}, replica_groups={{0,1}}") ==
        "all-to-all result should be f32[8,16] but is declared f32[16,8]");
  CHECK_FALSE(
      check(p + "ROOT r = (f32[8,16], f32[8,16]) all-to-all(p, q), replica_groups={{0,1}}"));
  CHECK_FALSE(
      check(p + "ROOT r = f32[8,16] collective-permute(p), source_target_pairs={{0,1},{1,0}}"));
  CHECK(check(p + "ROOT r = f32[8,8] collective-permute(p), source_target_pairs={{0,1},{1,0}}") ==
        "collective-permute result should be f32[8,16] but is declared f32[8,8]");
  // Combined form: one result per operand.
  CHECK_FALSE(check(p + "ROOT r = (f32[8,16], f32[8,16]) collective-permute(p, q), "
                        "source_target_pairs={{0,1},{1,0}}"));
  const std::string ag = p +
                         "s = (f32[8,16], f32[16,16]) all-gather-start(p), dimensions={0}, "
                         "replica_groups={{0,1}}\n";
  CHECK_FALSE(check(ag + "ROOT r = f32[16,16] all-gather-done(s)"));
  CHECK(check(ag + "ROOT r = f32[8,16] all-gather-done(s)") ==
        "all-gather-done result should be f32[16,16] but is declared f32[8,16]");
  CHECK_FALSE(check(p + "ROOT r = (f32[8,16], f32[16,16]) all-gather-start(p), dimensions={0}, "
                        "replica_groups={{0,1}}"));
  CHECK_FALSE(check(p + "s = f32[8,16] all-reduce-start(p), replica_groups={}, to_apply=add_f32\n"
                        "ROOT r = f32[8,16] all-reduce-done(s)",
                    kAdd));
}

TEST_CASE("shape_check: call, fusion, while, conditional", "[shape_check]") {
  const char* callee = "f {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n";
  CHECK_FALSE(check("p = f32[4] parameter(0)\nROOT r = f32[4] call(p), to_apply=f", callee));
  CHECK(check("p = f32[4] parameter(0)\nROOT r = f32[5] call(p), to_apply=f", callee) ==
        "call result should be f32[4] but is declared f32[5] (the type %f returns)");
  CHECK(check("p = f32[5] parameter(0)\nROOT r = f32[4] call(p), to_apply=f", callee) ==
        "call: operand 0 is f32[5] but parameter 0 of %f is f32[4]");
  CHECK_FALSE(
      check("p = f32[4] parameter(0)\nROOT r = f32[4] fusion(p), kind=kLoop, calls=f", callee));

  const char* loop =
      "body {\n  s = (s32[], f32[4]) parameter(0)\n  ROOT t = (s32[], f32[4]) copy(s)\n}\n"
      "cond {\n  s = (s32[], f32[4]) parameter(0)\n  ROOT c = pred[] constant(false)\n}\n"
      "bad_cond {\n  s = (s32[], f32[4]) parameter(0)\n  ROOT c = s32[] constant(0)\n}\n";
  const std::string init =
      "i = s32[] constant(0)\nv = f32[4] parameter(0)\nt = (s32[], f32[4]) tuple(i, v)\n";
  CHECK_FALSE(check(init + "ROOT r = (s32[], f32[4]) while(t), condition=cond, body=body", loop));
  CHECK(check(init + "ROOT r = (s32[], f32[5]) while(t), condition=cond, body=body", loop) ==
        "while result should be (s32[], f32[4]) but is declared (s32[], f32[5])");
  CHECK(check(init + "ROOT r = (s32[], f32[4]) while(t), condition=bad_cond, body=body", loop) ==
        "while: the condition %bad_cond must return pred[] but returns s32[]");

  const char* ok_branches =
      "b0 {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n"
      "b1 {\n  x = f32[] parameter(0)\n  ROOT y = f32[4] broadcast(x), dimensions={}\n}\n";
  const std::string c = "k = s32[] parameter(0)\na = f32[4] parameter(1)\nb = f32[] parameter(2)\n";
  CHECK_FALSE(
      check(c + "ROOT r = f32[4] conditional(k, a, b), branch_computations={b0, b1}", ok_branches));
  CHECK(check(c + "ROOT r = f32[4] conditional(k, b, a), branch_computations={b0, b1}",
              ok_branches) == "conditional: operand 1 is f32[] but parameter 0 of %b0 is f32[4]");
  CHECK(check(c + "ROOT r = f32[4] conditional(k, a), branch_computations={b0, b1}", ok_branches) ==
        "conditional: takes the selector and one operand per branch (3) but has 2 operands");
}

TEST_CASE("shape_check: convolution and reduce-window", "[shape_check]") {
  const std::string conv = "x = f32[1,8,8,3] parameter(0)\nk = f32[3,3,3,16] parameter(1)\n";
  CHECK_FALSE(
      check(conv +
            "ROOT r = f32[1,4,4,16] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, "
            "dim_labels=b01f_01io->b01f"));
  CHECK(check(conv +
              "ROOT r = f32[1,8,8,16] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, "
              "dim_labels=b01f_01io->b01f") ==
        "convolution result should be f32[1,4,4,16] but is declared f32[1,8,8,16]");
  CHECK(check(conv +
              "ROOT r = f32[1,4,4,16] convolution(x, k), window={size=2x3 stride=2x2 pad=1_1x1_1}, "
              "dim_labels=b01f_01io->b01f") ==
        "convolution: window size 2 of spatial dimension 0 differs from the kernel's 3");
  const std::string rw = "p = f32[4,6] parameter(0)\nz = f32[] constant(0)\n";
  CHECK_FALSE(check(
      rw + "ROOT r = f32[2,5] reduce-window(p, z), window={size=2x2 stride=2x1}, to_apply=add_f32",
      kAdd));
  CHECK(check(rw + "ROOT r = f32[2,6] reduce-window(p, z), window={size=2x2 stride=2x1}, "
                   "to_apply=add_f32",
              kAdd) == "reduce-window result should be f32[2,5] but is declared f32[2,6]");
}

TEST_CASE("shape_check: malformed attributes give messages, not crashes", "[shape_check]") {
  CHECK(check("p = f32[3] parameter(0)\nROOT r = f32[3,2] broadcast(p), dimensions={-1}") ==
        "broadcast: dimensions={-1} names dimension -1, outside [0, 2)");
  CHECK(check("p = f32[3] parameter(0)\nROOT r = f32[3] slice(p)") ==
        "slice: missing slice={[start:limit:stride], …}");
  CHECK(check("p = f32[2,3] parameter(0)\nROOT r = f32[3,2] transpose(p)") ==
        "transpose: dimensions={} must be a permutation of the 2 dimensions of f32[2,3]");
  CHECK(check("ROOT r = s32[4] iota()") == "iota: missing iota_dimension=");
  CHECK(check("p = f32[9223372036854775807] parameter(0)\nz = f32[] constant(0)\n"
              "ROOT r = f32[1] pad(p, z), padding=1_1") ==
        "pad: padded size of dimension 0 overflows");
  CHECK(check("a = f32[2] parameter(0)\nROOT r = f32[2] add(a)") ==
        "add takes 2 operands but has 1");
  CHECK(check("t = f32[5,8] parameter(0)\ni = s32[3] parameter(1)\n"
              "ROOT r = f32[3,8] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, "
              "start_index_map={0}, index_vector_dim=7, slice_sizes={1,8}") ==
        "gather: index_vector_dim=7 is outside [0, 1] for the indices s32[3]");
}

TEST_CASE("shape_check: the reader reports a wrong result type at the instruction",
          "[shape_check]") {
  const std::string text =
      "HloModule m\n\nENTRY e {\n  a = f32[8,16] parameter(0)\n  b = f32[16,5] parameter(1)\n"
      "  ROOT d = f32[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
  auto m = read_module(text, "t.hlo");
  REQUIRE_FALSE(m);
  CHECK(m.error().pos.line == 6);
  CHECK_THAT(m.error().message,
             Catch::Contains("dot result should be f32[8,5] but is declared f32[8,4]"));
  CHECK(read_module(text, "t.hlo", ReadOptions{.check_shapes = false}));
}

namespace {

/// Every complaint about a module that reads; empty when all its result types check.
std::string complaints(const scalify::ir::Module& m) {
  std::string out;
  for (const auto& comp : m.computations) {
    for (const auto& instr : comp.instructions) {
      if (auto msg = check_result_type(m, comp, instr)) out += instr.name + ": " + *msg + "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("shape_check: no complaint about any real corpus module", "[shape_check][corpus]") {
  for (const std::string& path : scalify::test::corpus_hlo_files()) {
    auto m = read_module(scalify::test::read_file(path), path, ReadOptions{.check_shapes = false});
    INFO(path);
    REQUIRE(m);
    CHECK(complaints(*m) == "");
  }
  size_t checked = 0;
  for (const auto& bulk : scalify::test::bulk_corpus_modules()) {
    auto m = read_module(bulk.text, bulk.label, ReadOptions{.check_shapes = false});
    if (!m) continue;  // the reader's own tests cover what it rejects
    INFO(bulk.label);
    CHECK(complaints(*m) == "");
    ++checked;
  }
  CHECK(checked > 950);
}
