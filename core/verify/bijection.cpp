#include "verify/bijection.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "verify/spec.h"

namespace scalify::verify {

namespace {

using ir::Computation;
using ir::InstrId;
using ir::Instruction;

/// a × b, saturating at the int64 maximum (both non-negative).
int64_t times(int64_t a, int64_t b) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) {
    return std::numeric_limits<int64_t>::max();
  }
  return a * b;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The ENTRY parameters in number order, gaps left out.
std::vector<InstrId> entry_parameters(const Computation& c) {
  std::vector<InstrId> out;
  for (InstrId id : c.parameters()) {
    if (id >= 0) out.push_back(id);
  }
  return out;
}

std::string type_text(const ir::Type& t) { return t.to_string(false); }

std::string neff_name(const Instruction& instr) {
  if (const auto* attrs = instr.get<ir::FrontendAttributes>("frontend_attributes")) {
    for (const auto& [key, value] : *attrs) {
      if (key == "neff_input_names") return value;
    }
  }
  return "";
}

bool same_site(const Instruction& a, const Instruction& b) {
  return a.metadata.has_source_site() && a.metadata.source_file == b.metadata.source_file &&
         a.metadata.source_line == b.metadata.source_line;
}

/// "dim 1: 2048 × tp 2 = 4096" for every sharded dim of `layout`; "same shape f32[768]" if none.
std::string explain(const Layout& layout, const ir::Type& dist, const Mesh& mesh) {
  if (!dist.is_array()) return "same type " + type_text(dist);
  std::string out;
  for (int32_t d = 0; d < static_cast<int32_t>(dist.rank()); ++d) {
    std::string axes;
    int64_t full = -1;
    for (size_t a = 0; a < layout.axes.size(); ++a) {
      const AxisLayout& p = layout.axes[a];
      if (!p.is_shard() || p.dim != d) continue;
      axes += " × " + mesh.name(a) + " " + std::to_string(mesh.size(a));
      if (p.full >= 0) full = p.full;
    }
    if (axes.empty()) continue;
    const int64_t slots = times(dist.dim(d), layout.split(d, mesh));
    if (!out.empty()) out += ", ";
    out += "dim " + std::to_string(d) + ": " + std::to_string(dist.dim(d)) + axes + " = " +
           std::to_string(slots);
    if (full >= 0) out += " padded (reference " + std::to_string(full) + ")";
  }
  if (layout.has_partial()) out += (out.empty() ? "" : ", ") + std::string("partial");
  return out.empty() ? "same shape " + type_text(dist) : out;
}

/// Everything infer_bijection works with.
class Inference {
 public:
  Inference(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh, const Spec* spec)
      : R_(ref.entry()),
        D_(dist.entry()),
        mesh_(mesh),
        spec_(spec),
        rp_(entry_parameters(R_)),
        dp_(entry_parameters(D_)),
        r_index_(positions(R_, rp_)),
        d_index_(positions(D_, dp_)),
        spec_of_(dp_.size(), nullptr),
        spec_ref_(dp_.size(), -1),
        ref_taken_(rp_.size(), false),
        annotated_(dp_.size()),
        set_aside_(dp_.size()) {}

  BijectionCandidates run() {
    out_.parameters.resize(dp_.size());
    for (size_t d = 0; d < dp_.size(); ++d) {
      out_.parameters[d].dist = dp_[d];
      out_.parameters[d].number = D_[dp_[d]].parameter_number;
    }
    if (spec_) read_spec_entries();
    read_annotations();
    align();
    for (size_t d = 0; d < dp_.size(); ++d) fill(d);
    add_reshaped();
    report_unmatched();
    return std::move(out_);
  }

 private:
  const Instruction& dinstr(size_t d) const { return D_[dp_[d]]; }
  const Instruction& rinstr(size_t r) const { return R_[rp_[r]]; }

  /// The position of `id` in `params` (an ENTRY parameter list of `comp`).
  static std::vector<size_t> positions(const Computation& comp,
                                       const std::vector<InstrId>& params) {
    std::vector<size_t> out(comp.size(), 0);
    for (size_t i = 0; i < params.size(); ++i) out[static_cast<size_t>(params[i])] = i;
    return out;
  }
  size_t dindex(InstrId id) const { return d_index_[static_cast<size_t>(id)]; }
  size_t rindex(InstrId id) const { return r_index_[static_cast<size_t>(id)]; }

