#include "verify/check_json.h"

namespace scalify::verify {

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

json::Value to_json(const CheckResult& r) {
  json::Object o;
  o["verdict"] = std::string(verdict_name(r.verdict));
  json::Object mesh;
  for (const MeshAxis& a : r.mesh.axes()) mesh[a.name] = a.size;
  o["mesh"] = std::move(mesh);
  json::Array bijection;
  for (const BijectionEntry& e : r.bijection) {
    json::Object b;
    b["dist"] = e.dist;
    b["ref"] = e.ref;
    for (auto& [k, v] : layout_fields(e.layout, r.mesh)) b[k] = v;
    b["why"] = e.why;
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
    j["op_name"] = d.op_name;
    if (d.source) {
      j["source"]["file"] = d.source->file;
      j["source"]["line"] = d.source->line;
    } else {
      j["source"] = nullptr;
    }
    o["divergence"] = std::move(j);
  } else {
    o["divergence"] = nullptr;
  }
  json::Array derivation;
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
  return o;
}

}  // namespace scalify::verify
