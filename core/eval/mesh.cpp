#include "eval/mesh.h"

#include <algorithm>
#include <cmath>

namespace scalify::eval::mesh {
namespace {

size_t at(int64_t i) { return static_cast<size_t>(i); }

Diagnostic error(std::string message) { return Diagnostic{"<mesh>", {}, std::move(message), {}}; }

bool valid_dim(const Tensor& x, int64_t dim) { return dim >= 0 && dim < x.rank(); }

}  // namespace

Expected<std::vector<Tensor>> split(const Tensor& X, int64_t dim, int64_t n) {
  if (!valid_dim(X, dim)) return error("no dimension " + std::to_string(dim) + " to split");
  const int64_t size = X.dims[at(dim)];
  if (size % n != 0) {
    return error("dimension " + std::to_string(dim) + " (" + std::to_string(size) +
                 ") does not divide among " + std::to_string(n) + " ranks");
  }
  std::vector<Tensor> x;
  for (int64_t r = 0; r < n; ++r) x.push_back(chunk(X, dim, r * (size / n), size / n));
  return x;
}

Tensor concatenate(std::span<const Tensor> parts, int64_t dim) {
  Tensor out;
  out.dims = parts[0].dims;
  out.dims[at(dim)] = 0;
  for (const Tensor& p : parts) out.dims[at(dim)] += p.dims[at(dim)];
  out.data.assign(at(out.element_count()), 0.0);
  int64_t base = 0;
  for (const Tensor& p : parts) {
    std::vector<int64_t> index(p.dims.size(), 0);
    if (p.element_count() > 0) {
      do {
        std::vector<int64_t> to = index;
        to[at(dim)] += base;
        out.data[at(out.linear_index(to))] = p.at(index);
      } while (next_index(index, p.dims));
    }
    base += p.dims[at(dim)];
  }
  return out;
}

Tensor chunk(const Tensor& x, int64_t dim, int64_t start, int64_t size) {
  Tensor out;
  out.dims = x.dims;
  out.dims[at(dim)] = size;
  out.data.assign(at(out.element_count()), 0.0);
  if (out.element_count() == 0) return out;
  std::vector<int64_t> index(out.dims.size(), 0);
  do {
    std::vector<int64_t> from = index;
    from[at(dim)] += start;
    if (from[at(dim)] < x.dims[at(dim)]) out.data[at(out.linear_index(index))] = x.at(from);
  } while (next_index(index, out.dims));
  return out;
}

std::optional<Reduction> reduction_named(std::string_view word) {
  if (word == "sum" || word == "add") return Reduction::kSum;
  if (word == "mean") return Reduction::kMean;
  if (word == "max" || word == "maximum") return Reduction::kMax;
  if (word == "min" || word == "minimum") return Reduction::kMin;
  if (word == "product" || word == "multiply") return Reduction::kProduct;
  return std::nullopt;
}

const char* to_string(Reduction r) {
  switch (r) {
    case Reduction::kSum:
      return "sum";
    case Reduction::kMean:
      return "mean";
    case Reduction::kMax:
      return "max";
    case Reduction::kMin:
      return "min";
    case Reduction::kProduct:
      return "product";
  }
  return "";
}

Tensor combine(std::span<const Tensor> parts, Reduction op) {
  Tensor out = parts[0];
  for (size_t r = 1; r < parts.size(); ++r) {
    for (size_t i = 0; i < out.data.size(); ++i) {
      const double y = parts[r].data[i];
      double& x = out.data[i];
      switch (op) {
        case Reduction::kSum:
        case Reduction::kMean:
          x += y;
          break;
        case Reduction::kMax:
          x = std::max(x, y);
          break;
        case Reduction::kMin:
          x = std::min(x, y);
          break;
        case Reduction::kProduct:
          x *= y;
          break;
      }
    }
  }
  if (op == Reduction::kMean) {
    for (double& x : out.data) x /= static_cast<double>(parts.size());
  }
  return out;
}

std::string to_string(const Layout& l) {
  switch (l.kind) {
    case Layout::Kind::kRep:
      return "Rep";
    case Layout::Kind::kShard:
      return "Shard(" + std::to_string(l.dim) + ")";
    case Layout::Kind::kPartial:
      return std::string("Partial(") + to_string(l.op) + ")";
  }
  return "";
}

Expected<std::vector<Tensor>> distribute(const Tensor& X, const Layout& l, int64_t n,
                                         std::mt19937_64& rng) {
  if (l.kind == Layout::Kind::kShard) return split(X, l.dim, n);
  std::vector<Tensor> x(at(n), X);
  if (l.kind == Layout::Kind::kRep) return x;
  // Partial: n - 1 ranks hold random values and the last one what makes them combine to X.
  std::uniform_real_distribution<double> part(-2.0, 2.0), below(0.0, 2.0), factor(0.5, 2.0);
  const size_t last = at(n - 1);
  for (size_t i = 0; i < X.data.size(); ++i) {
    const double want = X.data[i];
    double rest = l.op == Reduction::kProduct ? 1.0 : 0.0;
    for (size_t r = 0; r < last; ++r) {
      double& v = x[r].data[i];
      switch (l.op) {
        case Reduction::kSum:
        case Reduction::kMean:
          v = part(rng);
          rest += v;
          break;
        case Reduction::kMax:
          v = want - below(rng);
          break;
        case Reduction::kMin:
          v = want + below(rng);
          break;
        case Reduction::kProduct:
          v = std::uniform_int_distribution<int>(0, 1)(rng) ? factor(rng) : -factor(rng);
          rest *= v;
          break;
      }
    }
    double& v = x[last].data[i];
    switch (l.op) {
      case Reduction::kSum:
        v = want - rest;
        break;
      case Reduction::kMean:
        v = want * static_cast<double>(n) - rest;
        break;
      case Reduction::kMax:
      case Reduction::kMin:
        v = want;
        break;
      case Reduction::kProduct:
        v = want / rest;
        break;
    }
  }
  if (l.op == Reduction::kMax || l.op == Reduction::kMin) {
    // The rank holding X itself is random too, so that no rule can count on it being the last.
    std::swap(x[last], x[at(std::uniform_int_distribution<int64_t>(0, n - 1)(rng))]);
  }
  return x;
}

Expected<Tensor> collect(std::span<const Tensor> x, const Layout& l, double rtol, double atol) {
  switch (l.kind) {
    case Layout::Kind::kRep:
      for (size_t r = 1; r < x.size(); ++r) {
        std::string why;
        if (!all_close(x[r], x[0], rtol, atol, &why)) {
          return error("ranks 0 and " + std::to_string(r) + " differ: " + why);
        }
      }
      return x[0];
    case Layout::Kind::kShard:
      if (!valid_dim(x[0], l.dim)) return error("no dimension " + std::to_string(l.dim));
      return concatenate(x, l.dim);
    case Layout::Kind::kPartial:
      return combine(x, l.op);
  }
  return error("unknown layout");
}

bool holds(std::span<const Tensor> x, const Tensor& X, const Layout& l, double rtol, double atol,
           std::string* why) {
  auto fail = [&](std::string message) {
    if (why) *why = std::move(message);
    return false;
  };
  for (size_t r = 0; r < x.size(); ++r) {
    const bool fits =
        l.kind != Layout::Kind::kShard
            ? x[r].dims == X.dims
            : valid_dim(X, l.dim) && x[r].rank() == X.rank() &&
                  x[r].dims[at(l.dim)] * static_cast<int64_t>(x.size()) == X.dims[at(l.dim)];
    if (!fits) {
      return fail("rank " + std::to_string(r) + " holds a " + x[r].shape_string() +
                  " value, which cannot be " + to_string(l) + " of a " + X.shape_string() +
                  " value on " + std::to_string(x.size()) + " ranks");
    }
  }
  if (l.kind == Layout::Kind::kRep) {
    for (size_t r = 0; r < x.size(); ++r) {
      std::string d;
      if (!all_close(x[r], X, rtol, atol, &d)) return fail("rank " + std::to_string(r) + ": " + d);
    }
    return true;
  }
  auto whole = collect(x, l, rtol, atol);
  std::string d;
  if (!all_close(*whole, X, rtol, atol, &d)) {
    return fail(
        std::string(l.kind == Layout::Kind::kShard ? "the concatenation" : "the combination") +
        " of the ranks' values: " + d);
  }
  return true;
}

std::vector<Tensor> all_reduce(std::span<const Tensor> x, Reduction op) {
  return std::vector<Tensor>(x.size(), combine(x, op));
}

std::vector<Tensor> all_gather(std::span<const Tensor> x, int64_t dim) {
  return std::vector<Tensor>(x.size(), concatenate(x, dim));
}

Expected<std::vector<Tensor>> reduce_scatter(std::span<const Tensor> x, int64_t dim, Reduction op) {
  return split(combine(x, op), dim, static_cast<int64_t>(x.size()));
}

Expected<std::vector<Tensor>> all_to_all(std::span<const Tensor> x, int64_t split_dim,
                                         int64_t concat_dim) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (!valid_dim(x[0], split_dim) || !valid_dim(x[0], concat_dim)) {
    return error("all-to-all: a dimension is out of range");
  }
  std::vector<std::vector<Tensor>> blocks;  // blocks[from][to]
  for (const Tensor& t : x) {
    auto b = split(t, split_dim, n);
    if (!b) return b.error();
    blocks.push_back(std::move(*b));
  }
  std::vector<Tensor> out;
  for (int64_t to = 0; to < n; ++to) {
    std::vector<Tensor> received;
    for (int64_t from = 0; from < n; ++from) received.push_back(blocks[at(from)][at(to)]);
    out.push_back(concatenate(received, concat_dim));
  }
  return out;
}

}  // namespace scalify::eval::mesh