  void read_spec_entries() {
    for (const SpecParameter& p : spec_->parameters) {
      const std::optional<InstrId> d = p.dist.resolve(D_);
      if (!d) {
        out_.spec_errors.push_back(spec_->error_at(
            p.dist.pos, "the distributed program has no parameter " + p.dist.to_string()));
        continue;
      }
      const size_t di = dindex(*d);
      if (spec_of_[di]) {
        out_.spec_errors.push_back(
            spec_->error_at(p.dist.pos, "'" + D_[*d].name + "' is already described at " +
                                            std::to_string(spec_of_[di]->pos.line) + ":" +
                                            std::to_string(spec_of_[di]->pos.col)));
        continue;
      }
      if (p.layout && spec_->layout_mesh != mesh_) {
        out_.spec_errors.push_back(spec_->error_at(
            p.layout_pos, "the layout was read against the mesh " + spec_->layout_mesh.to_string() +
                              ", not " + mesh_.to_string()));
        continue;
      }
      if (p.ref) {
        const std::optional<InstrId> r = p.ref->resolve(R_);
        if (!r) {
          out_.spec_errors.push_back(spec_->error_at(
              p.ref->pos, "the reference program has no parameter " + p.ref->to_string()));
          continue;
        }
        spec_ref_[di] = static_cast<int>(rindex(*r));
        ref_taken_[static_cast<size_t>(spec_ref_[di])] = true;
      }
      spec_of_[di] = &p;
    }
  }

  void read_annotations() {
    for (size_t d = 0; d < dp_.size(); ++d) {
      const ir::Sharding* sharding = dinstr(d).sharding();
      if (!sharding || (spec_of_[d] && spec_of_[d]->layout)) continue;
      const int64_t rank = dinstr(d).type.is_array() ? dinstr(d).type.rank() : 0;
      std::string why_not;
      bool contradicts = false;
      annotated_[d] = layout_from_sharding(*sharding, rank, mesh_, &why_not, &contradicts);
      if (!annotated_[d]) {
        // A tiling of these devices says which holds which block: a layout guessed from the
        // shapes, which puts block c at mesh position c, would contradict the program's words.
        if (contradicts) {
          set_aside_[d] = "sharding=" + sharding->to_string() + ": " + why_not;
          // The order it lists, if that is all that differs, is one the user can give.
          if (const auto listed = layout_in_listed_order(*sharding, rank, mesh_)) {
            set_aside_[d] += "; it reads on the mesh \"" + listed->first.to_string() + "\"";
          }
        }
        out_.parameters[d].notes.push_back(
            "sharding=" + sharding->to_string() + " set aside: " + why_not +
            (contradicts ? " (no layout is guessed from the shapes against it)" : ""));
      }
    }
  }

  /// The layouts relating dist parameter d to ref parameter r by the spec, the annotation or the
  /// shapes (in that order of authority), with their source.
  std::vector<Layout> layouts_for(size_t d, size_t r, BijectionCandidate::Source& source) const {
    const ir::Type& dt = dinstr(d).type;
    const ir::Type& rt = rinstr(r).type;
    if (spec_of_[d] && spec_of_[d]->layout) {
      source = BijectionCandidate::Source::kSpec;
      if (!layout_misfit(*spec_of_[d]->layout, dt, rt, mesh_).empty()) return {};
      return {*spec_of_[d]->layout};
    }
    if (annotated_[d]) {
      source = BijectionCandidate::Source::kSharding;
      Layout layout = *annotated_[d];
      if (!pad_to(layout, dt, rt, mesh_)) return {};
      return {layout};
    }
    source = BijectionCandidate::Source::kShape;
    if (!set_aside_[d].empty()) return {};
    if (!dt.is_array() || !rt.is_array()) {
      if (dt.compatible(rt)) return {Layout::replicated(mesh_.rank())};
      return {};
    }
    if (dt.dtype() != rt.dtype() || dt.rank() != rt.rank()) return {};
    return shape_fit(dt, rt).layouts;
  }

  /// What the shapes alone allow between two arrays of one element type and rank: computed once
  /// per pair of dims (a large model repeats a few shapes many times).
  struct ShapeFit {
    std::vector<Layout> layouts;
    std::vector<std::pair<Layout, std::vector<int64_t>>> permuted;
  };
  const ShapeFit& shape_fit(const ir::Type& dt, const ir::Type& rt) const {
    // Every layout keeps dist <= ref elements <= dist × devices: a cheap test first.
    const int64_t de = dt.element_count(), re = rt.element_count();
    if (de > re || re > times(de, mesh_.device_count())) return no_fit_;
    std::string key;
    for (int64_t n : dt.dims()) key += std::to_string(n) + ',';
    key += '|';
    for (int64_t n : rt.dims()) key += std::to_string(n) + ',';
    const auto found = shape_cache_.find(key);
    if (found != shape_cache_.end()) return found->second;
    ShapeFit fit;
    fit.layouts = shape_layouts(dt.dims(), rt.dims(), mesh_);
    if (dt.rank() >= 2 && dt.rank() <= 5) {
      std::vector<int64_t> perm(static_cast<size_t>(dt.rank()));
      std::iota(perm.begin(), perm.end(), 0);
      while (std::next_permutation(perm.begin(), perm.end()) && fit.permuted.size() < 4) {
        std::vector<int64_t> permuted;
        for (int64_t p : perm) permuted.push_back(rt.dim(p));
        if (permuted == rt.dims()) continue;  // not visible in the shapes
        for (Layout& l : shape_layouts(dt.dims(), permuted, mesh_)) {
          if (fit.permuted.size() < 4) fit.permuted.emplace_back(std::move(l), perm);
        }
      }
    }
    return shape_cache_.emplace(std::move(key), std::move(fit)).first->second;
  }

