#include "verify/spec.h"

#include <cctype>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <utility>

#include "support/json.h"
#include "support/read_file.h"

namespace scalify::verify {

namespace {

using json::Value;

/// Where a JSON value and its parts start in the text: the spec's diagnostics point there.
struct Located {
  struct Member;
  SourcePos pos;
  std::vector<Member> members;    ///< objects, in text order
  std::vector<Located> elements;  ///< arrays
  const Located* member(std::string_view key) const;
  /// Where the key `key` starts (the object's position if absent).
  SourcePos key_pos(std::string_view key) const;
};
struct Located::Member {
  std::string key;
  SourcePos key_pos;
  Located value;
};
const Located* Located::member(std::string_view key) const {
  for (const Member& m : members) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}
SourcePos Located::key_pos(std::string_view key) const {
  for (const Member& m : members) {
    if (m.key == key) return m.key_pos;
  }
  return pos;
}

/// Walks JSON text that json::parse has accepted, recording positions (1-based line and byte
/// column, as json::parse reports them).
class JsonLocator {
 public:
  explicit JsonLocator(std::string_view text) : s_(text) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") advance(3);
  }
  Located value() {
    space();
    Located v{here(), {}, {}};
    if (at('{')) {
      advance(1);
      space();
      while (!at('}')) {
        space();
        const SourcePos key_pos = here();
        const std::string_view raw = string();
        const Expected<Value> key = json::parse(raw);
        space();
        advance(1);  // ':'
        Located child = value();
        v.members.push_back({key && key->is_string() ? key->as_string() : std::string(raw), key_pos,
                             std::move(child)});
        space();
        if (at(',')) advance(1);
      }
      advance(1);
    } else if (at('[')) {
      advance(1);
      space();
      while (!at(']')) {
        v.elements.push_back(value());
        space();
        if (at(',')) advance(1);
      }
      advance(1);
    } else if (at('"')) {
      string();
    } else {
      while (i_ < s_.size() &&
             std::string_view(",]} \t\r\n").find(s_[i_]) == std::string_view::npos) {
        advance(1);
      }
    }
    return v;
  }

 private:
  bool at(char c) const { return i_ < s_.size() ? s_[i_] == c : true; }
  SourcePos here() const { return {line_, col_}; }
  void advance(size_t n) {
    for (; n > 0 && i_ < s_.size(); --n, ++i_) {
      if (s_[i_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }
  void space() {
    while (i_ < s_.size() && std::string_view(" \t\r\n").find(s_[i_]) != std::string_view::npos) {
      advance(1);
    }
  }
  /// A string literal, quotes included.
  std::string_view string() {
    const size_t start = i_;
    advance(1);
    while (i_ < s_.size() && s_[i_] != '"') advance(s_[i_] == '\\' ? 2 : 1);
    advance(1);
    return s_.substr(start, i_ - start);
  }

  std::string_view s_;
  size_t i_ = 0;
  uint32_t line_ = 1, col_ = 1;
};

std::string axis_list(const Mesh& mesh) {
  if (mesh.rank() == 0) return "the mesh is one device, with no axes";
  std::string names;
  for (const MeshAxis& a : mesh.axes()) names += (names.empty() ? "" : ", ") + a.name;
  return "the mesh has " + names;
}

std::string unknown_axis_message(const std::string& axis, const Mesh& mesh, bool spec_has_mesh) {
  std::string message = "unknown axis '" + axis + "' (" + axis_list(mesh) + ")";
  if (!spec_has_mesh && mesh.rank() == 0) message += ": give the spec a \"mesh\"";
  return message;
}

/// Why Layout::parse rejected `text`: an unknown axis, or the syntax.
std::string bad_layout_message(const std::string& text, const Mesh& mesh, bool spec_has_mesh) {
  // The words after a ',' that are not numbers or `pad …` are axis names.
  for (size_t comma = text.find(','); comma != std::string::npos;
       comma = text.find(',', comma + 1)) {
    size_t b = comma + 1;
    while (b < text.size() && text[b] == ' ') ++b;
    size_t e = b;
    while (e < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[e])) != 0 || text[e] == '_')) {
      ++e;
    }
    const std::string word = text.substr(b, e - b);
    if (word.empty() || std::isdigit(static_cast<unsigned char>(word[0])) != 0 || word == "pad") {
      continue;
    }
    if (!mesh.find(word)) {
      return unknown_axis_message(word, mesh, spec_has_mesh) + " in layout '" + text + "'";
    }
  }
  return "bad layout '" + text +
         "': write rep, shard(DIM,AXIS), shard(DIM,AXIS,pad FULL) or partial(OP,AXIS), parts "
         "joined by '+', each axis at most once";
}

/// Reads the members of a spec, turning shape errors into positioned diagnostics. Each read
/// function returns nullopt when all is well, else the error.
class SpecReader {
 public:
  explicit SpecReader(Spec& spec) : spec_(spec) {}

