#include "verify/derivation.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_set>

namespace scalify::verify {

std::string value_name(const DerivedFact& fact) {
  return fact.element < 0 ? fact.dist : fact.dist + "#" + std::to_string(fact.element);
}

std::optional<ValueName> split_value_name(std::string_view name) {
  const size_t hash = name.rfind('#');
  if (hash == std::string_view::npos) return ValueName{std::string(name), -1};
  int64_t element = -1;
  const char* first = name.data() + hash + 1;
  const char* last = name.data() + name.size();
  const auto [end, ec] = std::from_chars(first, last, element);
  if (ec != std::errc() || end != last || first == last || element < 0) return std::nullopt;
  return ValueName{std::string(name.substr(0, hash)), element};
}

namespace {

std::string premises_text(const DerivedFact& fact) {
  if (fact.premises.empty()) return {};
  std::string out = " from";
  for (size_t p : fact.premises) out += " [" + std::to_string(p) + "]";
  return out;
}

}  // namespace

std::string fact_line(const DerivedFact& fact, const Mesh& mesh) {
  return "[" + std::to_string(fact.index) + "] " + value_name(fact) + " ~ " +
         fact.layout.to_string(mesh) + " of e-class " + std::to_string(fact.eclass) + "   by " +
         fact.rule + premises_text(fact);
}

std::string fact_summary(const DerivedFact& fact, const Mesh& mesh) {
  const std::string of = fact.ref.empty() ? "e-class " + std::to_string(fact.eclass) : fact.ref;
  std::string out = value_name(fact) + " ~ " + fact.layout.to_string(mesh) + " of " + of + " by " +
                    fact.rule + premises_text(fact);
  if (!fact.rewrites.empty()) {
    out += " (rewrites:";
    for (size_t i = 0; i < fact.rewrites.size(); ++i) out += (i ? ", " : " ") + fact.rewrites[i];
    out += ")";
  }
  return out;
}

std::vector<size_t> proof_closure(const std::vector<DerivedFact>& derivation, size_t index,
                                  size_t expand_from) {
  std::vector<size_t> order;
  if (index >= derivation.size()) return order;
  std::vector<size_t> stack{index};
  std::unordered_set<size_t> seen;
  while (!stack.empty()) {
    const size_t f = stack.back();
    stack.pop_back();
    if (f >= derivation.size() || !seen.insert(f).second) continue;
    order.push_back(f);
    if (f < expand_from) continue;
    for (size_t p : derivation[f].premises) stack.push_back(p);
  }
  std::sort(order.begin(), order.end());
  return order;
}

std::vector<std::string> proof_lines(const std::vector<DerivedFact>& derivation, size_t index,
                                     const Mesh& mesh, size_t expand_from) {
  std::vector<std::string> lines;
  for (size_t f : proof_closure(derivation, index, expand_from)) {
    lines.push_back(fact_line(derivation[f], mesh));
  }
  return lines;
}

size_t fact_of_node(const std::vector<DerivedFact>& derivation, const std::string& dist) {
  size_t first = std::string::npos;
  for (const DerivedFact& f : derivation) {
    if (f.dist != dist) continue;
    if (f.element < 0 && !f.ref.empty()) return f.index;
    if (first == std::string::npos) first = f.index;
  }
  return first;
}

namespace {

size_t value_hash(const DerivedFact& f) {
  return std::hash<std::string_view>{}(f.dist) ^
         (static_cast<size_t>(f.element + 1) * 0x9e3779b97f4a7c15ULL);
}

}  // namespace

std::optional<size_t> DerivationJoiner::same_fact(const DerivedFact& f) const {
  const auto chain = by_value_.find(value_hash(f));
  if (chain == by_value_.end()) return std::nullopt;
  for (size_t k = chain->second.first; k != std::string::npos; k = next_[k]) {
    const DerivedFact& g = whole_[k];
    if (g.dist == f.dist && g.element == f.element && g.layout == f.layout) return k;
  }
  return std::nullopt;
}

void DerivationJoiner::reserve(size_t facts) {
  whole_.reserve(facts);
  next_.reserve(facts);
  by_value_.reserve(facts);
}

void DerivationJoiner::add(DerivedFact&& f, size_t i, std::vector<size_t>& at) {
  if (!f.premises.empty() && f.premises[0] < i && !in_program_(f.dist)) {
    at[i] = at[f.premises[0]];  // the part's own output tuple: the value it hands on
    return;
  }
  if (f.rule == "bijection" || f.rule == "assumption") {
    // A value an earlier part proved (or a parameter an earlier part bound) alike.
    if (const auto same = same_fact(f)) {
      at[i] = *same;
      return;
    }
  }
  DerivedFact g = std::move(f);
  g.index = whole_.size();
  size_t kept = 0;  // premises renumbered in place (a premise is always an earlier fact)
  for (size_t p : g.premises) {
    if (p < i) g.premises[kept++] = at[p];
  }
  g.premises.resize(kept);
  at[i] = g.index;
  const auto [chain, first] = by_value_.try_emplace(value_hash(g), g.index, g.index);
  if (!first) {
    next_[chain->second.second] = g.index;
    chain->second.second = g.index;
  }
  next_.push_back(std::string::npos);
  whole_.push_back(std::move(g));
}

std::vector<size_t> DerivationJoiner::append(std::vector<DerivedFact> part) {
  std::vector<size_t> at(part.size(), 0);
  for (size_t i = 0; i < part.size(); ++i) add(std::move(part[i]), i, at);
  return at;
}

std::vector<size_t> DerivationJoiner::append_copy(const std::vector<DerivedFact>& part,
                                                  const std::function<void(DerivedFact&)>& adjust) {
  std::vector<size_t> at(part.size(), 0);
  for (size_t i = 0; i < part.size(); ++i) {
    DerivedFact f = part[i];
    adjust(f);
    add(std::move(f), i, at);
  }
  return at;
}

}  // namespace scalify::verify