  /// Layouts against permutations of the reference dims that the shapes make visible (at most
  /// four, ranks 2 to 5).
  std::vector<std::pair<Layout, std::vector<int64_t>>> permuted_for(size_t d, size_t r) const {
    if ((spec_of_[d] && spec_of_[d]->layout) || annotated_[d] || !set_aside_[d].empty()) {
      return {};
    }
    const ir::Type& dt = dinstr(d).type;
    const ir::Type& rt = rinstr(r).type;
    if (!dt.is_array() || !rt.is_array() || dt.dtype() != rt.dtype() || dt.rank() != rt.rank()) {
      return {};
    }
    return shape_fit(dt, rt).permuted;
  }

  std::optional<int> score(size_t r, size_t d) const {
    if (ref_taken_[r]) return std::nullopt;
    BijectionCandidate::Source source;
    const std::vector<Layout> layouts = layouts_for(d, r, source);
    int s = 100;
    if (layouts.empty()) {
      if (permuted_for(d, r).empty()) return std::nullopt;
      s += 2;
    } else if (layouts[0].is_rep()) {
      s += 20;
    } else {
      bool padded = false;
      for (const AxisLayout& p : layouts[0].axes) padded = padded || p.full >= 0;
      s += padded ? 10 : 15;
    }
    const Instruction& a = rinstr(r);
    const Instruction& b = dinstr(d);
    if (a.name == b.name) s += 30;
    if (same_site(a, b)) s += 5;
    if (!neff_name(a).empty() && neff_name(a) == neff_name(b)) s += 3;
    if (a.parameter_number == b.parameter_number) s += 1;
    return s;
  }

  void align() {
    aligned_.assign(dp_.size(), -1);
    std::vector<size_t> free_r, free_d;
    for (size_t r = 0; r < rp_.size(); ++r) {
      if (!ref_taken_[r]) free_r.push_back(r);
    }
    for (size_t d = 0; d < dp_.size(); ++d) {
      if (!spec_of_[d] || (!spec_of_[d]->ref && !spec_of_[d]->no_ref)) free_d.push_back(d);
    }
    const std::vector<int> match =
        align_parameters(free_r.size(), free_d.size(),
                         [&](size_t r, size_t d) { return score(free_r[r], free_d[d]); });
    for (size_t i = 0; i < free_d.size(); ++i) {
      if (match[i] >= 0)
        aligned_[free_d[i]] = static_cast<int>(free_r[static_cast<size_t>(match[i])]);
    }
  }

  /// How d and r were paired, for the candidates' `why`.
  std::string pairing(size_t d, size_t r) const {
    const bool same_number = rinstr(r).parameter_number == dinstr(d).parameter_number;
    const bool same_name = rinstr(r).name == dinstr(d).name;
    if (same_number && same_name) return "same position and name";
    if (same_number) return "same position";
    if (same_name) return "same name";
    return "matched in order by shape (reference parameter " +
           std::to_string(rinstr(r).parameter_number) + ")";
  }

  void add(size_t d, size_t r, Layout layout, std::vector<int64_t> perm,
           BijectionCandidate::Source source, std::string why, std::string contract = "") {
    auto& list = out_.parameters[d].candidates;
    for (const BijectionCandidate& c : list) {
      if (c.ref == rp_[r] && c.layout == layout && c.permutation == perm) return;
    }
    list.push_back({rp_[r],
                    std::move(layout),
                    std::move(perm),
                    source,
                    std::move(why),
                    std::move(contract),
                    {}});
  }