  std::optional<Diagnostic> document(const Value& v, const Located& at,
                                     const Mesh* mesh_if_absent) {
    if (!v.is_object()) {
      return error(at.pos, "a spec is a JSON object: {\"mesh\": {…}, \"parameters\": […], …}");
    }
    if (auto e = unknown_keys(at, {"mesh", "mesh_devices", "parameters", "outputs", "strict"})) {
      return e;
    }
    if (const Value* mesh = v.find("mesh")) {
      if (auto e = read_mesh(*mesh, *at.member("mesh"))) return e;
    }
    if (const Value* devices = v.find("mesh_devices")) {
      if (auto e = read_device_order(*devices, *at.member("mesh_devices"))) return e;
    }
    spec_.layout_mesh = spec_.mesh ? *spec_.mesh : mesh_if_absent ? *mesh_if_absent : Mesh();
    if (const Value* strict = v.find("strict")) {
      if (!strict->is_bool()) return error(at.member("strict")->pos, "\"strict\" is true or false");
      spec_.strict = strict->as_bool();
    }
    if (const Value* params = v.find("parameters")) {
      const Located& where = *at.member("parameters");
      if (!params->is_array()) return error(where.pos, "\"parameters\" is an array of objects");
      for (size_t i = 0; i < params->size(); ++i) {
        if (auto e = read_parameter((*params)[i], where.elements[i])) return e;
      }
    }
    if (const Value* outputs = v.find("outputs")) {
      const Located& where = *at.member("outputs");
      if (!outputs->is_array()) return error(where.pos, "\"outputs\" is an array of objects");
      for (size_t i = 0; i < outputs->size(); ++i) {
        if (auto e = read_output((*outputs)[i], where.elements[i])) return e;
      }
    }
    return std::nullopt;
  }

 private:
  Diagnostic error(SourcePos pos, std::string message) const {
    return spec_.error_at(pos, std::move(message));
  }

  std::optional<Diagnostic> unknown_keys(const Located& at,
                                         std::initializer_list<std::string_view> known) const {
    for (const Located::Member& m : at.members) {
      bool ok = false;
      std::string list;
      for (std::string_view k : known) {
        ok = ok || m.key == k;
        list += (list.empty() ? "" : ", ") + std::string(k);
      }
      if (!ok) return error(m.key_pos, "unknown key '" + m.key + "' (expected " + list + ")");
    }
    return std::nullopt;
  }

  std::optional<Diagnostic> read_mesh(const Value& v, const Located& at) {
    spec_.mesh_pos = at.pos;
    if (!v.is_object()) return error(at.pos, "\"mesh\" maps axis names to sizes: {\"tp\": 8}");
    std::vector<MeshAxis> axes;
    size_t i = 0;
    for (const auto& [name, size] : v.as_object()) {
      const Located::Member& m = at.members[i++];
      if (!size.is_integer() || size.as_int() < 1) {
        return error(m.value.pos, "the size of axis '" + name + "' must be a whole number from 1");
      }
      // Mesh::parse checks the name and the size's range.
      auto checked = Mesh::parse(name + "=" + std::to_string(size.as_int()));
      if (!checked) return error(m.key_pos, checked.error().message);
      axes.push_back(checked->axes()[0]);
    }
    spec_.mesh = Mesh(std::move(axes));
    return std::nullopt;
  }

