#include "rules/tensor_sampler.h"

#include <algorithm>
#include <array>

#include "ir/opcode.h"

namespace scalify::rules::check {
namespace {

using egraph::AttrValue;
using List = std::vector<int64_t>;

constexpr int64_t kMaxDim = 4;
constexpr int64_t kMaxRank = 3;

const AttrExpr* find_attr(const TNode& n, std::string_view key) {
  for (const auto& [k, e] : n.attrs) {
    if (k == key) return &e;
  }
  return nullptr;
}

/// The value an attribute already has in this instance (a literal or a bound variable).
const AttrValue* known(const AttrExpr* e, const Binding& b) {
  if (!e) return nullptr;
  if (e->kind == AttrExpr::Kind::kLiteral) return &e->literal;
  if (e->kind == AttrExpr::Kind::kAttrVar && b.attrs[e->var]) return &*b.attrs[e->var];
  return nullptr;
}

const List* known_list(const AttrExpr* e, const Binding& b) {
  const AttrValue* v = known(e, b);
  return v ? std::get_if<List>(v) : nullptr;
}

/// Gives an unbound attribute variable its value.
void set(const AttrExpr* e, Binding& b, AttrValue v) {
  if (e && e->kind == AttrExpr::Kind::kAttrVar && !b.attrs[e->var]) b.attrs[e->var] = std::move(v);
}

/// The type of `n` if all its variables are bound and it type-checks.
std::optional<ir::Type> infer(const TNode& n, const Binding& b) {
  auto t = type_side(n, b);
  if (const Typed* typed = std::get_if<Typed>(&t)) return typed->type;
  return std::nullopt;
}

ir::Type array(ir::DType t, List dims) { return ir::Type::array(t, std::move(dims)); }

List random_dims(Rng& rng, int64_t rank) {
  List d(static_cast<size_t>(rank));
  for (int64_t& x : d) x = rng.uniform(1, kMaxDim);
  return d;
}

List random_permutation(Rng& rng, int64_t n) {
  List p(static_cast<size_t>(n));
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int64_t>(i);
  for (size_t i = p.size(); i > 1; --i) {
    std::swap(p[i - 1], p[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(i) - 1))]);
  }
  return p;
}

/// `k` distinct entries of [0, n), ascending.
List random_subset(Rng& rng, int64_t n, int64_t k) {
  List p = random_permutation(rng, n);
  p.resize(static_cast<size_t>(std::clamp<int64_t>(k, 0, n)));
  std::sort(p.begin(), p.end());
  return p;
}

int64_t count(const List& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

/// A shape with the element count of `s` that a reshape to `s` could start from: `s` itself,
/// one dimension split in two, two neighbours merged, or a random factorisation.
List reshape_source(Rng& rng, const List& s) {
  switch (rng.uniform(0, 3)) {
    case 0:
      return s;
    case 1: {  // split
      for (int tries = 0; tries < 4 && !s.empty(); ++tries) {
        const size_t i = static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(s.size()) - 1));
        for (int64_t f = 2; f < s[i]; ++f) {
          if (s[i] % f == 0 && rng.chance(0.7)) {
            List out = s;
            out[i] = f;
            out.insert(out.begin() + static_cast<std::ptrdiff_t>(i) + 1, s[i] / f);
            return out;
          }
        }
      }
      return s;
    }
    case 2: {  // merge
      if (s.size() < 2) return s;
      const size_t i = static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(s.size()) - 2));
      List out = s;
      out[i] *= out[i + 1];
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      return out;
    }
    default: {  // factorise the count into up to kMaxRank dimensions
      int64_t n = count(s);
      List primes;
      for (int64_t p = 2; n > 1 && p <= n; ++p) {
        while (n % p == 0) primes.push_back(p), n /= p;
      }
      const int64_t rank = rng.uniform(primes.empty() ? 0 : 1, kMaxRank);
      List out(static_cast<size_t>(rank), 1);
      for (int64_t p : primes) {
        if (out.empty()) out.push_back(1);
        out[static_cast<size_t>(rng.uniform(0, static_cast<int64_t>(out.size()) - 1))] *= p;
      }
      return out;
    }
  }
}

/// A constant: often a special one (0, ±1, …), else a multiple of 1/64 in [-3, 3].
AttrValue random_number(Rng& rng) {
  static constexpr std::array kNumbers = {-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0};
  if (rng.chance(0.3)) {
    return AttrValue(kNumbers[static_cast<size_t>(rng.uniform(0, kNumbers.size() - 1))]);
  }
  return AttrValue(static_cast<double>(rng.uniform(-192, 192)) / 64.0);
}