  /// The candidates of pair (d, r): the layouts, then (if `extras`) partial sums and
  /// permutations.
  void add_pair(size_t d, size_t r, const std::string& how, bool extras) {
    const ir::Type& dt = dinstr(d).type;
    BijectionCandidate::Source source;
    const std::vector<Layout> layouts = layouts_for(d, r, source);
    std::string prefix = how;
    if (source == BijectionCandidate::Source::kSpec) {
      prefix = "the spec (" + spec_->file + ":" + std::to_string(spec_of_[d]->pos.line) + ":" +
               std::to_string(spec_of_[d]->pos.col) + ") says so";
    } else if (source == BijectionCandidate::Source::kSharding) {
      prefix += "; sharding=" + dinstr(d).sharding()->to_string();
    }
    bool rep = false;
    for (const Layout& l : layouts) {
      rep = rep || l.is_rep();
      add(d, r, l, {}, source, prefix + "; " + explain(l, dt, mesh_));
    }
    if (!extras || source != BijectionCandidate::Source::kShape) return;
    if (rep && dt.is_array() && ir::is_float(dt.dtype())) {
      for (size_t a = 0; a < mesh_.rank(); ++a) {
        if (mesh_.size(a) == 1) continue;
        const std::string& name = dinstr(d).name;
        add(d, r, Layout::on(mesh_, a, AxisLayout::partial(ReduceOp::kSum)), {},
            BijectionCandidate::Source::kContract,
            how + "; same shape, so it may be a partial sum over " + mesh_.name(a) +
                ": only one rank may hold it",
            "'" + name + "' must be held by one rank of " + mesh_.name(a) +
                " only (the others hold zeros)");
        add(d, r, Layout::on(mesh_, a, AxisLayout::partial(ReduceOp::kMean)), {},
            BijectionCandidate::Source::kContract,
            how + "; same shape, so it may be a partial mean over " + mesh_.name(a) +
                ": each rank may hold its own part (an accumulator of local means)",
            "the values of '" + name + "' on the ranks of " + mesh_.name(a) +
                " must average to the reference's (each rank accumulates its own means)");
      }
    }
    for (auto& [layout, perm] : permuted_for(d, r)) {
      std::string text;
      for (int64_t p : perm) {
        if (!text.empty()) text += ',';
        text += std::to_string(p);
      }
      add(d, r, layout, perm, BijectionCandidate::Source::kPermuted,
          how + "; dims permuted {" + text + "} against " + type_text(rinstr(r).type) + "; " +
              explain(layout, dt, mesh_));
    }
  }

  void fill(size_t d) {
    ParameterCandidates& pc = out_.parameters[d];
    const SpecParameter* sp = spec_of_[d];
    if (sp && sp->no_ref) {
      pc.candidates.push_back({std::nullopt,
                               Layout::replicated(mesh_.rank()),
                               {},
                               BijectionCandidate::Source::kSpec,
                               "the spec says it has no reference counterpart",
                               "",
                               {}});
      out_.unmatched_dist.push_back(
          {dp_[d], pc.number, dinstr(d).name,
           "the spec (" + spec_->file + ":" + std::to_string(sp->pos.line) + ":" +
               std::to_string(sp->pos.col) + ") says it has no reference counterpart"});
      return;
    }
    const int primary = sp && sp->ref ? spec_ref_[d] : aligned_[d];
    if (primary >= 0) {
      const size_t r = static_cast<size_t>(primary);
      add_pair(d, r, sp && sp->ref ? "the spec's reference parameter" : pairing(d, r), true);
    }
    if (sp) {
      if (pc.candidates.empty() && primary >= 0 && sp->layout) {
        const Instruction& r = rinstr(static_cast<size_t>(primary));
        out_.spec_errors.push_back(spec_->error_at(
            sp->layout_pos, "layout " + sp->layout->to_string(mesh_) + " cannot relate '" +
                                dinstr(d).name + "' to '" + r.name +
                                "': " + layout_misfit(*sp->layout, dinstr(d).type, r.type, mesh_)));
      } else if (pc.candidates.empty()) {
        const std::string what =
            primary < 0 ? "no reference parameter is left for it"
                        : "no layout relates it to '" + rinstr(static_cast<size_t>(primary)).name +
                              "' (" + type_text(rinstr(static_cast<size_t>(primary)).type) + ")";
        out_.spec_errors.push_back(spec_->error_at(
            sp->pos, "'" + dinstr(d).name + "' (" + type_text(dinstr(d).type) + "): " + what));
      }
    } else {
      // Other reference parameters with the same name, position or neff_input_names.
      for (size_t r = 0; r < rp_.size(); ++r) {
        if (static_cast<int>(r) == primary || ref_taken_[r]) continue;
        const Instruction& a = rinstr(r);
        const Instruction& b = dinstr(d);
        std::string how;
        if (a.name == b.name) {
          how = "same name";
        } else if (a.parameter_number == b.parameter_number) {
          how = "same position";
        } else if (!neff_name(a).empty() && neff_name(a) == neff_name(b)) {
          how = "same neff_input_names";
        } else {
          continue;
        }
        add_pair(d, r, how + " (an alternative to the alignment)", false);
      }
    }
  }