  /// `"mesh_devices": [3, 2, 1, 0]`: the device at each position of the spec's mesh.
  std::optional<Diagnostic> read_device_order(const Value& v, const Located& at) {
    if (!spec_.mesh) return error(at.pos, "\"mesh_devices\" orders the devices of a \"mesh\"");
    std::vector<int64_t> order;
    for (size_t i = 0; v.is_array() && i < v.size(); ++i) {
      if (!v[i].is_integer()) break;
      order.push_back(v[i].as_int());
    }
    std::optional<Mesh> ordered;
    if (v.is_array() && order.size() == v.size()) ordered = spec_.mesh->with_device_order(order);
    if (!ordered) {
      return error(at.pos, "\"mesh_devices\" lists each of the mesh's " +
                               std::to_string(spec_.mesh->device_count()) +
                               " devices once, in the order of their positions: [3, 2, 1, 0]");
    }
    spec_.mesh = std::move(*ordered);
    return std::nullopt;
  }

  std::optional<Diagnostic> read_param_ref(const Value& v, const Located& at, std::string_view key,
                                           SpecParamRef& out) const {
    out.pos = at.pos;
    if (v.is_string() && !v.as_string().empty()) {
      out.name = v.as_string();
      if (out.name[0] == '%') out.name.erase(0, 1);
      return std::nullopt;
    }
    if (v.is_integer() && v.as_int() >= 0) {
      out.number = v.as_int();
      return std::nullopt;
    }
    return error(at.pos,
                 std::string("\"").append(key) +
                     "\" names a parameter: its instruction name (\"p7.28\") or number (7)");
  }

  std::optional<Diagnostic> read_parameter(const Value& v, const Located& at) {
    if (!v.is_object()) {
      return error(at.pos, "a parameter entry is an object: {\"dist\": \"p7.28\", \"ref\": …}");
    }
    if (auto e = unknown_keys(at, {"dist", "ref", "layout", "dim", "axis", "op", "pad"})) {
      return e;
    }
    SpecParameter p;
    p.pos = at.pos;
    const Value* dist = v.find("dist");
    if (!dist) return error(at.pos, "a parameter entry needs \"dist\": the distributed parameter");
    if (auto e = read_param_ref(*dist, *at.member("dist"), "dist", p.dist)) return e;
    if (const Value* ref = v.find("ref")) {
      if (ref->is_null()) {
        p.no_ref = true;
      } else {
        p.ref.emplace();
        if (auto e = read_param_ref(*ref, *at.member("ref"), "ref", *p.ref)) return e;
      }
    }
    if (auto e = read_layout(v, at, p.layout, p.layout_pos)) return e;
    if (p.no_ref && p.layout && !p.layout->is_rep()) {
      return error(p.layout_pos, "a parameter with \"ref\": null has no layout");
    }
    for (const SpecParameter& q : spec_.parameters) {
      if (q.dist.name == p.dist.name && q.dist.number == p.dist.number) {
        return error(p.dist.pos, "parameter " + p.dist.to_string() + " is already described at " +
                                     std::to_string(q.pos.line) + ":" + std::to_string(q.pos.col));
      }
    }
    spec_.parameters.push_back(std::move(p));
    return std::nullopt;
  }

