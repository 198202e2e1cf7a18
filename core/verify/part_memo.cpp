#include "verify/part_memo.h"

#include "support/json.h"

namespace scalify::verify {

namespace {

json::Array strings(const std::vector<std::string>& v) {
  json::Array a;
  for (const std::string& s : v) a.push_back(s);
  return a;
}

/// Readers that fail softly: a foreign or damaged entry yields nullopt, never an exception.
struct Reader {
  const Mesh& mesh;
  bool ok = true;

  const json::Value& at(const json::Value& v, std::string_view key) {
    static const json::Value kNull;
    const json::Value* f = v.is_object() ? v.find(key) : nullptr;
    if (!f) ok = false;
    return f ? *f : kNull;
  }
  std::string str(const json::Value& v, std::string_view key) {
    const json::Value& f = at(v, key);
    if (!f.is_string()) ok = false;
    return f.is_string() ? f.as_string() : "";
  }
  int64_t integer(const json::Value& v, std::string_view key) {
    const json::Value& f = at(v, key);
    if (!f.is_integer()) ok = false;
    return f.is_integer() ? f.as_int() : 0;
  }
  bool boolean(const json::Value& v, std::string_view key) {
    const json::Value& f = at(v, key);
    if (!f.is_bool()) ok = false;
    return f.is_bool() && f.as_bool();
  }
  std::vector<std::string> list(const json::Value& v, std::string_view key) {
    std::vector<std::string> out;
    const json::Value& f = at(v, key);
    if (!f.is_array()) ok = false;
    if (!f.is_array()) return out;
    for (const json::Value& s : f.as_array()) {
      if (s.is_string())
        out.push_back(s.as_string());
      else
        ok = false;
    }
    return out;
  }
  /// Indices (non-negative integers).
  std::vector<size_t> indices(const json::Value& v, std::string_view key) {
    std::vector<size_t> out;
    const json::Value& f = at(v, key);
    if (!f.is_array()) ok = false;
    if (!f.is_array()) return out;
    for (const json::Value& i : f.as_array()) {
      if (i.is_integer() && i.as_int() >= 0)
        out.push_back(static_cast<size_t>(i.as_int()));
      else
        ok = false;
    }
    return out;
  }
  Layout layout(const json::Value& v, std::string_view key) {
    auto l = Layout::parse(str(v, key), mesh);
    if (!l) ok = false;
    return l ? *l : Layout::replicated(mesh.rank());
  }
  const json::Array& array(const json::Value& v, std::string_view key) {
    static const json::Array kEmpty;
    const json::Value& f = at(v, key);
    if (!f.is_array()) ok = false;
    return f.is_array() ? f.as_array() : kEmpty;
  }
};

std::string rename_text(const std::string& text,
                        const std::unordered_map<std::string, std::string>& renames) {
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  };
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!name_char(text[i])) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && name_char(text[end])) ++end;
    std::string word = text.substr(i, end - i);
    // A sentence may end right after a name: try it without its trailing dots too.
    std::string tail;
    while (!word.empty() && word.back() == '.' && !renames.count(word)) {
      tail.insert(tail.begin(), '.');
      word.pop_back();
    }
    const auto found = renames.find(word);
    out += found == renames.end() ? word : found->second;
    out += tail;
    i = end;
  }
  return out;
}

}  // namespace