  /// An input the programs flatten differently (images [32,784] in one, [16,1,28,28] in the
  /// other): a dist parameter left without candidates relates to a free ref parameter of its
  /// element type and another rank as rep of the ref reshaped to the dist dims (as many
  /// elements), or by shard(k) of the ref reshaped to the dist dims with dim k
  /// multiplied by an axis size, when that block is the major part of one ref dim (so that a
  /// shard of the reshape is a contiguous block of ref rows, as a data loader splits a batch).
  void add_reshaped() {
    if (spec_) return;  // the spec's word is final
    std::vector<bool> used(rp_.size(), false);
    for (size_t d = 0; d < dp_.size(); ++d) {
      for (const BijectionCandidate& c : out_.parameters[d].candidates) {
        if (c.ref) used[rindex(*c.ref)] = true;
      }
    }
    for (size_t d = 0; d < dp_.size(); ++d) {
      if (!out_.parameters[d].candidates.empty()) continue;
      const ir::Type& dt = dinstr(d).type;
      if (!dt.is_array() || dt.rank() == 0) continue;
      for (size_t r = 0; r < rp_.size(); ++r) {
        const ir::Type& rt = rinstr(r).type;
        if (used[r] || !rt.is_array() || rt.dtype() != dt.dtype() || rt.rank() == dt.rank()) {
          continue;
        }
        if (rt.element_count() == dt.element_count()) {
          // The same elements in another shape (the one program flattens its images before
          // the step, the other inside it): every rank holds the reshaped whole.
          out_.parameters[d].candidates.push_back(
              {rp_[r],
               Layout::replicated(mesh_.rank()),
               {},
               BijectionCandidate::Source::kShape,
               "a reference parameter no other takes, with its elements, read as " + type_text(dt) +
                   " (a reshape of " + type_text(rt) + ")",
               "",
               dt.dims()});
        }
        // The prefix products of the ref dims: where a ref dim starts in row-major order.
        std::vector<int64_t> starts{1};
        for (int64_t n : rt.dims()) starts.push_back(starts.back() * n);
        for (size_t a = 0; a < mesh_.rank(); ++a) {
          int64_t before = 1;
          for (int32_t k = 0; k < static_cast<int32_t>(dt.rank()); before *= dt.dim(k), ++k) {
            std::vector<int64_t> dims = dt.dims();
            dims[static_cast<size_t>(k)] *= mesh_.size(a);
            int64_t total = 1;
            for (int64_t n : dims) total *= n;
            const auto at = std::find(starts.begin(), starts.end() - 1, before);
            if (total != rt.element_count() || at == starts.end() - 1) continue;
            const int64_t ref_dim = rt.dim(at - starts.begin());
            if (ref_dim % dims[static_cast<size_t>(k)] != 0) continue;
            BijectionCandidate c{rp_[r],
                                 Layout::on(mesh_, a, AxisLayout::shard(k)),
                                 {},
                                 BijectionCandidate::Source::kShape,
                                 "a reference parameter no other takes, of element type " +
                                     std::string(ir::dtype_name(dt.dtype())) + " with " +
                                     std::to_string(mesh_.size(a)) + "x its elements, read as " +
                                     type_text(ir::Type::array(dt.dtype(), dims)) +
                                     " (a reshape of " + type_text(rt) + ")",
                                 "",
                                 dims};
            out_.parameters[d].candidates.push_back(std::move(c));
          }
        }
      }
      // A reference parameter that this one alone can take is taken: no later parameter is
      // offered it as one "no other takes".
      const std::vector<BijectionCandidate>& found = out_.parameters[d].candidates;
      if (!found.empty() && std::all_of(found.begin(), found.end(), [&](const auto& c) {
            return c.ref == found.front().ref;
          })) {
        used[rindex(*found.front().ref)] = true;
      }
    }
  }

  /// A reshape hint: `other` has a whole multiple (up to the device count) of the elements of
  /// `t` in another rank; "" otherwise.
  std::string reshape_hint(const ir::Type& t, const Instruction& other) const {
    const ir::Type& u = other.type;
    if (!t.is_array() || !u.is_array() || t.rank() == 0 || u.rank() == 0 ||
        u.dtype() != t.dtype() || u.rank() == t.rank()) {
      return "";
    }
    const int64_t a = t.element_count(), b = u.element_count();
    const int64_t big = std::max(a, b), small = std::min(a, b);
    if (small <= 0 || big % small != 0 || big / small > mesh_.device_count()) return "";
    return "; '" + other.name + "' " + type_text(u) + " has " +
           (a == b ? std::string("as many")
                   : std::to_string(big / small) + "x " + (b > a ? "more" : "fewer")) +
           " elements in another rank (a reshape is not a layout)";
  }

