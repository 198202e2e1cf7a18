// Soundness of the layout reasoning, tested differentially: random tensor-parallel programs on a
// mesh of one or two axes of two ranks each, written the way a person shards a reference by
// hand — parameters replicated or split, each op run on the ranks' blocks, collectives where
// the layouts need them — with, now and then, the mistakes people make (a forgotten all-reduce,
// a gather along the wrong dim or in the wrong axis order, a slice without the rank's offset, a
// non-linear op on a partial sum, a reshape of a column block, a reshard without its
// transpose). Whenever `check` says `equivalent`, every rank, simulated with the reference
// interpreter, must hold the reference output in the layout the goal was proven in, and the
// independent proof checker must accept the proof.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/verify/check_texts.h"
#include "eval/evaluator.h"
#include "eval/mesh.h"
#include "proofcheck/proof_check.h"
#include "proofcheck/proof_file.h"
#include "support/rank_simulator.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify {
namespace {

/// What one mesh axis does to a value, as the writer believes: nothing (replicated), split
/// along `shard`, or a partial sum.
struct Axis {
  int shard = -1;
  bool partial = false;
  friend bool operator==(const Axis&, const Axis&) = default;
};

/// A value of both programs: the reference's and the rank's instruction, and the layout.
struct Value {
  std::string ref, dist;      ///< instruction names in each program
  std::vector<int64_t> dims;  ///< the reference's dims
  std::vector<Axis> ax;       ///< per mesh axis, the major one first
};

std::string shape(const std::vector<int64_t>& dims) {
  std::string s = "f32[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

/// Writes a reference and the program every rank of an `axes`-axis mesh (two ranks per axis,
/// device = coordinates read major to minor) runs, side by side.
class Writer {
 public:
  Writer(uint64_t seed, size_t axes) : rng_(seed), axes_(axes) {}

  void write() {
    for (const auto& dims :
         {std::vector<int64_t>{4, 8}, std::vector<int64_t>{8, 12}, std::vector<int64_t>{4, 8}}) {
      Value v{"p" + std::to_string(values_.size()), "p" + std::to_string(values_.size()), dims,
              std::vector<Axis>(axes_)};
      for (Axis& a : v.ax) a.shard = pick(-1, 1);
      ref_ += "  " + v.ref + " = " + shape(dims) + " parameter(" + std::to_string(values_.size()) +
              ")\n";
      dist_ += "  " + v.dist + " = " + shape(local(v)) + " parameter(" +
               std::to_string(values_.size()) + ")\n";
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
    return "HloModule dist, num_partitions=" + std::to_string(devices()) + "\n\n" + kSum +
           "\nENTRY e {\n" + dist_ + "}\n";
  }
  int bugs() const { return bugs_; }
  int64_t devices() const { return int64_t{1} << axes_; }

 private:
  inline static const std::string& kSum = test::kSumComputation;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  /// Now and then, a mistake.
  bool slip() {
    const bool s = pick(0, 3) == 0;
    bugs_ += s;
    return s;
  }
  std::string fresh() { return "d" + std::to_string(next_++); }

  std::vector<int64_t> local(const Value& v) const {
    std::vector<int64_t> d = v.dims;
    for (const Axis& a : v.ax) {
      if (a.shard >= 0) d[static_cast<size_t>(a.shard)] /= 2;
    }
    return d;
  }
  /// The replica groups of mesh axis `a`: the devices that differ only in its coordinate.
  std::string groups(size_t a) const {
    const int64_t bit = int64_t{1} << (axes_ - 1 - a);
    std::string g = "replica_groups={";
    bool first = true;
    for (int64_t d = 0; d < devices(); ++d) {
      if (d & bit) continue;
      g += std::string(first ? "" : ",") + "{" + std::to_string(d) + "," + std::to_string(d | bit) +
           "}";
      first = false;
    }
    return g + "}";
  }
  /// One instruction in each program (the same op on the reference's and the rank's operands).
  Value emit(const std::string& op, const std::vector<const Value*>& in, std::vector<int64_t> dims,
             std::vector<Axis> ax, const std::string& attrs = "") {
    Value v{"r" + std::to_string(next_), "d" + std::to_string(next_), std::move(dims),
            std::move(ax)};
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
  /// A rank-only instruction: the rank's value changes form (to layout `ax`), the reference's
  /// stays.
  Value dist_only(const Value& from, const std::string& text, std::vector<Axis> ax) {
    Value v = from;
    v.dist = fresh();
    v.ax = std::move(ax);
    dist_ += "  " + v.dist + " = " + shape(local(v)) + " " + text + "\n";
    return v;
  }
  std::vector<Axis> with(std::vector<Axis> ax, size_t a, Axis x) const {
    ax[a] = x;
    return ax;
  }

  /// `v` replicated along axis `a`: gathered or summed (or, by mistake, not, along another dim,
  /// or before the minor axis that splits the same dim).
  Value replicated_on(Value v, size_t a) {
    if (v.ax[a].partial) {
      if (slip()) return dist_only(v, "copy(" + v.dist + ")", with(v.ax, a, {}));
      return dist_only(v, "all-reduce(" + v.dist + "), " + groups(a) + ", to_apply=sum",
                       with(v.ax, a, {}));
    }
    const int d = v.ax[a].shard;
    if (d < 0) return v;
    // A minor axis splitting the same dim is gathered first (its blocks are the inner ones).
    for (size_t b = axes_ - 1; b > a; --b) {
      if (v.ax[b].shard == d && !slip()) v = replicated_on(v, b);
    }
    int dim = d;
    const auto l = local(v);
    if (l[0] == l[1] && slip()) dim = 1 - dim;  // a gather along the wrong dim, shapes permitting
    std::vector<int64_t> gathered = l;
    gathered[static_cast<size_t>(dim)] *= 2;
    const std::string g = fresh();
    dist_ += "  " + g + " = " + shape(gathered) + " all-gather(" + v.dist + "), dimensions={" +
             std::to_string(dim) + "}, " + groups(a) + "\n";
    Value out = v;
    out.ax[a] = {};
    out.dist = g;
    if (gathered != local(out)) out = dist_only(out, "reshape(" + g + ")", out.ax);
    return out;
  }
  Value replicated(Value v) {
    for (size_t a = axes_; a-- > 0;) v = replicated_on(v, a);
    return v;
  }
  /// The coordinate of this device on axis `a`, as an s32 scalar instruction.
  std::string coordinate(size_t a) {
    const std::string id = fresh(), rank = fresh(), step = fresh(), two = fresh(), over = fresh(),
                      out = fresh();
    dist_ += "  " + id + " = u32[] partition-id()\n  " + rank + " = s32[] convert(" + id + ")\n  " +
             step + " = s32[] constant(" + std::to_string(int64_t{1} << (axes_ - 1 - a)) + ")\n  " +
             two + " = s32[] constant(2)\n  " + over + " = s32[] divide(" + rank + ", " + step +
             ")\n  " + out + " = s32[] remainder(" + over + ", " + two + ")\n";
    return out;
  }
  /// `v` (replicated on axis `a`) split along `dim` on it: each rank's block (by mistake,
  /// coordinate 0's block on every rank).
  Value sharded_on(const Value& v, size_t a, int dim) {
    const auto l = local(v);
    std::vector<int64_t> sizes = l;
    sizes[static_cast<size_t>(dim)] /= 2;
    const std::vector<Axis> ax = with(v.ax, a, {dim, false});
    if (slip()) {
      return dist_only(v,
                       "slice(" + v.dist + "), slice={[0:" + std::to_string(sizes[0]) +
                           "], [0:" + std::to_string(sizes[1]) + "]}",
                       ax);
    }
    const std::string c = coordinate(a), width = fresh(), offset = fresh(), zero = fresh();
    dist_ += "  " + width + " = s32[] constant(" + std::to_string(sizes[static_cast<size_t>(dim)]) +
             ")\n  " + offset + " = s32[] multiply(" + c + ", " + width + ")\n  " + zero +
             " = s32[] constant(0)\n";
    const std::string starts = dim == 0 ? offset + ", " + zero : zero + ", " + offset;
    return dist_only(v,
                     "dynamic-slice(" + v.dist + ", " + starts + "), dynamic_slice_sizes={" +
                         std::to_string(sizes[0]) + "," + std::to_string(sizes[1]) + "}",
                     ax);
  }
  /// `v` in the layout of `like` (which has no partial axis): the axes that differ, and those
  /// splitting a dim they touch, replicated (minor first), then split major first.
  Value aligned(Value v, const Value& like) {
    std::vector<bool> redo(axes_, false);
    for (size_t a = 0; a < axes_; ++a) redo[a] = !(v.ax[a] == like.ax[a]);
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t a = 0; a < axes_; ++a) {
        if (!redo[a]) continue;
        for (size_t b = 0; b < axes_; ++b) {
          const int d = v.ax[b].shard;
          if (!redo[b] && d >= 0 && (d == v.ax[a].shard || d == like.ax[a].shard)) {
            redo[b] = grew = true;
          }
        }
      }
    }
    for (size_t a = axes_; a-- > 0;) {
      if (redo[a]) v = replicated_on(v, a);
    }
    for (size_t a = 0; a < axes_; ++a) {
      if (redo[a] && like.ax[a].shard >= 0 && v.ax[a].shard < 0) {
        v = sharded_on(v, a, like.ax[a].shard);
      }
    }
    return v;
  }
  /// `v` without partial axes (by mistake, sometimes left partial).
  Value whole(Value v) {
    for (size_t a = axes_; a-- > 0;) {
      if (v.ax[a].partial && !slip()) v = replicated_on(v, a);
    }
    return v;
  }
  bool partial(const Value& v) const {
    return std::any_of(v.ax.begin(), v.ax.end(), [](const Axis& a) { return a.partial; });
  }

  /// Axis `a`'s block of a moved to the other dim, the way GSPMD reshards: cut the target dim in
  /// two, exchange the halves (all-to-all), put the received blocks back in front (by mistake,
  /// merged without the transpose) and merge. Only when no other axis splits either dim.
  Value resharded(const Value& v, size_t a) {
    const int to = 1 - v.ax[a].shard;
    const auto l = local(v);
    const int64_t rows = l[0], cols = l[1];
    const std::vector<int64_t> cut =
        to == 1 ? std::vector<int64_t>{rows, 2, cols / 2} : std::vector<int64_t>{2, rows / 2, cols};
    const std::string c = fresh(), x = fresh();
    dist_ += "  " + c + " = " + shape(cut) + " reshape(" + v.dist + ")\n  " + x + " = " +
             shape(cut) + " all-to-all(" + c + "), dimensions={" + std::to_string(to == 1 ? 1 : 0) +
             "}, " + groups(a) + "\n";
    std::string moved = x;
    if (!slip()) {
      const std::vector<int64_t> t = to == 1 ? std::vector<int64_t>{2, rows, cols / 2}
                                             : std::vector<int64_t>{rows / 2, 2, cols};
      moved = fresh();
      dist_ += "  " + moved + " = " + shape(t) + " transpose(" + x + "), dimensions={1,0,2}\n";
    }
    return dist_only(v, "reshape(" + moved + ")", with(v.ax, a, {to, false}));
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
        const Value b = any(a.dims);
        static const char* kOps[] = {"add", "multiply", "subtract"};
        const std::string op = kOps[pick(0, 2)];
        // Sums and differences of partial sums alike are partial sums; products are not.
        if (partial(a) && a.ax == b.ax && op != "multiply") {
          values_.push_back(emit(op, {&a, &b}, a.dims, a.ax));
          break;
        }
        const Value x = whole(a);
        const Value y = aligned(whole(b), x);
        std::vector<Axis> ax = x.ax;
        for (Axis& k : ax) k.partial = false;  // (what a slip left partial is believed whole)
        values_.push_back(emit(op, {&x, &y}, a.dims, ax));
        break;
      }
      case 1: {  // a unary op: exp is not linear, negate is
        const bool linear = pick(0, 1) == 1;
        const Value x = linear ? a : whole(a);
        std::vector<Axis> ax = x.ax;
        if (!linear) {
          for (Axis& k : ax) k.partial = false;
        }
        values_.push_back(emit(linear ? "negate" : "exponential", {&x}, a.dims, ax));
        break;
      }
      case 2: {  // a transpose moves the shards
        std::vector<Axis> ax = a.ax;
        for (Axis& k : ax) k.shard = k.shard < 0 ? -1 : 1 - k.shard;
        values_.push_back(
            emit("transpose", {&a}, {a.dims[1], a.dims[0]}, ax, ", dimensions={1,0}"));
        break;
      }
      case 3: {  // a dot (or convolution) with a value whose rows are a's columns
        std::vector<size_t> fit;
        for (size_t i = 0; i < values_.size(); ++i) {
          if (values_[i].dims[0] == a.dims[1] && !partial(values_[i])) fit.push_back(i);
        }
        if (fit.empty() || partial(a)) break;
        Value x = a,
              y = values_[fit[static_cast<size_t>(pick(0, static_cast<int>(fit.size()) - 1))]];
        // Per axis: a row block gives a row block, a column block of y a column block, the
        // contraction split on both a partial sum; anything else is gathered first (which may
        // gather another axis splitting the same dim: until every axis fits).
        const auto fits = [](const Axis& p, const Axis& q) {
          return (p.shard < 0 && q.shard < 0) || (p.shard == 1 && q.shard == 0) ||
                 (p.shard == 0 && q.shard < 0) || (p.shard < 0 && q.shard == 1);
        };
        for (bool again = true; again;) {
          again = false;
          for (size_t k = axes_; k-- > 0;) {
            if (fits(x.ax[k], y.ax[k])) continue;
            x = replicated_on(x, k);
            y = replicated_on(y, k);
            again = true;
          }
        }
        std::vector<Axis> ax(axes_);
        for (size_t k = 0; k < axes_; ++k) {
          const Axis p = x.ax[k], q = y.ax[k];
          if (p.shard == 1 && q.shard == 0) ax[k].partial = true;
          if (p.shard == 0) ax[k].shard = 0;
          if (q.shard == 1) ax[k].shard = 1;
        }
        // One time in four the same product written as a convolution without spatial dims
        // (batch, input features; input features, output features).
        if (pick(0, 3) == 0) {
          values_.push_back(
              emit("convolution", {&x, &y}, {a.dims[0], y.dims[1]}, ax, ", dim_labels=bf_io->bf"));
          break;
        }
        values_.push_back(emit("dot", {&x, &y}, {a.dims[0], y.dims[1]}, ax,
                               ", lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
        break;
      }
      case 4: {  // a reshape to [n, m]: row blocks stay row blocks, a column block does not
        Value x = a;
        for (size_t k = axes_; k-- > 0;) {
          if (x.ax[k].shard == 1 && !slip()) x = replicated_on(x, k);
        }
        std::vector<Axis> ax = x.ax;
        for (Axis& k : ax) k.shard = k.shard < 0 ? -1 : 0;
        values_.push_back(emit("reshape", {&x}, {a.dims[1], a.dims[0]}, ax));
        break;
      }
      case 5: {  // an axis's block moved to the other dim, or its partial sum scattered
        for (size_t k = 0; k < axes_; ++k) {
          bool alone = true;
          for (size_t b = 0; b < axes_; ++b) alone = alone && (b == k || a.ax[b].shard < 0);
          if (!alone) continue;
          if (a.ax[k].shard >= 0 && !partial(a)) {
            values_.push_back(resharded(a, k));
            break;
          }
          if (a.ax[k].partial) {
            const int dim = pick(0, 1);
            // By mistake, the sum forgotten and a block taken.
            values_.push_back(
                slip() ? sharded_on(dist_only(a, "copy(" + a.dist + ")", with(a.ax, k, {})), k, dim)
                       : dist_only(a,
                                   "reduce-scatter(" + a.dist + "), dimensions={" +
                                       std::to_string(dim) + "}, " + groups(k) + ", to_apply=sum",
                                   with(a.ax, k, {dim, false})));
            break;
          }
        }
        break;
      }
      default: {  // a sum over the rows, broadcast back
        std::vector<Axis> ax = a.ax;
        for (Axis& k : ax) {
          if (k.shard == 0) k = {-1, true};
        }
        const std::string zero = "z" + std::to_string(next_++);
        ref_ += "  " + zero + " = f32[] constant(0)\n";
        dist_ += "  " + zero + " = f32[] constant(0)\n";
        const Value z{zero, zero, {}, std::vector<Axis>(axes_)};
        std::vector<Axis> row = ax;
        for (Axis& k : row) k.shard = k.shard == 1 ? 0 : -1;
        const Value s =
            emit("reduce", {&a, &z}, {a.dims[1]}, row, ", dimensions={0}, to_apply=sum");
        values_.push_back(emit("broadcast", {&s}, a.dims, ax, ", dimensions={1}"));
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  size_t axes_ = 1;
  std::string ref_, dist_;
  std::vector<Value> values_;
  int next_ = 0, bugs_ = 0;
};

/// Every device's arguments as `bijection` lays the reference arguments out: each axis's block
/// (major axis first, so that two axes splitting one dim split it major to minor), and for a
/// partial axis random summands.
std::vector<std::vector<eval::Value>> rank_arguments(
    const std::vector<verify::BijectionEntry>& bijection, const std::vector<eval::Value>& args,
    size_t axes, std::mt19937_64& rng) {
  const int64_t devices = int64_t{1} << axes;
  std::vector<std::vector<eval::Value>> out(static_cast<size_t>(devices),
                                            std::vector<eval::Value>(args.size()));
  std::uniform_real_distribution<double> u(-1, 1);
  for (const verify::BijectionEntry& b : bijection) {
    // One random split per partial axis, shared by the devices that differ elsewhere.
    std::vector<eval::Tensor> split(axes);
    // The reference parameter as the bijection relates it: reshaped, then transposed.
    eval::Tensor whole = args[static_cast<size_t>(b.ref_number)].tensor();
    if (!b.reshape.empty()) whole.dims = b.reshape;
    if (b.permutation == std::vector<int64_t>{1, 0}) {
      eval::Tensor t{{whole.dims[1], whole.dims[0]}, {}};
      for (int64_t j = 0; j < whole.dims[1]; ++j) {
        for (int64_t i = 0; i < whole.dims[0]; ++i) {
          t.data.push_back(whole.data[static_cast<size_t>(i * whole.dims[1] + j)]);
        }
      }
      whole = std::move(t);
    }
    for (int64_t d = 0; d < devices; ++d) {
      eval::Tensor x = whole;
      for (size_t a = 0; a < axes; ++a) {
        const int64_t c = (d >> (axes - 1 - a)) & 1;
        const verify::AxisLayout& l = b.layout.axes.at(a);
        if (l.is_shard()) {
          const int64_t size = x.dims[static_cast<size_t>(l.dim)] / 2;
          x = eval::mesh::chunk(x, l.dim, c * size, size);
        } else if (l.is_partial()) {
          if (split[a].dims != x.dims) {
            split[a] = x;
            for (double& e : split[a].data) e = u(rng);
          }
          for (size_t i = 0; i < x.data.size(); ++i) {
            x.data[i] = c == 0 ? x.data[i] - split[a].data[i] : split[a].data[i];
          }
        }
      }
      out[static_cast<size_t>(d)][static_cast<size_t>(b.dist_number)] = x;
    }
  }
  return out;
}

/// The reference value the devices' values hold in `layout`, collected minor axis first; empty
/// (with `why`) where replicated values differ.
std::optional<eval::Tensor> collected(std::vector<eval::Tensor> x, const verify::Layout& layout,
                                      std::string* why) {
  for (size_t a = layout.axes.size(); a-- > 0;) {
    const verify::AxisLayout& l = layout.axes[a];
    std::vector<eval::Tensor> next;
    for (size_t i = 0; i + 1 < x.size(); i += 2) {
      const std::vector<eval::Tensor> pair = {x[i], x[i + 1]};
      if (l.is_shard()) {
        eval::Tensor t = eval::mesh::concatenate(pair, l.dim);
        if (l.full >= 0) t = eval::mesh::chunk(t, l.dim, 0, l.full);
        next.push_back(std::move(t));
      } else if (l.is_partial()) {
        // The writer's partial values are sums; the checker may say a mean (its parts summed,
        // then divided by their number: an all-reduce summed equal copies on the way).
        next.push_back(eval::mesh::combine(pair, l.op == verify::ReduceOp::kMean
                                                     ? eval::mesh::Reduction::kMean
                                                     : eval::mesh::Reduction::kSum));
      } else {
        if (!eval::all_close(pair[0], pair[1], 1e-9, 1e-9, why)) return std::nullopt;
        next.push_back(pair[0]);
      }
    }
    x = std::move(next);
  }
  return x.at(0);
}

/// Checks `seeds` random programs on a mesh of `axes` axes; returns how many were proven.
void campaign(size_t axes, uint64_t seeds) {
  const auto mesh = verify::Mesh::parse(axes == 1 ? "tp=2" : "dp=2,tp=2");
  REQUIRE(mesh);
  int proven = 0, clean = 0, clean_proven = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    Writer w(seed, axes);
    w.write();
    const std::string rt = w.ref_text(), dt = w.dist_text();
    INFO("seed " << seed << "\n--- ref\n" << rt << "--- dist\n" << dt);
    const ir::Module ref = test::parse_module(rt, "ref.hlo");
    const ir::Module dist = test::parse_module(dt, "dist.hlo");
    verify::CheckRequest request;
    request.mesh = *mesh;
    auto r = verify::check(ref, dist, request);
    REQUIRE(r);
    clean += w.bugs() == 0;
    if (r->verdict != verify::Verdict::kEquivalent) continue;
    ++proven;
    clean_proven += w.bugs() == 0;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<eval::Value> args;
    for (ir::InstrId p : ref.entry().parameters()) {
      eval::Tensor t;
      t.dims = ref.entry()[p].type.dims();
      for (int64_t i = 0; i < t.element_count(); ++i) t.data.push_back(u(rng));
      args.emplace_back(std::move(t));
    }
    const auto want = eval::evaluate(ref, ref.entry_id, args);
    REQUIRE(want);
    // Each device's arguments as the bijection the proof rests on lays them out (a parameter it
    // takes for a partial sum is an assumption the result states: the devices' values sum to it).
    REQUIRE(r->bijection.size() == args.size());
    const auto ranks =
        test::simulate_ranks(dist, w.devices(), rank_arguments(r->bijection, args, axes, rng));
    REQUIRE(ranks);
    // The devices hold the reference output in the layout the goal was proven in (an output may
    // be left a shard or a partial sum: the result says so).
    REQUIRE(r->goals.size() == 1);
    REQUIRE(r->goals[0].layout);
    std::vector<eval::Tensor> per_device;
    for (const eval::Value& got : *ranks) per_device.push_back(got.tensor());
    std::string why;
    const auto got = collected(per_device, *r->goals[0].layout, &why);
    INFO(r->goals[0].layout->to_string(r->mesh) << ": " << why);
    REQUIRE(got);
    CHECK(eval::all_close(*got, want->tensor(), 1e-9, 1e-9, &why));
    // And the independent proof checker accepts the proof.
    const auto recheck = proofcheck::check_proof({"ref.hlo", rt, "dist.hlo", dt, *r});
    REQUIRE(recheck);
    INFO(recheck->why);
    CHECK(recheck->outcome == proofcheck::ProofCheckReport::Outcome::kAccepted);
  }
  INFO(proven << " proven, " << clean_proven << " of the " << clean << " written without a slip");
  // Not vacuous: the programs written without a slip are proven (and then checked above).
  CHECK(clean_proven * 10 >= clean * 9);
}

uint64_t seeds(uint64_t otherwise) {
  const char* env = std::getenv("SCALIFY_SOUNDNESS_SEEDS");
  return env ? std::strtoull(env, nullptr, 10) : otherwise;
}

}  // namespace

TEST_CASE(
    "soundness: a tensor-parallel program proven equivalent computes the reference on "
    "every rank",
    "[verify][soundness]") {
  campaign(1, seeds(600));
}

TEST_CASE(
    "soundness: on a dp x tp mesh, a program proven equivalent computes the reference on "
    "every device",
    "[verify][soundness]") {
  campaign(2, seeds(300));
}

}  // namespace scalify
