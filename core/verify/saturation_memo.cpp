#include "verify/saturation_memo.h"

#include <cstring>

namespace scalify::verify {

namespace {

void put(std::string& out, uint32_t v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  out.append(bytes, sizeof v);
}

void put(std::string& out, std::string_view text) {
  put(out, static_cast<uint32_t>(text.size()));
  out.append(text);
}

void put(std::string& out, const egraph::ENode& n) {
  put(out, n.op);
  put(out, n.payload);
  put(out, static_cast<uint32_t>(n.children.size()));
  for (egraph::ClassId c : n.children) put(out, c);
}

}  // namespace

std::string saturation_state(const egraph::EGraph& g, const egraph::Vocabulary& vocab,
                             const TypeTable& types) {
  std::string out;
  out.reserve(g.id_count() * 40);
  put(out, static_cast<uint32_t>(g.explanations()));
  put(out, static_cast<uint32_t>(vocab.symbol_count()));
  for (egraph::Symbol s = 0; s < vocab.symbol_count(); ++s) {
    put(out, vocab.name(s));
    put(out, static_cast<uint32_t>(vocab.is_commutative(s) + vocab.is_ac(s)));
  }
  put(out, static_cast<uint32_t>(vocab.payload_count()));
  for (uint32_t p = 0; p < vocab.payload_count(); ++p) put(out, egraph::to_string(vocab.attrs(p)));
  put(out, static_cast<uint32_t>(types.size()));
  for (egraph::TypeId t = 0; t < types.size(); ++t) {
    const auto type = types.type(t);
    put(out, type ? type->to_string(false) : std::string());
  }
  put(out, static_cast<uint32_t>(g.id_count()));
  for (egraph::ClassId id = 0; id < g.id_count(); ++id) {
    put(out, g.node_of_id(id));
    put(out, g.find(id));
  }
  for (egraph::ClassId c : g.class_ids()) {
    put(out, c);
    put(out, g.type_of(c));
    put(out, g.constant_of(c));
    const auto nodes = g.nodes(c);
    put(out, static_cast<uint32_t>(nodes.size()));
    for (const egraph::ENode& n : nodes) put(out, n);
  }
  put(out, static_cast<uint32_t>(g.unions().size()));
  for (const egraph::UnionRecord& u : g.unions()) {
    put(out, u.a);
    put(out, u.b);
    put(out, static_cast<uint32_t>(u.reason.kind));
    put(out, u.reason.rule);
    put(out, u.reason.detail);
  }
  return out;
}

const SaturationMemo::Saturated* SaturationMemo::find(std::string_view key) const {
  for (const auto& [k, saturated] : entries_) {
    if (k == key) {
      ++hits_;
      return &saturated;
    }
  }
  return nullptr;
}

void SaturationMemo::store(std::string key, Saturated saturated) {
  entries_.emplace_back(std::move(key), std::move(saturated));
  if (entries_.size() > kCapacity) entries_.pop_front();
}

}  // namespace scalify::verify