std::string to_text(const MemoEntry& entry) {
  const CheckResult& r = entry.result;
  const Mesh& mesh = r.mesh;
  json::Object o;
  o["verdict"] = std::string(verdict_name(r.verdict));
  json::Array bijection;
  for (const BijectionEntry& b : r.bijection) {
    bijection.push_back(json::Object{{"dist", b.dist},
                                     {"ref", b.ref},
                                     {"dist_number", b.dist_number},
                                     {"ref_number", b.ref_number},
                                     {"layout", b.layout.to_string(mesh)},
                                     {"why", b.why}});
  }
  o["bijection"] = std::move(bijection);
  json::Array goals;
  for (const Goal& g : r.goals) {
    goals.push_back(json::Object{{"ref", g.ref},
                                 {"dist", g.dist},
                                 {"index", g.index},
                                 {"proven", g.proven},
                                 {"layout", g.layout ? g.layout->to_string(mesh) : ""},
                                 {"proof", strings(g.proof)},
                                 {"fact", g.fact ? static_cast<int64_t>(*g.fact) : -1},
                                 {"why_not", g.why_not}});
  }
  o["goals"] = std::move(goals);
  json::Array assumptions;
  for (const Assumption& a : r.assumptions) {
    assumptions.push_back(
        json::Object{{"dist", a.dist}, {"layout", a.layout.to_string(mesh)}, {"why", a.why}});
  }
  o["assumptions"] = std::move(assumptions);
  o["unmatched_ref_outputs"] = strings(r.unmatched_ref_outputs);
  o["unmatched_dist_parameters"] = strings(r.unmatched_dist_parameters);
  o["notes"] = strings(r.notes);
  if (r.divergence) {
    const Divergence& d = *r.divergence;
    o["divergence"] = json::Object{{"dist_node", d.dist_node},
                                   {"ref_node", d.ref_node},
                                   {"op", d.op},
                                   {"reason", d.reason},
                                   {"by_value", d.by_value},
                                   {"operand_layouts", strings(d.operand_layouts)},
                                   {"op_name", d.op_name},
                                   {"source_file", d.source ? d.source->file : ""},
                                   {"source_line", d.source ? d.source->line : -1},
                                   {"dist_line", d.dist_line},
                                   {"ref_line", d.ref_line}};
  }
  o["stats"] = json::Object{{"enodes", r.stats.enodes},
                            {"eclasses", r.stats.eclasses},
                            {"iterations", r.stats.iterations},
                            {"facts", r.stats.facts},
                            {"stop_reason", r.stats.stop_reason}};
  json::Array matches;
  for (const NodeMatch& m : r.matches) {
    matches.push_back(
        json::Object{{"dist", m.dist}, {"ref", m.ref}, {"layout", m.layout.to_string(mesh)}});
  }
  o["matches"] = std::move(matches);
  json::Array derivation;
  for (const DerivedFact& f : r.derivation) {
    json::Array premises;
    for (size_t p : f.premises) premises.push_back(p);
    derivation.push_back(json::Object{{"index", f.index},
                                      {"dist", f.dist},
                                      {"element", f.element},
                                      {"layout", f.layout.to_string(mesh)},
                                      {"ref", f.ref},
                                      {"eclass", f.eclass},
                                      {"rule", f.rule},
                                      {"premises", std::move(premises)},
                                      {"rewrites", strings(f.rewrites)}});
  }
  o["derivation"] = std::move(derivation);
  o["dist_names"] = strings(entry.dist_names);
  o["ref_names"] = strings(entry.ref_names);
  return json::Value(std::move(o)).dump();
}

std::optional<MemoEntry> memo_entry_from_text(std::string_view text, const Mesh& mesh) {
  auto parsed = json::parse(text, "memo");
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const json::Value& o = *parsed;
  Reader rd{mesh};
  MemoEntry e;
  CheckResult& r = e.result;
  r.mesh = mesh;
  const std::string verdict = rd.str(o, "verdict");
  if (verdict == "equivalent") {
    r.verdict = Verdict::kEquivalent;
  } else if (verdict == "divergent") {
    r.verdict = Verdict::kDivergent;
  } else if (verdict == "inconclusive") {
    r.verdict = Verdict::kInconclusive;
  } else {
    return std::nullopt;
  }
  for (const json::Value& b : rd.array(o, "bijection")) {
    r.bijection.push_back({rd.str(b, "dist"), rd.str(b, "ref"), rd.integer(b, "dist_number"),
                           rd.integer(b, "ref_number"), rd.layout(b, "layout"), rd.str(b, "why")});
  }
  for (const json::Value& g : rd.array(o, "goals")) {
    Goal goal;
    goal.ref = rd.str(g, "ref");
    goal.dist = rd.str(g, "dist");
    goal.index = rd.integer(g, "index");
    goal.proven = rd.boolean(g, "proven");
    if (!rd.str(g, "layout").empty()) goal.layout = rd.layout(g, "layout");
    goal.proof = rd.list(g, "proof");
    if (const int64_t f = rd.integer(g, "fact"); f >= 0) goal.fact = static_cast<size_t>(f);
    goal.why_not = rd.str(g, "why_not");
    r.goals.push_back(std::move(goal));
  }
  for (const json::Value& a : rd.array(o, "assumptions")) {
    r.assumptions.push_back({rd.str(a, "dist"), rd.layout(a, "layout"), rd.str(a, "why")});
  }
  r.unmatched_ref_outputs = rd.list(o, "unmatched_ref_outputs");
  r.unmatched_dist_parameters = rd.list(o, "unmatched_dist_parameters");
  r.notes = rd.list(o, "notes");
  if (const json::Value* d = o.find("divergence")) {
    Divergence div;
    div.dist_node = rd.str(*d, "dist_node");
    div.ref_node = rd.str(*d, "ref_node");
    div.op = rd.str(*d, "op");
    div.reason = rd.str(*d, "reason");
    div.by_value = rd.boolean(*d, "by_value");
    div.operand_layouts = rd.list(*d, "operand_layouts");
    div.op_name = rd.str(*d, "op_name");
    const std::string file = rd.str(*d, "source_file");
    if (!file.empty()) div.source = SourceSite{file, rd.integer(*d, "source_line")};
    div.dist_line = rd.integer(*d, "dist_line");
    div.ref_line = rd.integer(*d, "ref_line");
    r.divergence = std::move(div);
  }
  const json::Value& s = rd.at(o, "stats");
  r.stats.enodes = static_cast<size_t>(rd.integer(s, "enodes"));
  r.stats.eclasses = static_cast<size_t>(rd.integer(s, "eclasses"));
  r.stats.iterations = static_cast<size_t>(rd.integer(s, "iterations"));
  r.stats.facts = static_cast<size_t>(rd.integer(s, "facts"));
  r.stats.stop_reason = rd.str(s, "stop_reason");
  for (const json::Value& m : rd.array(o, "matches")) {
    r.matches.push_back({rd.str(m, "dist"), rd.str(m, "ref"), rd.layout(m, "layout")});
  }
  // An entry without a derivation (written before there was one) reads as a miss.
  for (const json::Value& f : rd.array(o, "derivation")) {
    DerivedFact fact;
    fact.index = r.derivation.size();
    fact.dist = rd.str(f, "dist");
    fact.element = rd.integer(f, "element");
    fact.layout = rd.layout(f, "layout");
    fact.ref = rd.str(f, "ref");
    fact.eclass = rd.integer(f, "eclass");
    fact.rule = rd.str(f, "rule");
    fact.premises = rd.indices(f, "premises");
    fact.rewrites = rd.list(f, "rewrites");
    for (size_t p : fact.premises) rd.ok = rd.ok && p < fact.index;
    r.derivation.push_back(std::move(fact));
  }
  e.dist_names = rd.list(o, "dist_names");
  e.ref_names = rd.list(o, "ref_names");
  if (!rd.ok) return std::nullopt;
  return e;
}

