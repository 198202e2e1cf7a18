#include "verify/check_json.h"

#include <memory>
#include <unordered_map>

namespace scalify::verify {

namespace {

json::Array int_array(const std::vector<int64_t>& values) {
  json::Array a;
  for (int64_t v : values) a.push_back(v);
  return a;
}

json::Object control_flow_json(const ControlFlowProof& proof, const JsonOptions& options) {
  json::Object o;
  o["ref_node"] = proof.ref_node;
  json::Array steps;
  for (const StepCheck& step : proof.steps) {
    json::Object j;
    j["role"] = step.role;
    j["result"] = to_json(*step.result, options);
    steps.push_back(std::move(j));
  }
  o["steps"] = std::move(steps);
  return o;
}

}  // namespace

json::Object layout_fields(const Layout& layout, const Mesh& mesh) {
  json::Object o;
  size_t parts = 0, which = 0;
  for (size_t a = 0; a < layout.axes.size(); ++a) {
    if (!layout.axes[a].is_rep()) {
      ++parts;
      which = a;
    }
  }
  if (parts == 0) {
    o["layout"] = "rep";
  } else if (parts == 1) {
    const AxisLayout& p = layout.axes[which];
    if (p.is_shard()) {
      o["layout"] = "shard";
      o["dim"] = p.dim;
      if (p.full >= 0) o["padded_to"] = p.full;
    } else {
      o["layout"] = "partial";
      o["op"] = std::string(reduce_op_name(p.op));
    }
    o["axis"] = mesh.name(which);
  } else {
    o["layout"] = layout.to_string(mesh);
  }
  o["text"] = layout.to_string(mesh);
  return o;
}

json::Value to_json(const CheckResult& r, const JsonOptions& options) {
  json::Object o;
  o["verdict"] = std::string(verdict_name(r.verdict));
  json::Object mesh;
  for (const MeshAxis& a : r.mesh.axes()) mesh[a.name] = a.size;
  o["mesh"] = std::move(mesh);
  if (!r.mesh.device_order().empty()) {
    json::Array order;
    for (int64_t d : r.mesh.device_order()) order.push_back(d);
    o["mesh_devices"] = std::move(order);
  }
  json::Array bijection;
  for (const BijectionEntry& e : r.bijection) {
    json::Object b;
    b["dist"] = e.dist;
    b["ref"] = e.ref;
    for (auto& [k, v] : layout_fields(e.layout, r.mesh)) b[k] = v;
    b["why"] = e.why;
    b["dist_number"] = e.dist_number;
    b["ref_number"] = e.ref_number;
    if (!e.reshape.empty()) b["reshape"] = int_array(e.reshape);
    if (!e.permutation.empty()) b["permutation"] = int_array(e.permutation);
    bijection.push_back(std::move(b));
  }
  o["bijection"] = std::move(bijection);
  json::Array goals;
  for (const Goal& g : r.goals) {
    json::Object j;
    j["ref"] = g.ref;
    j["dist"] = g.dist;
    j["index"] = g.index;
    if (g.layout) {
      for (auto& [k, v] : layout_fields(*g.layout, r.mesh)) j[k] = v;
    }
    j["proven"] = g.proven;
    if (!g.proven) j["why_not"] = g.why_not;
    json::Array proof;
    for (const std::string& line : g.proof) proof.push_back(line);
    j["proof"] = std::move(proof);
    j["fact"] = g.fact ? json::Value(*g.fact) : json::Value(nullptr);
    goals.push_back(std::move(j));
  }
  o["goals"] = std::move(goals);
  json::Array assumptions;
  for (const Assumption& a : r.assumptions) {
    json::Object j;
    j["dist"] = a.dist;
    j["layout"] = a.layout.to_string(r.mesh);
    j["why"] = a.why;
    assumptions.push_back(std::move(j));
  }
  o["assumptions"] = std::move(assumptions);
  json::Array ref_outputs, dist_parameters;
  for (const auto& s : r.unmatched_ref_outputs) ref_outputs.push_back(s);
  for (const auto& s : r.unmatched_dist_parameters) dist_parameters.push_back(s);
  json::Object unmatched;
  unmatched["ref_outputs"] = std::move(ref_outputs);
  unmatched["dist_parameters"] = std::move(dist_parameters);
  o["unmatched"] = std::move(unmatched);
  if (r.divergence) {
    const Divergence& d = *r.divergence;
    json::Array layouts;
    for (const auto& s : d.operand_layouts) layouts.push_back(s);
    json::Object j;
    j["dist_node"] = d.dist_node;
    j["ref_node"] = d.ref_node.empty() ? json::Value(nullptr) : json::Value(d.ref_node);
    j["op"] = d.op;
    j["reason"] = d.reason;
    j["operand_layouts"] = std::move(layouts);
    j["by_value"] = d.by_value;
    j["op_name"] = d.op_name;
    if (d.source) {
      j["source"]["file"] = d.source->file;
      j["source"]["line"] = d.source->line;
    } else {
      j["source"] = nullptr;
    }
    j["dist_line"] = d.dist_line;
    j["ref_line"] = d.ref_line;
    j["origin_node"] = d.origin_node.empty() ? json::Value(nullptr) : json::Value(d.origin_node);
    o["divergence"] = std::move(j);
  } else {
    o["divergence"] = nullptr;
  }
  json::Array derivation;
  // A loop's or conditional's steps are written with its first element's fact; the facts of
  // its other elements name that one.
  std::unordered_map<const ControlFlowProof*, size_t> written;
  for (const DerivedFact& f : r.derivation) {
    json::Object j;
    j["index"] = f.index;
    j["dist"] = f.dist;
    j["element"] = f.element < 0 ? json::Value(nullptr) : json::Value(f.element);
    j["layout"] = f.layout.to_string(r.mesh);
    j["ref"] = f.ref.empty() ? json::Value(nullptr) : json::Value(f.ref);
    j["eclass"] = f.eclass;
    j["rule"] = f.rule;
    json::Array premises, rewrites;
    for (size_t p : f.premises) premises.push_back(p);
    for (const std::string& w : f.rewrites) rewrites.push_back(w);
    j["premises"] = std::move(premises);
    j["rewrites"] = std::move(rewrites);
    if (f.control_flow) {
      const auto [first, fresh] = written.emplace(f.control_flow.get(), f.index);
      j["control_flow"] = fresh ? control_flow_json(*f.control_flow, options)
                                : json::Value(json::Object{{"same_as", first->second}});
    }
    derivation.push_back(std::move(j));
  }
  o["derivation"] = std::move(derivation);
  json::Array notes;
  for (const auto& s : r.notes) notes.push_back(s);
  o["notes"] = std::move(notes);
  json::Value& stats = o["stats"];
  stats["seconds"] = r.stats.seconds;
  stats["parts"] = r.stats.parts;
  stats["memo_hits"] = r.stats.memo_hits;
  stats["enodes"] = r.stats.enodes;
  stats["eclasses"] = r.stats.eclasses;
  stats["iterations"] = r.stats.iterations;
  stats["facts"] = r.stats.facts;
  stats["saturation"] = r.stats.stop_reason;
  if (options.matches) {
    json::Array matches;
    for (const NodeMatch& m : r.matches) {
      matches.push_back(
          json::Object{{"dist", m.dist}, {"ref", m.ref}, {"layout", m.layout.to_string(r.mesh)}});
    }
    o["matches"] = std::move(matches);
  }
  return o;
}

namespace {

/// Reads what to_json wrote. The first problem is kept (with the key's path) and every later
/// read returns a default, so the code below reads straight through.
class Reader {
 public:
  std::string error;  ///< "goals[2].proven: expected true or false"; empty while all is well
  Mesh mesh;