class Sampler {
 public:
  Sampler(Binding& b, Rng& rng) : b_(b), rng_(rng) {}

  void sample(const TNode& n, const std::optional<ir::Type>& want) {
    switch (n.kind) {
      case TNode::Kind::kOperand:
        if (!b_.types[n.var]) b_.types[n.var] = want ? *want : random_type(rng_);
        return;
      case TNode::Kind::kNumber:
        set(&n.value, b_, random_number(rng_));
        return;
      case TNode::Kind::kApply:
        break;
    }
    const ir::Type e = want && want->is_array() ? *want : random_type(rng_);
    const std::string& op = n.op;
    const auto code = ir::parse_opcode(op);
    if (code && ir::is_elementwise(*code)) {
      for (const TNode& a : n.args) sample(a, e);
    } else if (op == "compare") {
      set(find_attr(n, "direction"), b_,
          AttrValue(std::string(
              kDirections[static_cast<size_t>(rng_.uniform(0, kDirections.size() - 1))])));
      for (const TNode& a : n.args) sample(a, array(ir::DType::kF32, e.dims()));
    } else if (op == "select") {
      for (size_t i = 0; i < n.args.size(); ++i) {
        sample(n.args[i], i == 0 ? array(ir::DType::kPred, e.dims()) : e);
      }
    } else if (op == "convert") {
      static constexpr std::array<const char*, 4> kTypes = {"f32", "f16", "bf16", "s32"};
      set(find_attr(n, "type"), b_,
          AttrValue(std::string(kTypes[static_cast<size_t>(rng_.uniform(0, 3))])));
      for (const TNode& a : n.args) sample(a, array(ir::DType::kF32, e.dims()));
    } else if (op == "transpose") {
      transpose(n, e);
    } else if (op == "reshape") {
      reshape(n, e);
    } else if (op == "broadcast") {
      broadcast(n, e);
    } else if (op == "slice") {
      slice(n, e);
    } else if (op == "concatenate") {
      concatenate(n, e);
    } else if (op == "dot") {
      dot(n, e);
    } else if (op == "reduce") {
      reduce(n, e);
    } else if (op == "reverse") {
      set(find_attr(n, "dimensions"), b_,
          AttrValue(random_subset(rng_, e.rank(), rng_.uniform(0, e.rank()))));
      for (const TNode& a : n.args) sample(a, e);
    } else if (op == "custom-call") {
      custom_call(n, e);
    } else {
      for (const TNode& a : n.args) sample(a, std::nullopt);
    }
  }

 private:
  static constexpr std::array<const char*, 6> kDirections = {"EQ", "NE", "LT", "LE", "GT", "GE"};

  void sample_operands(const TNode& n, const std::optional<ir::Type>& want) {
    for (const TNode& a : n.args) sample(a, want);
  }

  void transpose(const TNode& n, const ir::Type& e) {
    const AttrExpr* attr = find_attr(n, "dimensions");
    set(attr, b_, AttrValue(random_permutation(rng_, e.rank())));
    const List* p = known_list(attr, b_);
    if (!p || static_cast<int64_t>(p->size()) != e.rank()) return sample_operands(n, std::nullopt);
    List dims(p->size());
    for (size_t i = 0; i < p->size(); ++i) {
      const int64_t from = (*p)[i];
      if (from < 0 || from >= e.rank()) return sample_operands(n, std::nullopt);
      dims[static_cast<size_t>(from)] = e.dims()[i];
    }
    sample_operands(n, array(e.dtype(), dims));
  }

  void reshape(const TNode& n, const ir::Type& e) {
    const AttrExpr* attr = find_attr(n, "shape");
    set(attr, b_, AttrValue(e.dims()));
    const List* s = known_list(attr, b_);
    if (n.args.size() != 1 || !s) return sample_operands(n, std::nullopt);
    if (auto t = infer(n.args[0], b_)) return;
    sample_operands(n, array(e.dtype(), reshape_source(rng_, *s)));
  }

