#include "verify/part_memo.h"

#include "support/json.h"
#include "verify/check_json.h"
#include "verify/derivation.h"

namespace scalify::verify {

namespace {

using NameMap = std::unordered_map<std::string_view, std::string_view>;

/// What free text should say for `word`: the distributed program's new name, else the
/// reference's; nullopt when neither renames it or the two disagree (then it is left be).
std::optional<std::string_view> new_name(std::string_view word, const Renames& renames) {
  const auto d = renames.dist.find(word);
  const auto r = renames.ref.find(word);
  if (d != renames.dist.end() && r != renames.ref.end() && d->second != r->second) {
    return std::nullopt;
  }
  if (d != renames.dist.end()) return d->second;
  if (r != renames.ref.end()) return r->second;
  return std::nullopt;
}

bool known(std::string_view word, const Renames& renames) {
  return renames.dist.count(word) > 0 || renames.ref.count(word) > 0;
}

/// `text` with every whole word that names an instruction renamed; untouched (no copy) when it
/// names none.
void rename_text(std::string& text, const Renames& renames) {
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  };
  std::string out;
  bool changed = false;
  size_t copied = 0;  // text[0, copied) is in out (once a word was renamed)
  size_t i = 0;
  while (i < text.size()) {
    if (!name_char(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && name_char(text[end])) ++end;
    std::string_view word(text.data() + i, end - i);
    // A sentence may end right after a name: try it without its trailing dots too.
    while (!word.empty() && word.back() == '.' && !known(word, renames)) word.remove_suffix(1);
    if (const auto to = new_name(word, renames)) {
      out.append(text, copied, i - copied);
      out.append(*to);
      copied = i + word.size();
      changed = true;
    }
    i = end;
  }
  if (!changed) return;
  out.append(text, copied);
  text = std::move(out);
}

}  // namespace

std::string to_text(const MemoEntry& entry) {
  json::Array dist_names, ref_names;
  for (const std::string& s : entry.dist_names) dist_names.push_back(s);
  for (const std::string& s : entry.ref_names) ref_names.push_back(s);
  return json::Value(json::Object{{"result", to_json(entry.result, {.matches = true})},
                                  {"dist_names", std::move(dist_names)},
                                  {"ref_names", std::move(ref_names)}})
      .dump();
}

std::optional<MemoEntry> memo_entry_from_text(std::string_view text, const Mesh& mesh) {
  auto parsed = json::parse(text, "memo");
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const json::Value* result = parsed->find("result");
  if (!result) return std::nullopt;
  auto r = result_from_json(*result, "memo");
  if (!r || !(r->mesh == mesh)) return std::nullopt;
  auto names = [&](const char* key, std::vector<std::string>& out) {
    const json::Value* list = parsed->find(key);
    if (!list || !list->is_array()) return false;
    for (const json::Value& n : list->as_array()) {
      if (!n.is_string()) return false;
      out.push_back(n.as_string());
    }
    return true;
  };
  MemoEntry e;
  e.result = std::move(*r);
  if (!names("dist_names", e.dist_names) || !names("ref_names", e.ref_names)) return std::nullopt;
  return e;
}

namespace {

/// A name field holds one name (a goal's with `#element`): looked up, not scanned.
void rename_exact(std::string& s, const NameMap& names) {
  const size_t hash = s.find('#');
  const auto found = names.find(std::string_view(s).substr(0, hash));
  if (found == names.end()) return;
  if (hash == std::string::npos) {
    s.assign(found->second);
  } else {
    std::string renamed_name(found->second);
    renamed_name.append(s, hash);
    s = std::move(renamed_name);
  }
}

}  // namespace

void rename_fact(DerivedFact& f, const Renames& renames) {
  rename_exact(f.dist, renames.dist);
  rename_exact(f.ref, renames.ref);
  // The steps of a loop or conditional are checks of its computations, whose instructions the
  // renames do not cover: dropped, so the proof checker says the fact is not re-checked rather
  // than read another part's names.
  f.control_flow.reset();
}

CheckResult renamed(const CheckResult& result, const Renames& renames) {
  CheckResult r = result;
  const auto exact = rename_exact;
  auto dist = [&](std::string& s) { exact(s, renames.dist); };
  auto ref = [&](std::string& s) { exact(s, renames.ref); };
  auto text = [&](std::string& s) { rename_text(s, renames); };
  for (BijectionEntry& b : r.bijection) {
    dist(b.dist);
    ref(b.ref);
    text(b.why);
  }
  for (Assumption& a : r.assumptions) {
    text(a.dist);  // a reference value for some assumptions ("is not 0")
    text(a.why);
  }
  for (std::string& s : r.unmatched_ref_outputs) ref(s);
  for (std::string& s : r.unmatched_dist_parameters) dist(s);
  for (std::string& s : r.notes) text(s);
  if (!renames.matches) r.matches.clear();
  for (NodeMatch& m : r.matches) {
    dist(m.dist);
    ref(m.ref);
  }
  for (DerivedFact& f : r.derivation) rename_fact(f, renames);
  for (Goal& g : r.goals) {
    ref(g.ref);
    dist(g.dist);
    text(g.why_not);
    if (!renames.proofs) {
      g.proof.clear();
    } else if (g.fact && *g.fact < r.derivation.size() && !g.proof.empty()) {
      // A proof is its fact's closure rendered as the checker renders it, then one line of
      // text (how the reference side meets the output): rendering the renamed facts is exact
      // and far cheaper than scanning every line for names.
      std::string meets = g.proof.back();
      text(meets);
      g.proof = proof_lines(r.derivation, *g.fact, r.mesh);
      g.proof.push_back(std::move(meets));
    } else {
      for (std::string& p : g.proof) text(p);
    }
  }
  if (r.divergence) {
    dist(r.divergence->dist_node);
    dist(r.divergence->origin_node);
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
