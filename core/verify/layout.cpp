#include "verify/layout.h"

#include <array>
#include <cctype>
#include <charconv>
#include <limits>

namespace scalify::verify {

namespace {
constexpr std::array<std::string_view, 5> kReduceOpNames = {"sum", "max", "min", "product", "mean"};

/// A cursor over the text of a layout, skipping spaces between tokens.
class LayoutCursor {
 public:
  explicit LayoutCursor(std::string_view text) : text_(text) {}
  bool done() {
    skip_spaces();
    return pos_ == text_.size();
  }
  /// Consumes `token` (after spaces) if it comes next.
  bool eat(std::string_view token) {
    skip_spaces();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  /// A word of letters, digits and '_' (an axis or reduction name); empty if none.
  std::string_view word() {
    skip_spaces();
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  /// A whole number without sign.
  std::optional<int64_t> number() {
    skip_spaces();
    int64_t value = 0;
    const char* first = text_.data() + pos_;
    const auto [end, ec] = std::from_chars(first, text_.data() + text_.size(), value);
    if (ec != std::errc() || end == first || *first == '-') return std::nullopt;
    pos_ += static_cast<size_t>(end - first);
    return value;
  }

 private:
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  std::string_view text_;
  size_t pos_ = 0;
};

/// One `shard(…)` or `partial(…)` part, stored into `layout`; false on bad text.
bool parse_part(LayoutCursor& in, const Mesh& mesh, Layout& layout, std::vector<bool>& used) {
  AxisLayout part;
  if (in.eat("shard(")) {
    const std::optional<int64_t> dim = in.number();
    if (!dim || *dim > std::numeric_limits<int32_t>::max()) return false;
    part = AxisLayout::shard(static_cast<int32_t>(*dim));
  } else if (in.eat("partial(")) {
    const std::optional<ReduceOp> op = parse_reduce_op(in.word());
    if (!op) return false;
    part = AxisLayout::partial(*op);
  } else {
    return false;
  }
  if (!in.eat(",")) return false;
  const std::optional<size_t> axis = mesh.find(in.word());
  if (!axis || used[*axis]) return false;
  if (part.is_shard() && in.eat(",")) {
    if (!in.eat("pad")) return false;
    const std::optional<int64_t> full = in.number();
    if (!full || *full < 1) return false;
    part.full = *full;
    if (in.eat(",")) {
      if (!in.eat("zeros")) return false;
      part.zero_pad = true;
    }
  }
  if (!in.eat(")")) return false;
  used[*axis] = true;
  layout.axes[*axis] = part;
  return true;
}

}  // namespace

std::string_view reduce_op_name(ReduceOp op) { return kReduceOpNames[static_cast<size_t>(op)]; }

std::optional<ReduceOp> parse_reduce_op(std::string_view name) {
  for (size_t i = 0; i < kReduceOpNames.size(); ++i) {
    if (kReduceOpNames[i] == name) return static_cast<ReduceOp>(i);
  }
  return std::nullopt;
}

Layout Layout::on(const Mesh& mesh, size_t axis, AxisLayout part) {
  Layout l = replicated(mesh.rank());
  l.axes[axis] = part;
  return l;
}

bool Layout::is_rep() const {
  for (const AxisLayout& a : axes) {
    if (!a.is_rep()) return false;
  }
  return true;
}

bool Layout::has_partial() const {
  for (const AxisLayout& a : axes) {
    if (a.is_partial()) return true;
  }
  return false;
}

std::pair<Layout, int64_t> Layout::means_as_sums(const Mesh& mesh) const {
  Layout sums = *this;
  int64_t n = 1;
  for (size_t a = 0; a < sums.axes.size() && a < mesh.rank(); ++a) {
    AxisLayout& axis = sums.axes[a];
    if (!axis.is_partial() || axis.op != ReduceOp::kMean) continue;
    axis = AxisLayout::partial(ReduceOp::kSum);
    n *= mesh.size(a);
  }
  return {std::move(sums), n};
}

int64_t Layout::split(int32_t d, const Mesh& mesh) const {
  int64_t n = 1;
  for (size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].is_shard() && axes[a].dim == d) n *= mesh.size(a);
  }
  return n;
}

std::optional<size_t> Layout::minor_shard(size_t axis, int32_t d) const {
  for (size_t b = axis + 1; b < axes.size(); ++b) {
    if (axes[b].is_shard() && axes[b].dim == d) return b;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Layout::reference_dims(const std::vector<int64_t>& local,
                                                           const Mesh& mesh) const {
  std::vector<int64_t> dims = local;
  for (size_t a = 0; a < axes.size(); ++a) {
    const AxisLayout& p = axes[a];
    if (!p.is_shard()) continue;
    if (p.dim < 0 || static_cast<size_t>(p.dim) >= dims.size()) return std::nullopt;
    dims[static_cast<size_t>(p.dim)] *= mesh.size(a);
  }
  for (const AxisLayout& p : axes) {
    if (p.is_shard() && p.full >= 0) {
      if (p.full > dims[static_cast<size_t>(p.dim)]) return std::nullopt;
      dims[static_cast<size_t>(p.dim)] = p.full;
    }
  }
  return dims;
}

std::string Layout::to_string(const Mesh& mesh) const {
  std::string out;
  for (size_t a = 0; a < axes.size(); ++a) {
    const AxisLayout& p = axes[a];
    if (p.is_rep()) continue;
    if (!out.empty()) out += '+';
    if (p.is_shard()) {
      out += "shard(" + std::to_string(p.dim) + "," + mesh.name(a);
      if (p.full >= 0) out += ",pad " + std::to_string(p.full);
      if (p.zero_pad) out += ",zeros";
      out += ')';
    } else {
      out += "partial(" + std::string(reduce_op_name(p.op)) + "," + mesh.name(a) + ")";
    }
  }
  return out.empty() ? "rep" : out;
}

std::optional<Layout> Layout::parse(std::string_view text, const Mesh& mesh) {
  Layout layout = replicated(mesh.rank());
  LayoutCursor in(text);
  if (in.eat("rep")) {
    if (!in.done()) return std::nullopt;
    return layout;
  }
  std::vector<bool> used(mesh.rank(), false);
  do {
    if (!parse_part(in, mesh, layout, used)) return std::nullopt;
  } while (in.eat("+"));
  if (!in.done()) return std::nullopt;
  return layout;
}

}  // namespace scalify::verify