  void broadcast(const TNode& n, const ir::Type& e) {
    const AttrExpr* shape_attr = find_attr(n, "shape");
    const AttrExpr* dims_attr = find_attr(n, "dimensions");
    set(shape_attr, b_, AttrValue(e.dims()));
    const List* s = known_list(shape_attr, b_);
    const int64_t rank = s ? static_cast<int64_t>(s->size()) : e.rank();
    std::optional<ir::Type> operand;
    if (n.args.size() == 1) operand = infer(n.args[0], b_);
    const int64_t k = operand ? operand->rank() : rng_.uniform(0, rank);
    set(dims_attr, b_, AttrValue(random_subset(rng_, rank, k)));
    const List* d = known_list(dims_attr, b_);
    if (!s || !d || operand) return sample_operands(n, std::nullopt);
    List dims;
    for (int64_t i : *d) {
      if (i < 0 || i >= rank) return sample_operands(n, std::nullopt);
      dims.push_back((*s)[static_cast<size_t>(i)]);
    }
    sample_operands(n, array(e.dtype(), dims));
  }

  void slice(const TNode& n, const ir::Type& e) {
    const AttrExpr* start_attr = find_attr(n, "start_indices");
    const AttrExpr* limit_attr = find_attr(n, "limit_indices");
    const AttrExpr* stride_attr = find_attr(n, "strides");
    if (n.args.size() != 1) return sample_operands(n, std::nullopt);
    const std::optional<ir::Type> operand = infer(n.args[0], b_);
    const List* start = known_list(start_attr, b_);
    const List* limit = known_list(limit_attr, b_);
    const List* strides = known_list(stride_attr, b_);
    const size_t rank = static_cast<size_t>(operand ? operand->rank() : e.rank());
    List st(rank), li(rank), sd(rank), dims(rank);
    for (size_t i = 0; i < rank; ++i) {
      sd[i] = strides && i < strides->size() ? (*strides)[i] : (rng_.chance(0.7) ? 1 : 2);
      if (operand) {
        const int64_t size = operand->dims()[i];
        st[i] = start && i < start->size() ? (*start)[i]
                                           : (rng_.chance(0.5) ? 0 : rng_.uniform(0, size - 1));
        li[i] = limit && i < limit->size() ? (*limit)[i]
                                           : (rng_.chance(0.5) ? size : rng_.uniform(st[i], size));
        continue;
      }
      const int64_t out = e.dims()[i];
      st[i] =
          start && i < start->size() ? (*start)[i] : (rng_.chance(0.5) ? 0 : rng_.uniform(0, 2));
      li[i] = limit && i < limit->size() ? (*limit)[i] : st[i] + (out - 1) * sd[i] + 1;
      dims[i] = std::max<int64_t>(li[i], 1) + (rng_.chance(0.5) ? rng_.uniform(0, 2) : 0);
    }
    set(start_attr, b_, AttrValue(st));
    set(limit_attr, b_, AttrValue(li));
    set(stride_attr, b_, AttrValue(sd));
    if (!operand) sample_operands(n, array(e.dtype(), dims));
  }