  std::optional<Diagnostic> read_output(const Value& v, const Located& at) {
    if (!v.is_object()) {
      return error(at.pos, "an output entry is an object: {\"ref_index\": 0, \"dist_index\": 0}");
    }
    if (auto e =
            unknown_keys(at, {"ref_index", "dist_index", "layout", "dim", "axis", "op", "pad"})) {
      return e;
    }
    SpecOutput o;
    o.pos = at.pos;
    const Value* ref_index = v.find("ref_index");
    if (!ref_index || !ref_index->is_integer() || ref_index->as_int() < 0) {
      return error(ref_index ? at.member("ref_index")->pos : at.pos,
                   "an output entry needs \"ref_index\": an index into the reference's results");
    }
    o.ref_index = ref_index->as_int();
    const Value* dist_index = v.find("dist_index");
    if (!dist_index ||
        !(dist_index->is_null() || (dist_index->is_integer() && dist_index->as_int() >= 0))) {
      return error(dist_index ? at.member("dist_index")->pos : at.pos,
                   "an output entry needs \"dist_index\": an index into the distributed program's "
                   "results, or null");
    }
    if (!dist_index->is_null()) o.dist_index = dist_index->as_int();
    if (auto e = read_layout(v, at, o.layout, o.layout_pos)) return e;
    spec_.outputs.push_back(std::move(o));
    return std::nullopt;
  }

  /// "layout" with its structured companions "dim", "axis", "op" and "pad".
  std::optional<Diagnostic> read_layout(const Value& v, const Located& at,
                                        std::optional<Layout>& out, SourcePos& out_pos) const {
    const Value* layout = v.find("layout");
    if (!layout) {
      for (std::string_view k : {"dim", "axis", "op", "pad"}) {
        if (v.find(k)) {
          return error(at.key_pos(k),
                       "\"" + std::string(k) + "\" describes a layout: add \"layout\"");
        }
      }
      return std::nullopt;
    }
    const Located& where = *at.member("layout");
    out_pos = where.pos;
    if (!layout->is_string()) {
      return error(where.pos, "\"layout\" is a string: \"rep\", \"shard(1,tp)\", \"shard\" …");
    }
    const Mesh& mesh = spec_.layout_mesh;
    const std::string& text = layout->as_string();
    const bool structured = text == "shard" || text == "partial";
    if (!structured) {
      for (std::string_view k : {"dim", "axis", "op", "pad"}) {
        if (v.find(k)) {
          return error(at.key_pos(k), "\"" + std::string(k) +
                                          "\" goes with \"layout\": \"shard\" or "
                                          "\"partial\", not with a written-out layout");
        }
      }
      out = Layout::parse(text, mesh);
      if (!out) return error(where.pos, bad_layout_message(text, mesh, spec_.mesh.has_value()));
      return std::nullopt;
    }
    // The structured form.
    const Value* axis = v.find("axis");
    if (!axis || !axis->is_string()) {
      return error(axis ? at.member("axis")->pos : where.pos,
                   "\"layout\": \"" + text + "\" needs \"axis\": a mesh axis name");
    }
    const std::optional<size_t> a = mesh.find(axis->as_string());
    if (!a) {
      return error(at.member("axis")->pos,
                   unknown_axis_message(axis->as_string(), mesh, spec_.mesh.has_value()));
    }
    AxisLayout part;
    if (text == "shard") {
      if (v.find("op")) return error(at.key_pos("op"), "\"op\" goes with \"partial\"");
      const Value* dim = v.find("dim");
      if (!dim || !dim->is_integer() || dim->as_int() < 0 || dim->as_int() > (1 << 20)) {
        return error(dim ? at.member("dim")->pos : where.pos,
                     "\"layout\": \"shard\" needs \"dim\": the sharded dimension (from 0)");
      }
      part = AxisLayout::shard(static_cast<int32_t>(dim->as_int()));
      if (const Value* pad = v.find("pad")) {
        if (!pad->is_integer() || pad->as_int() < 1) {
          return error(at.member("pad")->pos,
                       "\"pad\" is the reference extent of the padded dimension (from 1)");
        }
        part.full = pad->as_int();
      }
    } else {
      for (std::string_view k : {"dim", "pad"}) {
        if (v.find(k)) {
          return error(at.key_pos(k), "\"" + std::string(k) + "\" goes with \"shard\"");
        }
      }
      ReduceOp op = ReduceOp::kSum;
      if (const Value* op_value = v.find("op")) {
        const auto parsed = op_value->is_string() ? parse_reduce_op(op_value->as_string())
                                                  : std::optional<ReduceOp>();
        if (!parsed) {
          return error(at.member("op")->pos,
                       "\"op\" is one of \"sum\", \"max\", \"min\", \"product\", \"mean\"");
        }
        op = *parsed;
      }
      part = AxisLayout::partial(op);
    }
    out = Layout::on(mesh, *a, part);
    return std::nullopt;
  }

