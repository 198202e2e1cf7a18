// Reference terms for the proof checker (reference_terms.h).
#include "proofcheck/reference_terms.h"

#include <algorithm>

#include "eval/literal.h"

namespace scalify::proofcheck {

namespace {

/// Attributes that say where or when a value is computed, or annotate it, but not what it is.
bool placement_only(std::string_view key) {
  static constexpr std::string_view kKeys[] = {"sharding",
                                               "frontend_attributes",
                                               "channel_id",
                                               "replica_groups",
                                               "use_global_device_ids",
                                               "statistics_viz",
                                               "schedule",
                                               "precision_config",
                                               "operand_precision",
                                               "api_version",
                                               "operand_layout_constraints",
                                               "metadata",
                                               "control-predecessors",
                                               "is_host_transfer",
                                               "origin"};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

std::string computation_text(const ir::Module& module, const ir::Computation& comp, int depth);

std::string attrs_text(const ir::Module& module, const ir::Instruction& instr, int depth) {
  std::vector<std::string> parts;
  for (const ir::Attribute& a : instr.attrs) {
    if (placement_only(a.key)) continue;
    // backend_config configures a custom call; elsewhere it tunes the backend only.
    if (a.key == "backend_config" && instr.opcode != ir::Opcode::kCustomCall) continue;
    if (const auto* refs = std::get_if<ir::ComputationRefs>(&a.value)) {
      std::string bodies;
      for (const std::string& name : refs->names) {
        const auto id = module.find_computation(name);
        bodies +=
            "{" +
            (id && depth < 8 ? computation_text(
                                   module, module.computations[static_cast<size_t>(*id)], depth + 1)
                             : name) +
            "}";
      }
      parts.push_back(a.key + "=" + bodies);
      continue;
    }
    parts.push_back(a.key + "=" + ir::attr_value_to_string(a.value));
  }
  if (instr.opcode == ir::Opcode::kConstant) parts.push_back("literal=" + instr.literal);
  if (instr.opcode == ir::Opcode::kParameter) {
    parts.push_back("number=" + std::to_string(instr.parameter_number));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

/// A called computation by what it computes: its instructions with operands by position.
std::string computation_text(const ir::Module& module, const ir::Computation& comp, int depth) {
  std::string out;
  for (size_t i = 0; i < comp.size(); ++i) {
    const ir::Instruction& in = comp[static_cast<ir::InstrId>(i)];
    out += in.opcode_text() + ":" + in.type.to_string(false) + "(";
    for (size_t k = 0; k < in.operands.size(); ++k) {
      out += (k ? "," : "") + std::to_string(in.operands[k]);
    }
    out += ")[" + attrs_text(module, in, depth) + "];";
  }
  return out + "root=" + std::to_string(comp.root);
}

/// The number a scalar constant holds (read as the reader's literal checks read it).
std::optional<double> scalar_literal(const ir::Instruction& instr) {
  if (instr.opcode != ir::Opcode::kConstant || instr.type.rank() != 0) return std::nullopt;
  auto value = eval::parse_literal(instr.literal, instr.type);
  if (!value || value->is_tuple() || value->tensor().data.size() != 1) return std::nullopt;
  return value->tensor().data[0];
}

std::string word_of(const ir::AttrValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* w = std::get_if<ir::Word>(&value)) return w->text;
  return ir::attr_value_to_string(value);
}

}  // namespace

std::vector<IdentityRule> identity_rules(const rules::RuleFile& file) {
  using K = rules::Term::Kind;
  std::vector<IdentityRule> out;
  for (const rules::Rule& r : file.rules) {
    if (r.kind != rules::Rule::Kind::kRewrite || !r.guards.empty()) continue;
    const rules::Term& l = r.lhs;
    if (l.kind != K::kApply || l.args.size() != 1 || l.args[0].kind != K::kVar) continue;
    if (r.rhs.kind != K::kVar || r.rhs.name != l.args[0].name) continue;
    IdentityRule rule{r.name, l.name, {}};
    bool constant = true;
    for (const rules::Term::Attr& a : l.attrs) {
      if (a.value.kind != K::kWord && a.value.kind != K::kString) constant = false;
      rule.attrs.emplace_back(a.key, a.value.name);
    }
    if (constant) out.push_back(std::move(rule));
  }
  return out;
}

namespace {

/// A bitcast that reinterprets its buffer in another element order (ir::bitcast_is_reshape).
bool moves_elements(const ir::Module& module, const ir::Instruction& instr) {
  if (instr.opcode != ir::Opcode::kBitcast) return false;
  const ir::Computation& entry = module.entry();
  return instr.operands.size() != 1 || instr.operands[0] < 0 ||
         static_cast<size_t>(instr.operands[0]) >= entry.size() ||
         !ir::bitcast_is_reshape(entry[instr.operands[0]].type, instr.type);
}

}  // namespace

std::string canonical_attrs(const ir::Module& module, const ir::Instruction& instr) {
  std::string text = attrs_text(module, instr, 0);
  if (moves_elements(module, instr)) {
    // What it computes depends on both layouts.
    const auto o = instr.operands.empty() ? -1 : instr.operands[0];
    text += (text.empty() ? "" : ",") + std::string("from=") +
            (o >= 0 && static_cast<size_t>(o) < module.entry().size()
                 ? module.entry()[o].type.to_string(true)
                 : std::string("?")) +
            ",to=" + instr.type.to_string(true);
  }
  return text;
}

std::string term_op(const ir::Module& module, const ir::Instruction& instr) {
  if (instr.opcode == ir::Opcode::kBitcast && !moves_elements(module, instr)) return "reshape";
  return instr.opcode_text();
}

std::optional<TermId> TermTable::xla_identity(const std::string& op, const std::string& attrs,
                                              const ir::Type& type, const std::vector<TermId>& args,
                                              const ir::Instruction* instr) const {
  if (args.size() != 1) return std::nullopt;
  const Term& x = terms_[args[0]];
  // A slice that takes back exactly the value a gather padded.
  if (op == "slice" && x.op == "padded" && instr) {
    const Term& inner = terms_[x.args[0]];
    const auto* ranges = instr->get<std::vector<ir::SliceRange>>("slice");
    if (!ranges || !inner.type.same_dims(type) ||
        ranges->size() != static_cast<size_t>(type.rank())) {
      return std::nullopt;
    }
    for (int64_t k = 0; k < type.rank(); ++k) {
      if (!((*ranges)[static_cast<size_t>(k)] == ir::SliceRange{0, type.dim(k), 1})) {
        return std::nullopt;
      }
    }
    return x.args[0];
  }
  // XLA's semantics: these ops return their operand when the type does not change.
  if (!x.type.compatible(type)) return std::nullopt;
  if (op == "convert" || op == "copy" || op == "reshape" || op == "bitcast-convert") {
    return args[0];
  }
  if (op == "transpose" || op == "broadcast") {
    std::string identity = "dimensions={";
    for (int64_t k = 0; k < type.rank(); ++k) identity += (k ? "," : "") + std::to_string(k);
    if (attrs == identity + "}") return args[0];
  }
  return std::nullopt;
}

const IdentityRule* TermTable::identity_for(const ir::Instruction& instr) const {
  for (const IdentityRule& rule : identities_) {
    if (rule.op != instr.opcode_text() || instr.operands.size() != 1) continue;
    const bool all = std::all_of(rule.attrs.begin(), rule.attrs.end(), [&](const auto& kv) {
      const ir::Attribute* a = instr.attr(kv.first);
      return a && word_of(a->value) == kv.second;
    });
    if (all) return &rule;
  }
  return nullptr;
}

TermId TermTable::intern(const std::string& op, const std::string& attrs, const ir::Type& type,
                         std::vector<TermId> args, const ir::Instruction* instr) {
  if (auto same = xla_identity(op, attrs, type, args, instr)) {
    ++used_["xla:" + op + "-identity"];
    return *same;
  }
  if (instr && args.size() == 1) {
    if (const IdentityRule* rule = identity_for(*instr)) {
      if (terms_[args[0]].type.compatible(type)) {
        ++used_[rule->name];
        return args[0];
      }
    }
  }
  if (auto pulled = pull_factor(op, attrs, type, args, instr)) return *pulled;
  if (auto same = guarded_nonzero(op, args)) {
    ++used_["assumed-nonzero"];
    return *same;
  }
  if (auto normal = normal_form(op, attrs, type, args, instr)) return *normal;
  // Exact in IEEE and two's-complement arithmetic alike: -(-x) is x, and a commutative op's
  // operands may come in either order (kept in one canonical order).
  if (op == "negate" && args.size() == 1 && terms_[args[0]].op == "negate" &&
      terms_[args[0]].args.size() == 1) {
    ++used_["double-negation"];
    return terms_[args[0]].args[0];
  }
  const bool commutative = op == "add" || op == "multiply" || op == "maximum" || op == "minimum" ||
                           op == "and" || op == "or" || op == "xor";
  if (commutative && args.size() == 2 && args[1] < args[0]) {
    ++used_["commutativity"];
    std::swap(args[0], args[1]);
  }
  std::optional<double> splat = instr ? scalar_literal(*instr) : std::nullopt;
  if (op == "broadcast" && args.size() == 1 && terms_[args[0]].type.rank() == 0) {
    splat = terms_[args[0]].splat;
  }
  return raw(op, attrs, type, std::move(args), splat);
}

TermId TermTable::raw(const std::string& op, const std::string& attrs, const ir::Type& type,
                      std::vector<TermId> args, std::optional<double> splat) {
  std::string key = op + '\x1f' + attrs + '\x1f' + type.to_string(false);
  for (TermId a : args) key += '\x1f' + std::to_string(a);
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  const auto id = static_cast<TermId>(terms_.size());
  terms_.push_back(Term{op, attrs, type, std::move(args), splat});
  index_.emplace(std::move(key), id);
  return id;
}

TermId TermTable::of_node(const ir::Module& module, ir::InstrId id) {
  const ir::Computation& comp = module.entry();
  auto& memo = nodes_[&module];
  if (memo.empty()) memo.resize(comp.size());
  // Iteratively, operands first: programs are deep.
  std::vector<ir::InstrId> stack{id};
  while (!stack.empty()) {
    const ir::InstrId top = stack.back();
    if (memo[static_cast<size_t>(top)]) {
      stack.pop_back();
      continue;
    }
    const ir::Instruction& instr = comp[top];
    bool ready = true;
    for (ir::InstrId o : instr.operands) {
      if (!memo[static_cast<size_t>(o)]) {
        stack.push_back(o);
        ready = false;
      }
    }
    if (!ready) continue;
    std::vector<TermId> args;
    for (ir::InstrId o : instr.operands) args.push_back(*memo[static_cast<size_t>(o)]);
    if (instr.opcode == ir::Opcode::kBitcast && args.size() == 1) {
      if (auto moved = bitcast(args[0], comp[instr.operands[0]].type, instr.type)) {
        memo[static_cast<size_t>(top)] = *moved;
        stack.pop_back();
        continue;
      }
    }
    memo[static_cast<size_t>(top)] = intern(term_op(module, instr), canonical_attrs(module, instr),
                                            instr.type, std::move(args), &instr);
    stack.pop_back();
  }
  return *memo[static_cast<size_t>(id)];
}

std::optional<TermId> TermTable::bitcast(TermId x, const ir::Type& from, const ir::Type& to) {
  const auto steps = ir::bitcast_steps(from, to);
  if (!steps) return std::nullopt;
  auto permutation = [](const std::vector<int64_t>& p) {
    std::string text = "dimensions={";
    for (size_t k = 0; k < p.size(); ++k) text += (k ? "," : "") + std::to_string(p[k]);
    return text + "}";
  };
  std::vector<int64_t> memory_in;
  for (int64_t d : steps->to_memory) memory_in.push_back(from.dim(d));
  TermId t = intern("transpose", permutation(steps->to_memory),
                    ir::Type::array(to.dtype(), memory_in), {x});
  t = intern("reshape", "", ir::Type::array(to.dtype(), steps->memory_dims), {t});
  return intern("transpose", permutation(steps->from_memory),
                ir::Type::array(to.dtype(), to.dims()), {t});
}

TermId TermTable::resized_splat(TermId splat, const std::vector<int64_t>& dims) {
  const Term& t = terms_[splat];
  if (t.type.rank() == 0 || t.type.dims() == dims) return splat;
  ir::Type type = t.type;
  type.set_dims(dims);
  // A broadcast of the scalar, as the reference writes a splat.
  const TermId scalar = t.args.empty() ? splat : t.args[0];
  return intern("broadcast", "dimensions={}", type, {scalar});
}

std::string TermTable::describe(TermId id) const {
  const Term& t = terms_[id];
  std::string out = t.op + "(" + t.type.to_string(false);
  for (TermId a : t.args) out += " #" + std::to_string(a);
  return out + ")";
}

}  // namespace scalify::proofcheck