  const json::Value* member(const json::Value& v, std::string_view key, const std::string& at) {
    const json::Value* f = v.is_object() ? v.find(key) : nullptr;
    if (!f) fail(at, key, "missing");
    return f;
  }
  std::string str(const json::Value& v, std::string_view key, const std::string& at) {
    const json::Value* f = member(v, key, at);
    if (f && !f->is_string()) fail(at, key, "expected a string");
    return f && f->is_string() ? f->as_string() : std::string();
  }
  /// A string, or "" for null.
  std::string str_or_null(const json::Value& v, std::string_view key, const std::string& at) {
    const json::Value* f = member(v, key, at);
    if (f && f->is_null()) return {};
    return str(v, key, at);
  }
  int64_t integer(const json::Value& v, std::string_view key, const std::string& at) {
    const json::Value* f = member(v, key, at);
    if (f && !f->is_integer()) fail(at, key, "expected an integer");
    return f && f->is_integer() ? f->as_int() : 0;
  }
  /// An optional integer: `otherwise` when the key is absent.
  int64_t integer_or(const json::Value& v, std::string_view key, const std::string& at,
                     int64_t otherwise) {
    return v.find(key) ? integer(v, key, at) : otherwise;
  }
  size_t count(const json::Value& v, std::string_view key, const std::string& at) {
    const int64_t n = integer(v, key, at);
    if (n < 0) fail(at, key, "expected a count");
    return n < 0 ? 0 : static_cast<size_t>(n);
  }
  double number(const json::Value& v, std::string_view key, const std::string& at) {
    const json::Value* f = member(v, key, at);
    if (f && f->is_null()) return 0;  // a non-finite number is written as null
    if (f && !f->is_number()) fail(at, key, "expected a number");
    return f && f->is_number() ? f->as_double() : 0;
  }
  bool boolean(const json::Value& v, std::string_view key, const std::string& at) {
    const json::Value* f = member(v, key, at);
    if (f && !f->is_bool()) fail(at, key, "expected true or false");
    return f && f->is_bool() && f->as_bool();
  }
  const json::Array& array(const json::Value& v, std::string_view key, const std::string& at) {
    static const json::Array kEmpty;
    const json::Value* f = member(v, key, at);
    if (f && !f->is_array()) fail(at, key, "expected an array");
    return f && f->is_array() ? f->as_array() : kEmpty;
  }
  /// The integers of array `key`, or none when the key is absent.
  std::vector<int64_t> int_list_or_empty(const json::Value& v, std::string_view key,
                                         const std::string& at) {
    std::vector<int64_t> out;
    if (!v.is_object() || !v.find(key)) return out;
    const json::Array& a = array(v, key, at);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_integer()) {
        fail(at, std::string(key) + "[" + std::to_string(i) + "]", "expected an integer");
        break;
      }
      out.push_back(a[i].as_int());
    }
    return out;
  }
  std::vector<std::string> strings(const json::Value& v, std::string_view key,
                                   const std::string& at) {
    std::vector<std::string> out;
    const json::Array& a = array(v, key, at);
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) {
        fail(at, std::string(key) + "[" + std::to_string(i) + "]", "expected a string");
        break;
      }
      out.push_back(a[i].as_string());
    }
    return out;
  }
  Layout layout(const json::Value& v, std::string_view key, const std::string& at) {
    const std::string text = str(v, key, at);
    if (!error.empty()) return Layout::replicated(mesh.rank());
    auto l = Layout::parse(text, mesh);
    if (!l) {
      fail(at, key, "'" + text + "' is not a layout on the mesh " + mesh_text());
      return Layout::replicated(mesh.rank());
    }
    return *l;
  }
  void read_mesh(const json::Value& v) {
    const json::Value* m = member(v, "mesh", "");
    if (!m) return;
    if (!m->is_object()) return fail("", "mesh", "expected an object of axis sizes");
    std::vector<MeshAxis> axes;
    std::string text;
    for (const auto& [name, size] : m->as_object()) {
      if (!size.is_integer()) return fail("mesh", name, "expected an integer");
      text += (text.empty() ? "" : ",") + name + "=" + std::to_string(size.as_int());
    }
    if (text.empty()) return;  // one device
    auto parsed = Mesh::parse(text);
    if (!parsed) return fail("", "mesh", parsed.error().message);
    mesh = std::move(*parsed);
    const json::Value* devices = v.find("mesh_devices");
    if (!devices) return;
    if (!devices->is_array()) return fail("", "mesh_devices", "expected an array of devices");
    std::vector<int64_t> order;
    for (const json::Value& d : devices->as_array()) {
      if (!d.is_integer()) return fail("", "mesh_devices", "expected an array of devices");
      order.push_back(d.as_int());
    }
    auto ordered = mesh.with_device_order(std::move(order));
    if (!ordered) return fail("", "mesh_devices", "not an order of the mesh's devices");
    mesh = std::move(*ordered);
  }
  void fail(const std::string& at, std::string_view key, const std::string& message) {
    if (!error.empty()) return;
    error = (at.empty() ? "" : at + ".") + std::string(key) + ": " + message;
  }

 private:
  std::string mesh_text() const { return mesh.rank() == 0 ? "of one device" : mesh.to_string(); }
};