  /// The dist parameter the spec pairs with ref parameter r, or -1.
  int reserved_by(size_t r) const {
    for (size_t d = 0; d < dp_.size(); ++d) {
      if (spec_ref_[d] == static_cast<int>(r)) return static_cast<int>(d);
    }
    return -1;
  }

  void report_unmatched() {
    std::vector<bool> used(rp_.size(), false);
    std::vector<int> taken_by(rp_.size(), -1);
    for (size_t d = 0; d < dp_.size(); ++d) {
      for (const BijectionCandidate& c : out_.parameters[d].candidates) {
        if (!c.ref) continue;
        const size_t r = rindex(*c.ref);
        used[r] = true;
        if (taken_by[r] < 0) taken_by[r] = static_cast<int>(d);
      }
    }
    std::vector<size_t> lonely_d;
    for (size_t d = 0; d < dp_.size(); ++d) {
      if (out_.parameters[d].candidates.empty()) lonely_d.push_back(d);
    }
    const std::string over = mesh_.rank() == 0 ? "one device" : mesh_.to_string();
    for (size_t d : lonely_d) {
      const ir::Type& t = dinstr(d).type;
      std::string why =
          "no reference parameter relates to " + type_text(t) + " by a layout over " + over;
      if (!set_aside_[d].empty()) {
        out_.unmatched_dist.push_back({dp_[d], out_.parameters[d].number, dinstr(d).name,
                                       "its " + set_aside_[d] + " (the mesh " + over +
                                           "; the shapes are not asked against its sharding)"});
        continue;
      }
      for (size_t r = 0; r < rp_.size(); ++r) {
        BijectionCandidate::Source source;
        const int holder = taken_by[r] >= 0 ? taken_by[r] : reserved_by(r);
        if (holder >= 0 && !layouts_for(d, r, source).empty()) {
          why = "'" + rinstr(r).name + "' (" + type_text(rinstr(r).type) + ") would fit, but " +
                (taken_by[r] >= 0 ? "stands for '" : "the spec gives it to '") +
                dinstr(static_cast<size_t>(holder)).name + "'";
          break;
        }
        if (!used[r] && why.find("reshape") == std::string::npos) {
          why += reshape_hint(t, rinstr(r));
        }
      }
      out_.unmatched_dist.push_back({dp_[d], out_.parameters[d].number, dinstr(d).name, why});
    }
    for (size_t r = 0; r < rp_.size(); ++r) {
      if (used[r]) continue;
      std::string why = "no distributed parameter stands for " + type_text(rinstr(r).type);
      for (size_t d : lonely_d) {
        const std::string hint = reshape_hint(rinstr(r).type, dinstr(d));
        if (!hint.empty()) {
          why += hint;
          break;
        }
      }
      out_.unmatched_ref.push_back({rp_[r], rinstr(r).parameter_number, rinstr(r).name, why});
    }
  }

  const Computation& R_;
  const Computation& D_;
  const Mesh& mesh_;
  const Spec* spec_;
  std::vector<InstrId> rp_, dp_;
  std::vector<size_t> r_index_, d_index_;      ///< instruction id → position in rp_ / dp_
  std::vector<const SpecParameter*> spec_of_;  ///< per dist parameter
  std::vector<int> spec_ref_;                  ///< per dist parameter: the spec's ref index
  std::vector<bool> ref_taken_;                ///< ref parameters the spec assigns
  std::vector<std::optional<Layout>> annotated_;
  /// Why a tiled annotation was set aside (empty: it was not): the shapes are then not asked,
  /// see read_annotations.
  std::vector<std::string> set_aside_;
  std::vector<int> aligned_;
  mutable std::unordered_map<std::string, ShapeFit> shape_cache_;
  const ShapeFit no_fit_;
  BijectionCandidates out_;
};

}  // namespace

const ParameterCandidates* BijectionCandidates::find(int64_t number) const {
  for (const ParameterCandidates& p : parameters) {
    if (p.number == number) return &p;
  }
  return nullptr;
}

BijectionCandidates infer_bijection(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                                    const Spec* spec) {
  return Inference(ref, dist, mesh, spec).run();
}