CheckResult renamed(const CheckResult& result, const Renames& renames) {
  std::unordered_map<std::string, std::string> both = renames.dist;
  for (const auto& [from, to] : renames.ref) {
    const auto [at, inserted] = both.emplace(from, to);
    if (!inserted && at->second != to) at->second = from;  // they disagree: leave it be
  }
  CheckResult r = result;
  // Name fields hold one name (a goal's with `#element`): looked up, not scanned.
  auto exact = [](std::string& s, const std::unordered_map<std::string, std::string>& names) {
    const size_t hash = s.find('#');
    const auto found = names.find(hash == std::string::npos ? s : s.substr(0, hash));
    if (found != names.end()) {
      s = found->second + (hash == std::string::npos ? "" : s.substr(hash));
    }
  };
  auto dist = [&](std::string& s) { exact(s, renames.dist); };
  auto ref = [&](std::string& s) { exact(s, renames.ref); };
  auto text = [&](std::string& s) { s = rename_text(s, both); };
  for (BijectionEntry& b : r.bijection) {
    dist(b.dist);
    ref(b.ref);
    text(b.why);
  }
  for (Goal& g : r.goals) {
    ref(g.ref);
    dist(g.dist);
    text(g.why_not);
    for (std::string& p : g.proof) text(p);
  }
  for (Assumption& a : r.assumptions) {
    text(a.dist);  // a reference value for some assumptions ("is not 0")
    text(a.why);
  }
  for (std::string& s : r.unmatched_ref_outputs) ref(s);
  for (std::string& s : r.unmatched_dist_parameters) dist(s);
  for (std::string& s : r.notes) text(s);
  for (NodeMatch& m : r.matches) {
    dist(m.dist);
    ref(m.ref);
  }
  for (DerivedFact& f : r.derivation) {
    dist(f.dist);
    ref(f.ref);
  }
  if (r.divergence) {
    dist(r.divergence->dist_node);
    ref(r.divergence->ref_node);
    text(r.divergence->reason);
  }
  return r;
}

std::optional<MemoEntry> PartMemo::find(const std::string& key, const Mesh& mesh) {
  {
    std::lock_guard lock(mutex_);
    const auto found = entries_.find(key);
    if (found != entries_.end()) return found->second;
  }
  if (!store_) return std::nullopt;
  const auto text = store_->get(key);
  if (!text) return std::nullopt;
  auto entry = memo_entry_from_text(*text, mesh);
  if (!entry) return std::nullopt;
  std::lock_guard lock(mutex_);
  entries_.emplace(key, *entry);
  return entry;
}

void PartMemo::put(const std::string& key, const MemoEntry& entry) {
  {
    std::lock_guard lock(mutex_);
    entries_.insert_or_assign(key, entry);
  }
  if (store_) store_->put(key, to_text(entry));
}

}  // namespace scalify::verify