std::string item(std::string_view array, size_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

/// A control-flow fact's steps (or, `same_as`, those of an earlier fact), each a result of
/// its own.
std::shared_ptr<const ControlFlowProof> read_control_flow(Reader& rd, const json::Value& c,
                                                          const std::string& at,
                                                          const std::vector<DerivedFact>& before,
                                                          std::string_view file_name) {
  if (const json::Value* same = c.is_object() ? c.find("same_as") : nullptr) {
    const int64_t k = same->is_integer() ? same->as_int() : -1;
    if (k < 0 || static_cast<size_t>(k) >= before.size() ||
        !before[static_cast<size_t>(k)].control_flow) {
      rd.fail(at, "same_as", "expected an earlier control-flow fact");
      return nullptr;
    }
    return before[static_cast<size_t>(k)].control_flow;
  }
  auto proof = std::make_shared<ControlFlowProof>();
  proof->ref_node = rd.str(c, "ref_node", at);
  const json::Array& steps = rd.array(c, "steps", at);
  for (size_t i = 0; i < steps.size() && rd.error.empty(); ++i) {
    const std::string step_at = at + "." + item("steps", i);
    StepCheck step;
    step.role = rd.str(steps[i], "role", step_at);
    const json::Value* result = rd.member(steps[i], "result", step_at);
    if (!result) break;
    auto checked = result_from_json(*result, file_name);
    if (!checked) {
      rd.fail(step_at, "result", checked.error().message);
      break;
    }
    step.result = std::make_shared<const CheckResult>(std::move(*checked));
    proof->steps.push_back(std::move(step));
  }
  return proof;
}

}  // namespace