std::vector<Layout> shape_layouts(const std::vector<int64_t>& dist, const std::vector<int64_t>& ref,
                                  const Mesh& mesh) {
  if (dist.size() != ref.size()) return {};
  if (dist == ref) return {Layout::replicated(mesh.rank())};
  std::vector<size_t> diff;
  for (size_t k = 0; k < dist.size(); ++k) {
    if (dist[k] == ref[k]) continue;
    if (dist[k] <= 0 || dist[k] > ref[k]) return {};
    diff.push_back(k);
  }
  std::vector<size_t> axes;
  for (size_t a = 0; a < mesh.rank(); ++a) {
    if (mesh.size(a) > 1) axes.push_back(a);
  }
  if (axes.empty() || axes.size() > 6 || diff.size() > 8) return {};
  // Every assignment of the axes to "rep" (0) or one of the differing dims (1 + index).
  struct Option {
    Layout layout;
    int quality;               ///< 0 exact, 1 minimal padding, 2 more padding
    int used;                  ///< axes used
    std::vector<size_t> dims;  ///< per axis, the dim it shards (rep: after every dim)
  };
  std::vector<Option> options;
  std::vector<size_t> choice(axes.size(), 0);
  while (true) {
    std::vector<int64_t> split(diff.size(), 1);
    int used = 0;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (choice[i] == 0) continue;
      split[choice[i] - 1] *= mesh.size(axes[i]);
      ++used;
    }
    bool ok = true;
    int quality = 0;
    std::vector<bool> padded(diff.size(), false);
    for (size_t j = 0; j < diff.size() && ok; ++j) {
      const int64_t local = dist[diff[j]], full = ref[diff[j]];
      const int64_t slots = times(local, split[j]);
      if (split[j] == 1 || slots < full) {
        ok = false;
      } else if (slots > full) {
        padded[j] = true;
        quality = std::max(quality, local == ceil_div(full, split[j]) ? 1 : 2);
      }
    }
    if (ok) {
      Layout layout = Layout::replicated(mesh.rank());
      std::vector<bool> pad_set(diff.size(), false);
      for (size_t i = 0; i < axes.size(); ++i) {
        if (choice[i] == 0) continue;
        const size_t j = choice[i] - 1;
        AxisLayout part = AxisLayout::shard(static_cast<int32_t>(diff[j]));
        if (padded[j] && !pad_set[j]) {
          part.full = ref[diff[j]];
          pad_set[j] = true;
        }
        layout.axes[axes[i]] = part;
      }
      std::vector<size_t> dims;
      for (size_t c : choice) dims.push_back(c == 0 ? diff.size() : c - 1);
      options.push_back({std::move(layout), quality, used, std::move(dims)});
    }
    // Next assignment (odometer).
    size_t i = choice.size();
    while (i > 0 && ++choice[i - 1] > diff.size()) choice[--i] = 0;
    if (i == 0) break;
  }
  std::stable_sort(options.begin(), options.end(), [](const Option& a, const Option& b) {
    if (a.quality != b.quality) return a.quality < b.quality;
    if (a.used != b.used) return a.used < b.used;
    return a.dims < b.dims;  // earlier mesh axes on earlier dims
  });
  std::vector<Layout> out;
  for (const Option& o : options) {
    if (o.quality > 0 && options[0].quality == 0) break;  // padding only when nothing is exact
    out.push_back(o.layout);
  }
  return out;
}

std::optional<Layout> layout_from_sharding(const ir::Sharding& sharding, int64_t rank,
                                           const Mesh& mesh, std::string* why_not,
                                           bool* contradicts) {
  if (contradicts) *contradicts = false;
  const auto fail = [&](std::string why) -> std::optional<Layout> {
    if (why_not) *why_not = std::move(why);
    return std::nullopt;
  };
  if (sharding.kind == ir::Sharding::Kind::kReplicated) return Layout::replicated(mesh.rank());
  if (sharding.kind != ir::Sharding::Kind::kTiled) return fail("not tiled or replicated");
  for (const std::string& kind : sharding.last_tile_dims) {
    if (kind != "replicated") return fail("a " + kind + " subgroup");
  }
  const size_t trailing = sharding.last_tile_dim_replicate ? 1 : sharding.last_tile_dims.size();
  const std::vector<int64_t>& tiles = sharding.tile_dims;
  if (rank < 0 || tiles.size() != static_cast<size_t>(rank) + trailing) {
    return fail(std::to_string(tiles.size()) + " tile dims for a value of rank " +
                std::to_string(rank));
  }
  const std::vector<int64_t> devices = sharding.device_list();
  const int64_t n = mesh.device_count();
  if (static_cast<int64_t>(devices.size()) != n) {
    return fail(std::to_string(devices.size()) + " devices, but the mesh " + mesh.to_string() +
                " has " + std::to_string(n));
  }
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int64_t dev : devices) {
    if (dev < 0 || dev >= n || seen[static_cast<size_t>(dev)]) {
      return fail("the device list is not a permutation of the mesh's devices");
    }
    seen[static_cast<size_t>(dev)] = true;
  }
  // From here on the annotation places blocks on this mesh's devices.
  if (contradicts) *contradicts = n > 1;
  std::vector<int64_t> stride(tiles.size(), 1);
  for (size_t k = tiles.size(); k-- > 1;) stride[k - 1] = stride[k] * tiles[k];
  Layout layout = Layout::replicated(mesh.rank());
  for (size_t k = 0; k < static_cast<size_t>(rank); ++k) {
    if (tiles[k] == 1) continue;
    int64_t product = 1;
    for (size_t a = 0; a < mesh.rank(); ++a) {
      bool varies = false;
      for (int64_t j = 1; j < tiles[k] && !varies; ++j) {
        varies = mesh.coordinate(devices[static_cast<size_t>(j * stride[k])], a) !=
                 mesh.coordinate(devices[0], a);
      }
      if (!varies) continue;
      if (!layout.axes[a].is_rep()) return fail("two tile dims vary mesh axis " + mesh.name(a));
      layout.axes[a] = AxisLayout::shard(static_cast<int32_t>(k));
      product *= mesh.size(a);
    }
    if (product != tiles[k]) {
      return fail("tile dim " + std::to_string(k) + " (" + std::to_string(tiles[k]) +
                  " tiles) is not a product of mesh axes");
    }
  }
  // Every tile's device must sit at the mesh coordinates its tile index says.
  for (size_t linear = 0; linear < devices.size(); ++linear) {
    size_t rest = linear;
    for (size_t k = 0; k < static_cast<size_t>(rank); ++k) {
      const int64_t index = static_cast<int64_t>(rest / static_cast<size_t>(stride[k]));
      rest %= static_cast<size_t>(stride[k]);
      int64_t combined = 0;
      for (size_t a = 0; a < mesh.rank(); ++a) {
        const AxisLayout& p = layout.axes[a];
        if (p.is_shard() && p.dim == static_cast<int32_t>(k)) {
          combined = combined * mesh.size(a) + mesh.coordinate(devices[linear], a);
        }
      }
      if (combined != index) return fail("its device order is not the mesh's");
    }
  }
  if (contradicts) *contradicts = false;
  return layout;
}