  void concatenate(const TNode& n, const ir::Type& e) {
    const AttrExpr* attr = find_attr(n, "dimensions");
    if (e.rank() > 0) set(attr, b_, AttrValue(List{rng_.uniform(0, e.rank() - 1)}));
    const List* d = known_list(attr, b_);
    if (!d || d->size() != 1 || (*d)[0] < 0 || (*d)[0] >= e.rank()) {
      return sample_operands(n, std::nullopt);
    }
    const size_t k = static_cast<size_t>((*d)[0]);
    std::vector<std::optional<ir::Type>> types;
    int64_t rest = e.dims()[k];
    int64_t unknown = 0;
    for (const TNode& a : n.args) {
      types.push_back(infer(a, b_));
      if (types.back() && types.back()->rank() == e.rank()) {
        rest -= types.back()->dims()[k];
      } else if (!types.back()) {
        ++unknown;
      }
    }
    // Split what the known parts leave among the unknown ones, each at least 1.
    List parts;
    for (int64_t i = 0; i < unknown; ++i) {
      const int64_t left = unknown - i - 1;
      const int64_t part =
          i + 1 == unknown ? rest : rng_.uniform(1, std::max<int64_t>(1, rest - left));
      parts.push_back(std::max<int64_t>(part, 1));
      rest -= part;
    }
    size_t next = 0;
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (types[i]) continue;
      List dims = e.dims();
      dims[k] = parts[next++];
      sample(n.args[i], array(e.dtype(), dims));
    }
  }

  /// Positions of a dot operand of rank `rank`: `nb` batch dimensions (leading, mostly) and `nc`
  /// contracting ones; the rest are free.
  void dot_positions(int64_t rank, int64_t nb, int64_t nc, List& batch, List& contracting) {
    List p = random_permutation(rng_, rank);
    if (rng_.chance(0.7)) {
      // Mostly batch dimensions first, in order, as most programs write them.
      List order;
      for (int64_t i = 0; i < nb; ++i) order.push_back(i);
      for (int64_t x : p) {
        if (x >= nb) order.push_back(x);
      }
      p = order;
    }
    batch.assign(p.begin(), p.begin() + nb);
    contracting.assign(p.begin() + nb, p.begin() + nb + nc);
  }

  void dot(const TNode& n, const ir::Type& e) {
    if (n.args.size() != 2) return sample_operands(n, std::nullopt);
    const AttrExpr* lc_attr = find_attr(n, "lhs_contracting_dims");
    const AttrExpr* rc_attr = find_attr(n, "rhs_contracting_dims");
    const AttrExpr* lb_attr = find_attr(n, "lhs_batch_dims");
    const AttrExpr* rb_attr = find_attr(n, "rhs_batch_dims");
    const std::optional<ir::Type> l = infer(n.args[0], b_), r = infer(n.args[1], b_);
    const List* lc = known_list(lc_attr, b_);
    const List* rc = known_list(rc_attr, b_);
    const List* lb = known_list(lb_attr, b_);
    const List* rb = known_list(rb_attr, b_);
    const int64_t nb = lb        ? static_cast<int64_t>(lb->size())
                       : rb      ? static_cast<int64_t>(rb->size())
                       : lb_attr ? rng_.uniform(0, std::min<int64_t>(1, e.rank()))
                                 : 0;
    const int64_t nc = lc   ? static_cast<int64_t>(lc->size())
                       : rc ? static_cast<int64_t>(rc->size())
                            : (rng_.chance(0.8) ? 1 : rng_.uniform(0, 2));
    const int64_t free = e.rank() - nb;
    if (free < 0) return sample_operands(n, std::nullopt);
    int64_t lf = 0;
    if (l) {
      lf = l->rank() - nb - nc;
    } else if (r) {
      lf = free - (r->rank() - nb - nc);
    } else if (lc && !lc->empty()) {
      // The contracting dimensions say how large the lhs is at least.
      const int64_t need = *std::max_element(lc->begin(), lc->end()) + 1 - nb - nc;
      lf = std::clamp<int64_t>(rng_.uniform(std::max<int64_t>(need, 0), free), 0, free);
    } else {
      lf = rng_.uniform(0, free);
    }
    const int64_t rf = free - lf;
    if (lf < 0 || rf < 0) return sample_operands(n, std::nullopt);
    const int64_t lrank = nb + nc + lf, rrank = nb + nc + rf;
    List lbp, lcp, rbp, rcp;
    dot_positions(lrank, nb, nc, lbp, lcp);
    dot_positions(rrank, nb, nc, rbp, rcp);
    if (lb_attr) set(lb_attr, b_, AttrValue(lbp));
    if (rb_attr) set(rb_attr, b_, AttrValue(rbp));
    set(lc_attr, b_, AttrValue(lcp));
    set(rc_attr, b_, AttrValue(rcp));
    lb = known_list(lb_attr, b_);
    rb = known_list(rb_attr, b_);
    lc = known_list(lc_attr, b_);
    rc = known_list(rc_attr, b_);
    const List none;
    const List& lbd = lb ? *lb : none;
    const List& rbd = rb ? *rb : none;
    if (!lc || !rc) return sample_operands(n, std::nullopt);
    // Contracted sizes: from an operand already typed, else random.
    List csize;
    for (size_t i = 0; i < lc->size(); ++i) {
      int64_t size = rng_.uniform(1, kMaxDim);
      if (l && (*lc)[i] >= 0 && (*lc)[i] < l->rank()) size = l->dim((*lc)[i]);
      if (r && i < rc->size() && (*rc)[i] >= 0 && (*rc)[i] < r->rank()) size = r->dim((*rc)[i]);
      csize.push_back(size);
    }
    const List& out = e.dims();
    auto operand = [&](int64_t rank, const List& batch, const List& contracting, size_t free_from,
                       int64_t free_count) -> std::optional<List> {
      List dims(static_cast<size_t>(rank), 0);
      for (size_t i = 0; i < batch.size(); ++i) {
        if (batch[i] < 0 || batch[i] >= rank || i >= out.size()) return std::nullopt;
        dims[static_cast<size_t>(batch[i])] = out[i];
      }
      for (size_t i = 0; i < contracting.size(); ++i) {
        if (contracting[i] < 0 || contracting[i] >= rank || i >= csize.size()) return std::nullopt;
        dims[static_cast<size_t>(contracting[i])] = csize[i];
      }
      size_t next = free_from;
      int64_t used = 0;
      for (int64_t& d : dims) {
        if (d != 0) continue;
        if (next >= out.size() || used == free_count) return std::nullopt;
        d = out[next++];
        ++used;
      }
      return dims;
    };
    if (!l) {
      const auto dims = operand(lrank, lbd, *lc, static_cast<size_t>(nb), lf);
      sample(n.args[0], dims ? std::optional(array(e.dtype(), *dims)) : std::nullopt);
    }
    if (!r) {
      const auto dims = operand(rrank, rbd, *rc, static_cast<size_t>(nb + lf), rf);
      sample(n.args[1], dims ? std::optional(array(e.dtype(), *dims)) : std::nullopt);
    }
  }

  void reduce(const TNode& n, const ir::Type& e) {
    static constexpr std::array<const char*, 4> kReducers = {"add", "maximum", "minimum",
                                                             "multiply"};
    set(find_attr(n, "to_apply"), b_,
        AttrValue(std::string(kReducers[static_cast<size_t>(rng_.uniform(0, 3))])));
    const AttrExpr* attr = find_attr(n, "dimensions");
    if (n.args.size() != 2) return sample_operands(n, std::nullopt);
    sample(n.args[1], array(e.dtype(), {}));
    if (auto x = infer(n.args[0], b_)) {
      set(attr, b_, AttrValue(random_subset(rng_, x->rank(), x->rank() - e.rank())));
      return;
    }
    const List* d = known_list(attr, b_);
    // Mostly at least one reduced dimension, up to the largest operand rank.
    const int64_t room = std::max<int64_t>(0, kMaxRank - e.rank());
    const int64_t k = d                  ? static_cast<int64_t>(d->size())
                      : rng_.chance(0.2) ? 0
                                         : rng_.uniform(std::min<int64_t>(1, room), room);
    const int64_t rank = e.rank() + k;
    set(attr, b_, AttrValue(random_subset(rng_, rank, k)));
    d = known_list(attr, b_);
    if (!d) return sample(n.args[0], std::nullopt);
    List dims;
    size_t next = 0;
    for (int64_t i = 0; i < rank; ++i) {
      if (std::find(d->begin(), d->end(), i) != d->end()) {
        dims.push_back(rng_.uniform(1, kMaxDim));
      } else if (next < e.dims().size()) {
        dims.push_back(e.dims()[next++]);
      } else {
        return sample(n.args[0], std::nullopt);
      }
    }
    sample(n.args[0], array(e.dtype(), dims));
  }

  void custom_call(const TNode& n, const ir::Type& e) {
    const AttrValue* target = known(find_attr(n, "custom_call_target"), b_);
    const std::string* name = target ? std::get_if<std::string>(target) : nullptr;
    if (!name || *name != "AwsNeuronRmsNorm") return sample_operands(n, e);
    const ir::Type x = e.rank() > 0 ? e : array(e.dtype(), random_dims(rng_, rng_.uniform(1, 3)));
    const AttrExpr* config = find_attr(n, "backend_config");
    set(config, b_, AttrValue(std::to_string(rng_.uniform(0, x.rank() - 1))));
    const AttrValue* axis_text = known(config, b_);
    int64_t axis = -1;
    if (const std::string* s = axis_text ? std::get_if<std::string>(axis_text) : nullptr) {
      axis = s->size() == 1 && (*s)[0] >= '0' && (*s)[0] <= '9' ? (*s)[0] - '0' : -1;
    } else if (const int64_t* i = axis_text ? std::get_if<int64_t>(axis_text) : nullptr) {
      axis = *i;
    }
    if (n.args.size() != 3 || axis < 0 || axis >= x.rank()) return sample_operands(n, std::nullopt);
    sample(n.args[0], x);
    sample(n.args[1], array(x.dtype(), {x.dim(axis)}));
    sample(n.args[2], array(x.dtype(), {}));
  }

  Binding& b_;
  Rng& rng_;
};

}  // namespace

uint64_t stream_seed(uint64_t seed, std::string_view name) {
  auto mix = [](uint64_t x) {  // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the name
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return mix(seed ^ mix(h));
}

int64_t Rng::uniform(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int64_t>(engine_() % span);
}

bool Rng::chance(double p) {
  return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0) < p;
}

ir::Type random_type(Rng& rng, ir::DType dtype) {
  return ir::Type::array(dtype, random_dims(rng, rng.uniform(0, kMaxRank)));
}

void sample_side(const TNode& side, const std::optional<ir::Type>& want, Binding& b, Rng& rng) {
  Sampler(b, rng).sample(side, want);
}

}  // namespace scalify::rules::check
