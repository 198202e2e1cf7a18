// Soundness of the layout reasoning, tested differentially: random tensor-parallel programs on
// two ranks, written the way a person shards a reference by hand — parameters replicated or
// split, each op run on the ranks' blocks, collectives where the layouts need them — with, now
// and then, the mistakes people make (a forgotten all-reduce, a gather along the wrong dim, a
// slice without the rank's offset, a non-linear op on a partial sum, a reshape of a column
// block). Whenever `check` says
// `equivalent`, every rank, simulated with the reference interpreter, must compute the
// reference's numbers.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/mesh.h"
#include "support/rank_simulator.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify {
namespace {

/// What the writer believes a distributed value holds: the reference value replicated, its
/// block along `shard`, or a partial sum of it.
struct Value {
  std::string ref, dist;      ///< instruction names in each program
  std::vector<int64_t> dims;  ///< the reference's dims
  int shard = -1;             ///< >= 0: split along this dim
  bool partial = false;
};

std::string shape(const std::vector<int64_t>& dims) {
  std::string s = "f32[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

/// Writes a reference and the program of one of two ranks side by side.
class Writer {
 public:
  explicit Writer(uint64_t seed) : rng_(seed) {}

  void write() {
    for (const auto& dims :
         {std::vector<int64_t>{4, 6}, std::vector<int64_t>{6, 8}, std::vector<int64_t>{4, 6}}) {
      const int shard = pick(-1, 1);
      Value v{"p" + std::to_string(values_.size()), "p" + std::to_string(values_.size()), dims,
              shard, false};
      std::vector<int64_t> local = dims;
      if (shard >= 0) local[static_cast<size_t>(shard)] /= 2;
      ref_ += "  " + v.ref + " = " + shape(dims) + " parameter(" + std::to_string(params_.size()) +
              ")\n";
      dist_ += "  " + v.dist + " = " + shape(local) + " parameter(" +
               std::to_string(params_.size()) + ")\n";
      params_.push_back({v.ref, v.ref, dims, local, shard, false});
      values_.push_back(v);
    }
    const int steps = pick(3, 7);
    for (int i = 0; i < steps; ++i) step();
    const Value out = replicated(values_.back());
    ref_ += "  ROOT out = " + shape(out.dims) + " copy(" + out.ref + ")\n";
    dist_ += "  ROOT out = " + shape(out.dims) + " copy(" + out.dist + ")\n";
  }

  std::string ref_text() const {
    return "HloModule ref\n\n" + kSum + "\nENTRY e {\n" + ref_ + "}\n";
  }
  std::string dist_text() const {
    return "HloModule dist, num_partitions=2\n\n" + kSum + "\nENTRY e {\n" + dist_ + "}\n";
  }
  const std::vector<modelgen::ParameterInfo>& params() const { return params_; }
  int bugs() const { return bugs_; }

 private:
  inline static const std::string kSum =
      "sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n";

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  /// Now and then, a mistake.
  bool slip() {
    const bool s = pick(0, 3) == 0;
    bugs_ += s;
    return s;
  }

  std::vector<int64_t> local(const Value& v) const {
    std::vector<int64_t> d = v.dims;
    if (v.shard >= 0) d[static_cast<size_t>(v.shard)] /= 2;
    return d;
  }
  /// One instruction in each program (the same op on the reference's and the rank's operands).
  Value emit(const std::string& op, const std::vector<const Value*>& in, std::vector<int64_t> dims,
             int shard, bool partial, const std::string& attrs = "") {
    Value v{"r" + std::to_string(next_), "d" + std::to_string(next_), std::move(dims), shard,
            partial};
    ++next_;
    std::string ro, dop;
    for (size_t i = 0; i < in.size(); ++i) {
      ro += (i ? ", " : "") + in[i]->ref;
      dop += (i ? ", " : "") + in[i]->dist;
    }
    ref_ += "  " + v.ref + " = " + shape(v.dims) + " " + op + "(" + ro + ")" + attrs + "\n";
    dist_ += "  " + v.dist + " = " + shape(local(v)) + " " + op + "(" + dop + ")" + attrs + "\n";
    return v;
  }
  /// A rank-only instruction: the rank's value changes form, the reference's stays.
  Value dist_only(const Value& from, const std::string& text, int shard, bool partial) {
    Value v = from;
    v.dist = "d" + std::to_string(next_++);
    v.shard = shard;
    v.partial = partial;
    dist_ += "  " + v.dist + " = " + shape(local(v)) + " " + text + "\n";
    return v;
  }

  /// `v`, a block along one dim, as the block along the other, the way GSPMD reshards: cut the
  /// target dim in two, exchange the halves (all-to-all), put the received blocks back in front
  /// (by mistake, merged without the transpose) and merge.
  Value resharded(const Value& v) {
    const int to = 1 - v.shard;
    const auto l = local(v);
    const int64_t rows = l[0], cols = l[1];
    std::vector<int64_t> cut =
        to == 1 ? std::vector<int64_t>{rows, 2, cols / 2} : std::vector<int64_t>{2, rows / 2, cols};
    const std::string a = "d" + std::to_string(next_++);
    dist_ += "  " + a + " = " + shape(cut) + " reshape(" + v.dist + ")\n";
    const std::string b = "d" + std::to_string(next_++);
    dist_ += "  " + b + " = " + shape(cut) + " all-to-all(" + a + "), dimensions={" +
             std::to_string(to == 1 ? 1 : 0) + "}, replica_groups={{0,1}}\n";
    std::string moved = b;
    if (!slip()) {
      // The received blocks (source rank) go in front of the dim they came from.
      const std::vector<int64_t> t = to == 1 ? std::vector<int64_t>{2, rows, cols / 2}
                                             : std::vector<int64_t>{rows / 2, 2, cols};
      moved = "d" + std::to_string(next_++);
      dist_ += "  " + moved + " = " + shape(t) + " transpose(" + b + "), dimensions={1,0,2}\n";
    }
    Value out = v;
    out.shard = to;
    return dist_only(out, "reshape(" + moved + ")", to, false);
  }

  /// `v` replicated: gathered or summed (or, by mistake, not, or along another dim).
  Value replicated(const Value& v) {
    if (v.partial) {
      if (slip()) return dist_only(v, "copy(" + v.dist + ")", -1, false);
      return dist_only(v, "all-reduce(" + v.dist + "), replica_groups={{0,1}}, to_apply=sum", -1,
                       false);
    }
    if (v.shard < 0) return v;
    int dim = v.shard;
    // A gather along the wrong dim, when the shapes allow it (a square local block).
    const auto l = local(v);
    if (l[0] == l[1] && slip()) dim = 1 - dim;
    Value g = v;
    g.shard = -1;
    g.dist = "d" + std::to_string(next_++);
    std::vector<int64_t> gathered = l;
    gathered[static_cast<size_t>(dim)] *= 2;
    dist_ += "  " + g.dist + " = " + shape(gathered) + " all-gather(" + v.dist + "), dimensions={" +
             std::to_string(dim) + "}, replica_groups={{0,1}}\n";
    if (gathered != v.dims) {  // (only with the wrong dim) back to the expected shape
      g.dist = "d" + std::to_string(next_++);
      dist_ +=
          "  " + g.dist + " = " + shape(v.dims) + " reshape(d" + std::to_string(next_ - 2) + ")\n";
    }
    return g;
  }
  /// `v` split along `dim`: each rank's block of a replicated value (by mistake, rank 0's).
  Value sharded(const Value& v, int dim) {
    Value r = replicated(v);
    const int64_t size = r.dims[static_cast<size_t>(dim)] / 2;
    std::vector<int64_t> lim = r.dims;
    lim[static_cast<size_t>(dim)] = size;
    if (slip()) {
      const std::string window =
          dim == 0 ? "{[0:" + std::to_string(size) + "], [0:" + std::to_string(r.dims[1]) + "]}"
                   : "{[0:" + std::to_string(r.dims[0]) + "], [0:" + std::to_string(size) + "]}";
      return dist_only(r, "slice(" + r.dist + "), slice=" + window, dim, false);
    }
    const std::string id = "d" + std::to_string(next_++);
    dist_ += "  " + id + " = u32[] partition-id()\n";
    const std::string rank = "d" + std::to_string(next_++);
    dist_ += "  " + rank + " = s32[] convert(" + id + ")\n";
    const std::string width = "d" + std::to_string(next_++);
    dist_ += "  " + width + " = s32[] constant(" + std::to_string(size) + ")\n";
    const std::string offset = "d" + std::to_string(next_++);
    dist_ += "  " + offset + " = s32[] multiply(" + rank + ", " + width + ")\n";
    const std::string zero = "d" + std::to_string(next_++);
    dist_ += "  " + zero + " = s32[] constant(0)\n";
    const std::string starts = dim == 0 ? offset + ", " + zero : zero + ", " + offset;
    return dist_only(r,
                     "dynamic-slice(" + r.dist + ", " + starts + "), dynamic_slice_sizes={" +
                         std::to_string(lim[0]) + "," + std::to_string(lim[1]) + "}",
                     dim, false);
  }
  /// `v` in the layout `like` has (replicated or the same shard).
  Value aligned(const Value& v, const Value& like) {
    if (v.shard == like.shard && !v.partial && !like.partial) return v;
    return like.shard >= 0 ? sharded(v, like.shard) : replicated(v);
  }

  const Value& any(const std::vector<int64_t>& dims) {
    std::vector<size_t> fit;
    for (size_t i = 0; i < values_.size(); ++i) {
      if (values_[i].dims == dims) fit.push_back(i);
    }
    return values_[fit[static_cast<size_t>(pick(0, static_cast<int>(fit.size()) - 1))]];
  }

  void step() {
    // Mostly one of the latest values, so that the program is a chain the output depends on.
    const int n = static_cast<int>(values_.size());
    const Value a = values_[static_cast<size_t>(pick(std::max(0, n - 2), n - 1))];
    switch (pick(0, 6)) {
      case 0: {  // elementwise with another value of the same shape
        Value b = any(a.dims);
        static const char* kOps[] = {"add", "multiply", "subtract"};
        const std::string op = kOps[pick(0, 2)];
        // Sums and differences of partial sums are partial sums; products are not.
        if (a.partial && b.partial && op != "multiply" && !slip()) {
          values_.push_back(emit(op, {&a, &b}, a.dims, -1, true));
          break;
        }
        const Value x = a.partial && !slip() ? replicated(a) : a;
        const Value y = aligned(b, x);
        values_.push_back(emit(op, {&x, &y}, a.dims, x.shard, false));
        break;
      }
      case 1: {  // a unary op: exp is not linear, negate is
        const bool linear = pick(0, 1) == 1;
        const Value x = a.partial && !linear && !slip() ? replicated(a) : a;
        values_.push_back(
            emit(linear ? "negate" : "exponential", {&x}, a.dims, x.shard, x.partial && linear));
        break;
      }
      case 2: {  // a transpose moves the shard
        const int shard = a.shard < 0 ? -1 : 1 - a.shard;
        values_.push_back(emit("transpose", {&a}, {a.dims[1], a.dims[0]}, shard, a.partial,
                               ", dimensions={1,0}"));
        break;
      }
      case 3: {  // a dot with a value whose rows are a's columns
        std::vector<size_t> fit;
        for (size_t i = 0; i < values_.size(); ++i) {
          if (values_[i].dims[0] == a.dims[1]) fit.push_back(i);
        }
        if (fit.empty() || a.partial) break;
        const Value b =
            values_[fit[static_cast<size_t>(pick(0, static_cast<int>(fit.size()) - 1))]];
        if (b.partial) break;
        const std::vector<int64_t> dims{a.dims[0], b.dims[1]};
        const std::string attrs = ", lhs_contracting_dims={1}, rhs_contracting_dims={0}";
        if (a.shard == 1 && b.shard == 0) {  // the contraction split: a partial sum
          values_.push_back(emit("dot", {&a, &b}, dims, -1, true, attrs));
        } else if (a.shard == 0 && b.shard < 0) {
          values_.push_back(emit("dot", {&a, &b}, dims, 0, false, attrs));
        } else if (a.shard < 0 && b.shard == 1) {
          values_.push_back(emit("dot", {&a, &b}, dims, 1, false, attrs));
        } else {
          const Value x = replicated(a), y = replicated(b);
          values_.push_back(emit("dot", {&x, &y}, dims, -1, false, attrs));
        }
        break;
      }
      case 4: {  // a reshape to [n, m]: a row block stays a row block, a column block does not
        const Value x = a.shard == 1 && !slip() ? replicated(a) : a;
        values_.push_back(
            emit("reshape", {&x}, {a.dims[1], a.dims[0]}, x.shard < 0 ? -1 : 0, x.partial));
        break;
      }
      case 5: {  // a block moved to the other dim, or a partial sum scattered into blocks
        if (a.shard >= 0 && !a.partial) {
          values_.push_back(resharded(a));
        } else if (a.partial) {
          const int dim = pick(0, 1);
          Value v = a;
          v.shard = dim;
          v.partial = false;
          // By mistake, the sum of rank 0's block only: the scatter forgotten, a slice taken.
          values_.push_back(slip() ? sharded(dist_only(a, "copy(" + a.dist + ")", -1, false), dim)
                                   : dist_only(v,
                                               "reduce-scatter(" + a.dist + "), dimensions={" +
                                                   std::to_string(dim) +
                                                   "}, replica_groups={{0,1}}, to_apply=sum",
                                               dim, false));
        }
        break;
      }
      default: {  // a sum over the rows, broadcast back
        const int shard = a.shard == 1 ? 0 : -1;
        const bool partial = a.partial || a.shard == 0;
        const std::string zero = "z" + std::to_string(next_++);
        ref_ += "  " + zero + " = f32[] constant(0)\n";
        dist_ += "  " + zero + " = f32[] constant(0)\n";
        Value z{zero, zero, {}, -1, false};
        const Value s =
            emit("reduce", {&a, &z}, {a.dims[1]}, shard, partial, ", dimensions={0}, to_apply=sum");
        values_.push_back(
            emit("broadcast", {&s}, a.dims, shard < 0 ? -1 : 1, partial, ", dimensions={1}"));
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  std::string ref_, dist_;
  std::vector<Value> values_;
  std::vector<modelgen::ParameterInfo> params_;
  int next_ = 0, bugs_ = 0;
};

eval::mesh::Layout mesh_layout(const verify::AxisLayout& a) {
  using K = eval::mesh::Layout::Kind;
  if (a.is_shard()) return {K::kShard, a.dim, eval::mesh::Reduction::kSum};
  if (!a.is_partial()) return {};
  const auto op = eval::mesh::reduction_named(verify::reduce_op_name(a.op));
  return {K::kPartial, 0, op.value_or(eval::mesh::Reduction::kSum)};
}

}  // namespace

TEST_CASE(
    "soundness: a tensor-parallel program proven equivalent computes the reference on "
    "every rank",
    "[verify][soundness]") {
  const char* env = std::getenv("SCALIFY_SOUNDNESS_SEEDS");
  const uint64_t seeds = env ? std::strtoull(env, nullptr, 10) : 600;
  int proven = 0, clean = 0, clean_proven = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    Writer w(seed);
    w.write();
    const std::string rt = w.ref_text(), dt = w.dist_text();
    INFO("seed " << seed << "\n--- ref\n" << rt << "--- dist\n" << dt);
    const ir::Module ref = test::parse_module(rt, "ref.hlo");
    const ir::Module dist = test::parse_module(dt, "dist.hlo");
    auto r = verify::check(ref, dist, {});
    REQUIRE(r);
    clean += w.bugs() == 0;
    if (r->verdict != verify::Verdict::kEquivalent) continue;
    ++proven;
    clean_proven += w.bugs() == 0;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<eval::Value> args;
    for (const modelgen::ParameterInfo& p : w.params()) {
      eval::Tensor t;
      t.dims = p.ref_dims;
      for (int64_t i = 0; i < t.element_count(); ++i) t.data.push_back(u(rng));
      args.emplace_back(std::move(t));
    }
    const auto want = eval::evaluate(ref, ref.entry_id, args);
    REQUIRE(want);
    // Each rank's arguments as the bijection the proof rests on lays them out (a parameter it
    // takes for a partial sum is an assumption the result states: the ranks' values sum to it).
    std::vector<std::vector<eval::Value>> rank_args(2, std::vector<eval::Value>(args.size()));
    REQUIRE(r->bijection.size() == args.size());
    for (const verify::BijectionEntry& b : r->bijection) {
      REQUIRE(b.ref_number == b.dist_number);
      auto parts = eval::mesh::distribute(args[static_cast<size_t>(b.ref_number)].tensor(),
                                          mesh_layout(b.layout.axes.at(0)), 2, rng);
      REQUIRE(parts);
      for (size_t k = 0; k < 2; ++k) {
        rank_args[k][static_cast<size_t>(b.dist_number)] = (*parts)[k];
      }
    }
    const auto ranks = test::simulate_ranks(dist, 2, rank_args);
    REQUIRE(ranks);
    // The ranks hold the reference output in the layout the goal was proven in (an output may
    // be left a shard or a partial sum: the result says so).
    REQUIRE(r->goals.size() == 1);
    REQUIRE(r->goals[0].layout);
    std::vector<eval::Tensor> per_rank;
    for (const eval::Value& got : *ranks) per_rank.push_back(got.tensor());
    std::string why;
    const bool holds = eval::mesh::holds(
        per_rank, want->tensor(), mesh_layout(r->goals[0].layout->axes.at(0)), 1e-9, 1e-9, &why);
    INFO(r->goals[0].layout->to_string(r->mesh) << ": " << why);
    CHECK(holds);
  }
  INFO(proven << " proven, " << clean_proven << " of the " << clean << " written without a slip");
  // Not vacuous: the programs written without a slip are proven (and then checked above).
  CHECK(clean_proven * 10 >= clean * 9);
}

}  // namespace scalify