std::optional<std::pair<Mesh, Layout>> layout_in_listed_order(const ir::Sharding& sharding,
                                                              int64_t rank, const Mesh& mesh) {
  std::optional<Mesh> listed = mesh.with_device_order(sharding.device_list());
  if (!listed) return std::nullopt;
  std::optional<Layout> layout = layout_from_sharding(sharding, rank, *listed);
  if (!layout) return std::nullopt;
  return std::pair{std::move(*listed), std::move(*layout)};
}

bool pad_to(Layout& layout, const ir::Type& dist, const ir::Type& ref, const Mesh& mesh) {
  if (!dist.is_array() || !ref.is_array()) return layout.is_rep() && dist.compatible(ref);
  if (dist.dtype() != ref.dtype() || dist.rank() != ref.rank()) return false;
  for (int32_t d = 0; d < static_cast<int32_t>(dist.rank()); ++d) {
    const int64_t split = layout.split(d, mesh), local = dist.dim(d), full = ref.dim(d);
    if (times(local, split) == full) continue;
    if (split == 1 || local != ceil_div(full, split)) return false;
    for (AxisLayout& p : layout.axes) {
      if (p.is_shard() && p.dim == d) {
        p.full = full;
        break;
      }
    }
  }
  return true;
}

std::vector<int> align_parameters(
    size_t ref_count, size_t dist_count,
    const std::function<std::optional<int>(size_t ref, size_t dist)>& score) {
  std::vector<int> result(dist_count, -1);
  if (ref_count == dist_count) {
    bool all = true;
    for (size_t i = 0; i < ref_count && all; ++i) all = score(i, i).has_value();
    if (all) {
      std::iota(result.begin(), result.end(), 0);
      return result;
    }
  }
  const size_t n = ref_count, m = dist_count;
  if ((n + 1) * (m + 1) > (size_t{1} << 22)) {
    for (size_t i = 0; i < std::min(n, m); ++i) {
      if (score(i, i)) result[i] = static_cast<int>(i);
    }
    return result;
  }
  // best[i][j]: the best total aligning the first i ref and the first j dist entries.
  const size_t w = m + 1;
  std::vector<int32_t> best((n + 1) * w, 0);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      int32_t b = std::max(best[(i - 1) * w + j], best[i * w + j - 1]);
      if (const std::optional<int> s = score(i - 1, j - 1)) {
        b = std::max(b, best[(i - 1) * w + j - 1] + *s);
      }
      best[i * w + j] = b;
    }
  }
  for (size_t i = n, j = m; i > 0 && j > 0;) {
    const std::optional<int> s = score(i - 1, j - 1);
    if (s && best[i * w + j] == best[(i - 1) * w + j - 1] + *s) {
      result[j - 1] = static_cast<int>(i - 1);
      --i;
      --j;
    } else if (best[i * w + j] == best[i * w + j - 1]) {
      --j;
    } else {
      --i;
    }
  }
  return result;
}

}  // namespace scalify::verify