  Spec& spec_;
};

std::string dims_text(const ir::Type& t) { return t.to_string(false); }

/// The ENTRY result's elements: its tuple elements, or the result itself.
std::vector<ir::Type> result_types(const ir::Module& m) {
  const ir::Computation& entry = m.entry();
  if (entry.root < 0) return {};
  const ir::Type& t = entry[entry.root].type;
  if (t.is_tuple()) return t.elements();
  return {t};
}

}  // namespace

std::string layout_misfit(const Layout& layout, const ir::Type& dist, const ir::Type& ref,
                          const Mesh& mesh) {
  if (layout.axes.size() != mesh.rank()) return "the layout was read against another mesh";
  if (!dist.is_array() || !ref.is_array()) {
    if (layout.is_rep() && dist.compatible(ref)) return "";
    return "only equal types relate through a non-array value, by rep";
  }
  if (dist.dtype() != ref.dtype()) {
    return "the element types differ (" + dims_text(dist) + " and " + dims_text(ref) + ")";
  }
  const auto dims = layout.reference_dims(dist.dims(), mesh);
  if (!dims) return "the layout does not fit " + dims_text(dist);
  if (*dims != ref.dims()) {
    return "the layout makes " + dims_text(dist) + " a " +
           dims_text(ir::Type::array(ref.dtype(), *dims)) + ", not " + dims_text(ref);
  }
  return "";
}

std::string SpecParamRef::to_string() const {
  return name.empty() ? "parameter " + std::to_string(number) : "'" + name + "'";
}

std::optional<ir::InstrId> SpecParamRef::resolve(const ir::Computation& entry) const {
  if (name.empty()) {
    const std::vector<ir::InstrId> params = entry.parameters();
    if (number < 0 || static_cast<size_t>(number) >= params.size()) return std::nullopt;
    const ir::InstrId id = params[static_cast<size_t>(number)];
    return id < 0 ? std::nullopt : std::optional<ir::InstrId>(id);
  }
  const std::optional<ir::InstrId> id = entry.find(name);
  if (!id || entry[*id].opcode != ir::Opcode::kParameter) return std::nullopt;
  return id;
}

Diagnostic Spec::error_at(SourcePos pos, std::string message) const {
  return Diagnostic{file, pos, std::move(message), std::string(line_of(text, pos.line))};
}

Expected<Spec> parse_spec(std::string_view text, std::string_view file_name,
                          const Mesh* mesh_if_absent) {
  Expected<json::Value> value = json::parse(text, file_name);
  if (!value) return value.error();
  Spec spec;
  spec.file = std::string(file_name);
  spec.text = std::string(text);
  const Located where = JsonLocator(text).value();
  if (auto e = SpecReader(spec).document(*value, where, mesh_if_absent)) return *e;
  return spec;
}

Expected<Spec> read_spec(const std::string& path, const Mesh* mesh_if_absent) {
  std::string why;
  const std::optional<std::string> text = read_whole_file(path, &why);
  if (!text) return Diagnostic{path, {}, why + " (the spec)", ""};
  return parse_spec(*text, path, mesh_if_absent);
}