Expected<CheckResult> result_from_json(const json::Value& o, std::string_view file_name) {
  auto error = [&](const std::string& message) {
    return Diagnostic{std::string(file_name), {}, "not a check result: " + message, ""};
  };
  if (!o.is_object()) return error("expected an object");
  Reader rd;
  CheckResult r;
  rd.read_mesh(o);
  r.mesh = rd.mesh;
  const std::string verdict = rd.str(o, "verdict", "");
  bool known = false;
  for (Verdict v : {Verdict::kEquivalent, Verdict::kDivergent, Verdict::kInconclusive}) {
    if (verdict == verdict_name(v)) {
      r.verdict = v;
      known = true;
    }
  }
  if (!known) rd.fail("", "verdict", "'" + verdict + "' is not a verdict");

  const json::Array& bijection = rd.array(o, "bijection", "");
  for (size_t i = 0; i < bijection.size() && rd.error.empty(); ++i) {
    const json::Value& b = bijection[i];
    const std::string at = item("bijection", i);
    BijectionEntry e;
    e.dist = rd.str(b, "dist", at);
    e.ref = rd.str(b, "ref", at);
    e.dist_number = rd.integer_or(b, "dist_number", at, -1);
    e.ref_number = rd.integer_or(b, "ref_number", at, -1);
    e.layout = rd.layout(b, "text", at);
    e.why = rd.str(b, "why", at);
    e.reshape = rd.int_list_or_empty(b, "reshape", at);
    e.permutation = rd.int_list_or_empty(b, "permutation", at);
    r.bijection.push_back(std::move(e));
  }
  const json::Array& goals = rd.array(o, "goals", "");
  for (size_t i = 0; i < goals.size() && rd.error.empty(); ++i) {
    const json::Value& g = goals[i];
    const std::string at = item("goals", i);
    Goal goal;
    goal.ref = rd.str(g, "ref", at);
    goal.dist = rd.str(g, "dist", at);
    goal.index = rd.integer(g, "index", at);
    if (g.find("text")) goal.layout = rd.layout(g, "text", at);
    goal.proven = rd.boolean(g, "proven", at);
    if (!goal.proven) goal.why_not = rd.str(g, "why_not", at);
    goal.proof = rd.strings(g, "proof", at);
    if (const json::Value* f = g.find("fact"); f && !f->is_null()) {
      goal.fact = rd.count(g, "fact", at);
    }
    r.goals.push_back(std::move(goal));
  }
  const json::Array& assumptions = rd.array(o, "assumptions", "");
  for (size_t i = 0; i < assumptions.size() && rd.error.empty(); ++i) {
    const json::Value& a = assumptions[i];
    const std::string at = item("assumptions", i);
    Assumption assumption;
    assumption.dist = rd.str(a, "dist", at);
    assumption.layout = rd.layout(a, "layout", at);
    assumption.why = rd.str(a, "why", at);
    r.assumptions.push_back(std::move(assumption));
  }
  if (const json::Value* u = rd.member(o, "unmatched", "")) {
    r.unmatched_ref_outputs = rd.strings(*u, "ref_outputs", "unmatched");
    r.unmatched_dist_parameters = rd.strings(*u, "dist_parameters", "unmatched");
  }
  if (const json::Value* d = rd.member(o, "divergence", ""); d && !d->is_null()) {
    const std::string at = "divergence";
    Divergence div;
    div.dist_node = rd.str(*d, "dist_node", at);
    div.ref_node = rd.str_or_null(*d, "ref_node", at);
    div.op = rd.str(*d, "op", at);
    div.reason = rd.str(*d, "reason", at);
    if (d->find("by_value")) div.by_value = rd.boolean(*d, "by_value", at);
    div.operand_layouts = rd.strings(*d, "operand_layouts", at);
    div.op_name = rd.str(*d, "op_name", at);
    if (const json::Value* s = rd.member(*d, "source", at); s && !s->is_null()) {
      div.source =
          SourceSite{rd.str(*s, "file", at + ".source"), rd.integer(*s, "line", at + ".source")};
    }
    div.dist_line = rd.integer_or(*d, "dist_line", at, -1);
    div.ref_line = rd.integer_or(*d, "ref_line", at, -1);
    if (d->find("origin_node")) div.origin_node = rd.str_or_null(*d, "origin_node", at);
    r.divergence = std::move(div);
  }
  r.notes = rd.strings(o, "notes", "");
  if (const json::Value* s = rd.member(o, "stats", "")) {
    r.stats.seconds = rd.number(*s, "seconds", "stats");
    r.stats.parts = rd.count(*s, "parts", "stats");
    r.stats.memo_hits = rd.count(*s, "memo_hits", "stats");
    r.stats.enodes = rd.count(*s, "enodes", "stats");
    r.stats.eclasses = rd.count(*s, "eclasses", "stats");
    r.stats.iterations = rd.count(*s, "iterations", "stats");
    r.stats.facts = rd.count(*s, "facts", "stats");
    r.stats.stop_reason = rd.str(*s, "saturation", "stats");
  }
  // The facts in the order derived; every premise an earlier fact.
  if (o.find("derivation")) {
    const json::Array& facts = rd.array(o, "derivation", "");
    for (size_t i = 0; i < facts.size() && rd.error.empty(); ++i) {
      const json::Value& f = facts[i];
      const std::string at = item("derivation", i);
      DerivedFact fact;
      fact.index = r.derivation.size();
      fact.dist = rd.str(f, "dist", at);
      if (const json::Value* e = f.find("element"); e && !e->is_null()) {
        fact.element = rd.integer(f, "element", at);
      }
      fact.layout = rd.layout(f, "layout", at);
      fact.ref = rd.str_or_null(f, "ref", at);
      fact.eclass = rd.integer(f, "eclass", at);
      fact.rule = rd.str(f, "rule", at);
      const json::Array& premises = rd.array(f, "premises", at);
      for (const json::Value& p : premises) {
        if (!p.is_integer() || p.as_int() < 0 || static_cast<size_t>(p.as_int()) >= fact.index) {
          rd.fail(at, "premises", "expected indices of earlier facts");
          break;
        }
        fact.premises.push_back(static_cast<size_t>(p.as_int()));
      }
      fact.rewrites = rd.strings(f, "rewrites", at);
      if (const json::Value* c = f.find("control_flow"); c && !c->is_null()) {
        fact.control_flow =
            read_control_flow(rd, *c, at + ".control_flow", r.derivation, file_name);
      }
      r.derivation.push_back(std::move(fact));
    }
  }
  for (const Goal& g : r.goals) {
    if (g.fact && *g.fact >= r.derivation.size()) {
      rd.fail("goals", "fact", "names a fact the derivation does not have");
    }
  }
  if (o.find("matches")) {
    const json::Array& matches = rd.array(o, "matches", "");
    for (size_t i = 0; i < matches.size() && rd.error.empty(); ++i) {
      const std::string at = item("matches", i);
      NodeMatch m;
      m.dist = rd.str(matches[i], "dist", at);
      m.ref = rd.str(matches[i], "ref", at);
      m.layout = rd.layout(matches[i], "layout", at);
      r.matches.push_back(std::move(m));
    }
  }
  if (!rd.error.empty()) return error(rd.error);
  return r;
}

}  // namespace scalify::verify