std::optional<Diagnostic> check_spec(const Spec& spec, const ir::Module& ref,
                                     const ir::Module& dist, const Mesh& mesh) {
  if (spec.mesh && *spec.mesh != mesh) {
    return spec.error_at(spec.mesh_pos, "the spec's mesh " + spec.mesh->to_string() +
                                            " is not the mesh in use, " + mesh.to_string());
  }
  if (spec.layout_mesh != mesh) {
    for (const SpecParameter& p : spec.parameters) {
      if (!p.layout) continue;
      return spec.error_at(p.layout_pos, "the layout was read against the mesh " +
                                             spec.layout_mesh.to_string() +
                                             ", not the mesh in use " + mesh.to_string());
    }
    for (const SpecOutput& o : spec.outputs) {
      if (!o.layout) continue;
      return spec.error_at(o.layout_pos, "the layout was read against the mesh " +
                                             spec.layout_mesh.to_string() +
                                             ", not the mesh in use " + mesh.to_string());
    }
  }
  const ir::Computation& ref_entry = ref.entry();
  const ir::Computation& dist_entry = dist.entry();
  const auto missing = [&](const SpecParamRef& r, std::string_view program) {
    return spec.error_at(
        r.pos, "the " + std::string(program) + " program has no parameter " + r.to_string());
  };
  std::vector<std::pair<ir::InstrId, SourcePos>> seen_dist, seen_ref;
  const auto twice = [&](auto& seen, ir::InstrId id, SourcePos pos) -> std::optional<SourcePos> {
    for (const auto& [other, other_pos] : seen) {
      if (other == id) return other_pos;
    }
    seen.emplace_back(id, pos);
    return std::nullopt;
  };
  for (const SpecParameter& p : spec.parameters) {
    const std::optional<ir::InstrId> d = p.dist.resolve(dist_entry);
    if (!d) return missing(p.dist, "distributed");
    if (auto first = twice(seen_dist, *d, p.dist.pos)) {
      return spec.error_at(p.dist.pos, "'" + dist_entry[*d].name + "' is already described at " +
                                           std::to_string(first->line) + ":" +
                                           std::to_string(first->col));
    }
    if (!p.ref) continue;
    const std::optional<ir::InstrId> r = p.ref->resolve(ref_entry);
    if (!r) return missing(*p.ref, "reference");
    if (auto first = twice(seen_ref, *r, p.ref->pos)) {
      return spec.error_at(p.ref->pos, "reference parameter '" + ref_entry[*r].name +
                                           "' already stands for another (at " +
                                           std::to_string(first->line) + ":" +
                                           std::to_string(first->col) + ")");
    }
    if (!p.layout) continue;
    const std::string why = layout_misfit(*p.layout, dist_entry[*d].type, ref_entry[*r].type, mesh);
    if (!why.empty()) {
      return spec.error_at(p.layout_pos, "layout " + p.layout->to_string(mesh) +
                                             " cannot relate '" + dist_entry[*d].name + "' to '" +
                                             ref_entry[*r].name + "': " + why);
    }
  }
  const std::vector<ir::Type> ref_results = result_types(ref), dist_results = result_types(dist);
  for (const SpecOutput& o : spec.outputs) {
    if (static_cast<size_t>(o.ref_index) >= ref_results.size()) {
      return spec.error_at(o.pos, "the reference program has " +
                                      std::to_string(ref_results.size()) + " result(s): no index " +
                                      std::to_string(o.ref_index));
    }
    if (!o.dist_index) continue;
    if (static_cast<size_t>(*o.dist_index) >= dist_results.size()) {
      return spec.error_at(o.pos, "the distributed program has " +
                                      std::to_string(dist_results.size()) +
                                      " result(s): no index " + std::to_string(*o.dist_index));
    }
    if (!o.layout) continue;
    const std::string why =
        layout_misfit(*o.layout, dist_results[static_cast<size_t>(*o.dist_index)],
                      ref_results[static_cast<size_t>(o.ref_index)], mesh);
    if (!why.empty()) {
      return spec.error_at(o.layout_pos, "layout " + o.layout->to_string(mesh) +
                                             " cannot relate the outputs: " + why);
    }
  }
  return std::nullopt;
}

}  // namespace scalify::verify
