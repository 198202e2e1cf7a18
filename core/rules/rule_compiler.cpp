#include "rules/rule_compiler.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <unordered_map>

#include "egraph/pattern.h"
#include "rules/attr_expr.h"
#include "support/ids_hash.h"

namespace scalify::rules {
namespace {

using egraph::AttrValue;
using egraph::ClassId;
using egraph::EGraph;
using egraph::Pattern;
using egraph::Vocabulary;

/// An attribute of a pattern node: a literal, an attribute variable, or (right-hand side only)
/// a call of an attribute function.
struct AttrSpec {
  std::string key;
  std::optional<AttrValue> literal;
  uint32_t var = 0;              ///< when neither literal nor expr
  std::optional<AttrExpr> expr;  ///< `(compose ?p ?q)`: computed per match
};

/// A pattern node whose payload is bound to payload variable `payload_var` and then checked
/// (left-hand side) or built (right-hand side) attribute by attribute.
struct AttrNode {
  uint32_t payload_var = 0;
  std::vector<AttrSpec> attrs;
  bool constant = false;  ///< `(constant :value …)`: built as the numeric constant's payload
  /// Right-hand side: the left-hand side payload variable whose matched payload has exactly
  /// these attributes (`(reshape ?x :shape ?s)` on both sides), taken as it is rather than
  /// built and interned again per match.
  std::optional<uint32_t> copy_of;
};

/// Whether right-hand side node `rhs` has the attributes that left-hand side node `lhs` matched:
/// the same keys, each the same literal or the same variable.
bool same_attributes(const AttrNode& rhs, const AttrNode& lhs) {
  if (rhs.constant || lhs.constant || rhs.attrs.size() != lhs.attrs.size()) return false;
  return std::all_of(rhs.attrs.begin(), rhs.attrs.end(), [&](const AttrSpec& r) {
    return !r.expr && std::any_of(lhs.attrs.begin(), lhs.attrs.end(), [&](const AttrSpec& l) {
      return l.key == r.key && l.literal == r.literal && (r.literal || l.var == r.var);
    });
  });
}

/// The attribute variables' values in one match.
using AttrEnv = std::vector<const AttrValue*>;

/// A compiled guard: a test of the matched classes (not-zero, distinct…), or an attribute guard,
/// which reads only the match's attribute values and its operands' types.
struct Guard {
  std::function<bool(const EGraph&, std::span<const uint32_t> row)> on_classes;
  std::optional<AttrExpr> on_attributes;
};

/// The operand variables whose types `e` reads, added to `out`.
void add_typed_vars(const AttrExpr& e, std::vector<uint32_t>& out) {
  if (e.kind == AttrExpr::Kind::kClassVar &&
      std::find(out.begin(), out.end(), e.var) == out.end()) {
    out.push_back(e.var);
  }
  for (const AttrExpr& a : e.args) add_typed_vars(a, out);
}

/// What attribute expressions read from one match: its attribute values and its classes' types.
class MatchScope final : public AttrScope {
 public:
  MatchScope(const EGraph& g, std::span<const uint32_t> row, const AttrEnv& env,
             const TypeLookup& types)
      : g_(g), row_(row), env_(env), types_(types) {}
  const AttrValue* attr(uint32_t var) const override {
    return var < env_.size() ? env_[var] : nullptr;
  }
  std::optional<ir::Type> type(uint32_t var) const override {
    if (!types_ || var >= row_.size()) return std::nullopt;
    return types_(g_.type_of(row_[var]));
  }

 private:
  const EGraph& g_;
  std::span<const uint32_t> row_;
  const AttrEnv& env_;
  const TypeLookup& types_;
};

/// What a compiled rule needs at match time; shared by its guard and its action.
struct Shape {
  uint32_t class_vars = 0;        ///< row[0, class_vars) are classes
  uint32_t lhs_payload_vars = 0;  ///< then the payload variables of the left-hand side
  uint32_t attr_vars = 0;
  std::vector<AttrNode> lhs_attrs;  ///< checked against the matched payloads
  std::vector<AttrNode> rhs_attrs;  ///< built per match (payload vars after the lhs ones)
  std::vector<Guard> guards;
  TypeLookup types;       ///< for (shape ?x) and the like
  bool computes = false;  ///< some right-hand side attribute is a function call
  /// The operand variables whose types attribute guards and computed attributes read.
  std::vector<uint32_t> typed_vars;
  /// No attribute to bind, attribute guard or computed attribute: only class guards to run.
  bool attribute_free = true;

  /// What binding the attributes, the attribute guards and the computed attributes conclude
  /// on a match depends only on its payloads and its typed variables' types, which many
  /// matches share (every `add` of one shape): each combination is worked out once. (A
  /// compiled rule is used by one thread at a time, as egraph::run does.)
  struct Reading {
    bool accepted = false;
    bool built_known = false;
    std::optional<std::vector<uint32_t>> built;  ///< payloads(), once asked
  };
  mutable std::unordered_map<std::vector<uint32_t>, Reading, IdsHash> readings;
  mutable std::vector<uint32_t> key;  ///< reused, so that a lookup allocates nothing

  /// Call once the guards and attribute nodes are complete.
  void finish() {
    find_copies();
    attribute_free = lhs_attrs.empty() && !computes;
    for (const Guard& g : guards) {
      if (!g.on_attributes) continue;
      add_typed_vars(*g.on_attributes, typed_vars);
      attribute_free = false;
    }
    for (const AttrNode& node : rhs_attrs) {
      for (const AttrSpec& spec : node.attrs) {
        if (spec.expr) add_typed_vars(*spec.expr, typed_vars);
      }
    }
  }

  Reading& reading(const EGraph& g, const Vocabulary& vocab, std::span<const uint32_t> row) const {
    key.assign(row.begin() + class_vars, row.end());
    for (uint32_t v : typed_vars) key.push_back(g.type_of(row[v]));
    auto [it, fresh] = readings.try_emplace(key);
    if (fresh) it->second.accepted = accepts_attributes(g, vocab, row);
    return it->second;
  }

  /// Sets copy_of for the right-hand side nodes that repeat a left-hand side node's attributes;
  /// call once lhs_attrs and rhs_attrs are complete.
  void find_copies() {
    for (AttrNode& r : rhs_attrs) {
      for (const AttrNode& l : lhs_attrs) {
        if (same_attributes(r, l)) r.copy_of = l.payload_var;
      }
    }
  }

  /// Binds attribute variables from the matched payloads; false if a literal or a repeated
  /// variable disagrees.
  bool bind(const Vocabulary& vocab, std::span<const uint32_t> row, AttrEnv& env) const {
    env.assign(attr_vars, nullptr);
    for (const AttrNode& node : lhs_attrs) {
      const egraph::Attrs& attrs = vocab.attrs(row[class_vars + node.payload_var]);
      if (attrs.size() != node.attrs.size()) return false;
      for (const AttrSpec& spec : node.attrs) {
        const AttrValue* value = vocab.attr(row[class_vars + node.payload_var], spec.key);
        if (!value) return false;
        if (spec.literal) {
          if (*value != *spec.literal) return false;
        } else if (env[spec.var] == nullptr) {
          env[spec.var] = value;
        } else if (*env[spec.var] != *value) {
          return false;
        }
      }
    }
    return true;
  }

  bool accepts(const EGraph& g, const Vocabulary& vocab, std::span<const uint32_t> row) const {
    if (!attribute_free && !reading(g, vocab, row).accepted) return false;
    for (const Guard& guard : guards) {
      if (guard.on_classes && !guard.on_classes(g, row)) return false;
    }
    return true;
  }

  /// Whether the match's attributes bind, its attribute guards hold and its computed attributes
  /// apply (see reading()).
  bool accepts_attributes(const EGraph& g, const Vocabulary& vocab,
                          std::span<const uint32_t> row) const {
    AttrEnv env;
    if (!bind(vocab, row, env)) return false;
    for (const Guard& guard : guards) {
      if (guard.on_attributes && !holds(*guard.on_attributes, MatchScope(g, row, env, types))) {
        return false;
      }
    }
    if (!computes) return true;
    // A function that does not apply (the inverse of a non-permutation, …) keeps the rule
    // from firing on this match.
    const MatchScope scope(g, row, env, types);
    for (const AttrNode& node : rhs_attrs) {
      for (const AttrSpec& spec : node.attrs) {
        if (!spec.expr) continue;
        const auto v = evaluate(*spec.expr, scope);
        if (!v || (node.constant && !std::holds_alternative<int64_t>(*v) &&
                   !std::holds_alternative<double>(*v))) {
          return false;
        }
      }
    }
    return true;
  }

  /// Payload variables for instantiating the right-hand side: the matched ones, then the
  /// right-hand side's built ones; nullopt if a computed attribute does not apply.
  std::optional<std::vector<uint32_t>> payloads(const EGraph& g, Vocabulary& vocab,
                                                std::span<const uint32_t> row) const {
    if (rhs_attrs.empty()) return std::vector<uint32_t>(row.begin() + class_vars, row.end());
    Reading& r = reading(g, vocab, row);
    if (!r.built_known) {
      r.built = build_payloads(g, vocab, row);
      r.built_known = true;
    }
    return r.built;
  }

  std::optional<std::vector<uint32_t>> build_payloads(const EGraph& g, Vocabulary& vocab,
                                                      std::span<const uint32_t> row) const {
    std::vector<uint32_t> out(row.begin() + class_vars, row.end());
    AttrEnv env;  // bound for the first node that is not a copy (copies need no binding)
    bool bound = false;
    const MatchScope scope(g, row, env, types);
    for (const AttrNode& node : rhs_attrs) {
      if (out.size() <= node.payload_var) out.resize(node.payload_var + 1);
      if (node.copy_of) {
        out[node.payload_var] = row[class_vars + *node.copy_of];
        continue;
      }
      if (!bound) {
        bind(vocab, row, env);  // the match was accepted: it binds
        bound = true;
      }
      egraph::Attrs attrs;
      for (const AttrSpec& spec : node.attrs) {
        if (spec.literal) {
          attrs.emplace_back(spec.key, *spec.literal);
        } else if (spec.expr) {
          auto v = evaluate(*spec.expr, scope);
          if (!v) return std::nullopt;
          attrs.emplace_back(spec.key, std::move(*v));
        } else {
          if (!env[spec.var]) return std::nullopt;
          attrs.emplace_back(spec.key, *env[spec.var]);
        }
      }
      if (node.constant) {
        const AttrValue& v = attrs.front().second;
        const int64_t* i = std::get_if<int64_t>(&v);
        const double* d = std::get_if<double>(&v);
        if (!i && !d) return std::nullopt;
        out[node.payload_var] = vocab.constant_payload(i ? static_cast<double>(*i) : *d);
      } else {
        out[node.payload_var] = vocab.payload(std::move(attrs));
      }
    }
    return out;
  }
};

/// `(constant :value V)`: the numeric constant V (what a number in a term is), written with
/// its value as an attribute so that a pattern can bind it or a right-hand side compute it.
bool is_constant_form(const Term& t) {
  return t.kind == Term::Kind::kApply && t.name == "constant" && t.args.empty() &&
         t.attrs.size() == 1 && t.attrs[0].key == "value";
}

bool is_constant_zero(const EGraph& g, const Vocabulary& vocab, ClassId c) {
  const uint32_t k = g.constant_of(c);
  if (k == egraph::kNoConstant) return false;
  const auto value = vocab.constant_value(k);
  return value && *value == 0;
}

bool has_symbol_leaf(const EGraph& g, const Vocabulary& vocab, ClassId c) {
  for (const egraph::ENode& n : g.nodes(c)) {
    if (n.children.empty() && n.op != vocab.constant_symbol()) return true;
  }
  return false;
}

/// The operands of `t`, flattened if its operator is declared `ac`.
std::vector<const Term*> ac_operands(const Term& t, Vocabulary& vocab) {
  return rules::ac_operands(t, vocab.is_ac(vocab.symbol(t.name)));
}

/// Compiles one rule (one direction of a birewrite).
class RuleBuilder {
 public:
  RuleBuilder(const RuleFile& file, Vocabulary& vocab, const TypeOracle& type_of,
              const TypeLookup& types, relations::Database* db)
      : file_(file), vocab_(vocab), type_of_(type_of), types_(types), db_(db) {}

  Expected<egraph::Rule> rewrite(const std::string& name, const Term& lhs_term,
                                 const Term& rhs_term, const std::vector<Term>& guard_terms) {
    Pattern lhs;
    if (auto e = lhs_node(lhs, lhs_term); !e) return e.error();
    const uint32_t root = next_class_var_++;
    egraph::Rule rule;
    rule.name = name;
    rule.query.add(lhs, root);
    rule.query.compile(vocab_.commutative_symbols());
    auto shape = std::make_shared<Shape>();
    shape->class_vars = rule.query.var_count();
    shape->lhs_payload_vars = rule.query.payload_var_count();
    shape->types = types_;
    next_payload_var_ = shape->lhs_payload_vars;
    Pattern rhs;
    if (auto e = rhs_node(rhs, rhs_term, *shape); !e) return e.error();
    for (const Term& g : guard_terms) {
      auto guard = compile_guard(g);
      if (!guard) return guard.error();
      shape->guards.push_back(std::move(*guard));
    }
    shape->lhs_attrs = std::move(lhs_attrs_);
    shape->finish();
    shape->attr_vars = static_cast<uint32_t>(attr_vars_.size());
    finish_guard(rule, shape);
    // Attributes computed for the right-hand side read the match beyond its classes.
    rule.idempotent = shape->rhs_attrs.empty();
    Vocabulary& vocab = vocab_;
    rule.apply = [shape, lhs, rhs, root, &vocab, type_of = type_of_](
                     egraph::ApplyContext& context, std::span<const uint32_t> row) -> size_t {
      const std::span<const ClassId> subst = row.first(shape->class_vars);
      if (shape->rhs_attrs.empty()) {
        return egraph::apply_rewrite(context, lhs, rhs, root, subst, row.subspan(shape->class_vars),
                                     type_of);
      }
      const auto payloads = shape->payloads(context.g, vocab, row);
      if (!payloads) return 0;
      return egraph::apply_rewrite(context, lhs, rhs, root, subst, *payloads, type_of);
    };
    return rule;
  }

  Expected<egraph::Rule> datalog(const Rule& syntax) {
    egraph::Rule rule;
    rule.name = syntax.name;
    for (const Item& item : syntax.body) {
      if (item.kind == Item::Kind::kAtom) {
        auto atom = atom_args(item.atom, /*head=*/false);
        if (!atom) return atom.error();
        rule.query.add_atom(atom->first, std::move(atom->second));
        continue;
      }
      Pattern p;
      if (auto e = lhs_node(p, item.term); !e) return e.error();
      std::optional<uint32_t> root;
      if (item.kind == Item::Kind::kBind) root = class_var(item.var);
      rule.query.add(p, root);
    }
    rule.query.compile(vocab_.commutative_symbols());
    auto shape = std::make_shared<Shape>();
    shape->class_vars = rule.query.var_count();
    shape->lhs_payload_vars = rule.query.payload_var_count();
    shape->types = types_;
    next_payload_var_ = shape->lhs_payload_vars;
    // Head items in order: a term to add (and union with a bound variable, or to name with a
    // new one), or a fact to assert.
    struct Head {
      Pattern pattern;
      std::optional<uint32_t> union_with, names;
      std::optional<uint32_t> relation;
      std::vector<egraph::AtomArg> args;
    };
    std::vector<Head> heads;
    for (const Item& item : syntax.head) {
      Head head;
      if (item.kind == Item::Kind::kAtom) {
        auto atom = atom_args(item.atom, /*head=*/true);
        if (!atom) return atom.error();
        head.relation = atom->first;
        head.args = std::move(atom->second);
      } else {
        if (auto e = rhs_node(head.pattern, item.term, *shape); !e) return e.error();
        if (item.kind == Item::Kind::kBind) {
          if (class_vars_.count(item.var)) {
            head.union_with = class_vars_.at(item.var);
          } else {
            head.names = class_var(item.var);
          }
        }
      }
      heads.push_back(std::move(head));
    }
    const uint32_t env_size = next_class_var_;
    for (const Term& g : syntax.guards) {
      auto guard = compile_guard(g);
      if (!guard) return guard.error();
      shape->guards.push_back(std::move(*guard));
    }
    shape->lhs_attrs = std::move(lhs_attrs_);
    shape->finish();
    shape->attr_vars = static_cast<uint32_t>(attr_vars_.size());
    finish_guard(rule, shape);
    Vocabulary& vocab = vocab_;
    rule.apply = [shape, heads, env_size, &vocab, type_of = type_of_](
                     egraph::ApplyContext& context, std::span<const uint32_t> row) -> size_t {
      EGraph& g = context.g;
      const auto computed = shape->payloads(g, vocab, row);
      if (!computed) return 0;
      const std::vector<uint32_t>& payloads = *computed;
      std::vector<ClassId> env(row.begin(), row.begin() + shape->class_vars);
      env.resize(env_size, egraph::kUnbound);
      size_t changes = 0;
      for (const Head& head : heads) {
        if (head.relation) {
          relations::Relation& rel = context.db->relation(*head.relation);
          std::vector<uint32_t> fact;
          for (size_t c = 0; c < head.args.size(); ++c) {
            const egraph::AtomArg& a = head.args[c];
            uint32_t v = a.kind == egraph::AtomArg::Kind::kVar ? env[a.value] : a.value;
            if (rel.columns()[c] == relations::Column::kClass) v = g.find(v);
            fact.push_back(v);
          }
          changes += rel.insert(fact, context.reason, context.db->stamp());
          continue;
        }
        const size_t before = g.id_count();
        const ClassId built = egraph::instantiate(g, head.pattern, env, type_of, payloads);
        if (head.names) env[*head.names] = g.find(built);
        if (!head.union_with) {
          changes += g.id_count() > before;
          continue;
        }
        if (g.find(built) == g.find(env[*head.union_with])) continue;
        if (auto conflict = g.merge(env[*head.union_with], built, context.reason)) {
          context.conflicts.push_back(*conflict);
        } else {
          ++changes;
        }
      }
      return changes;
    };
    return rule;
  }

 private:
  Diagnostic error(SourcePos pos, std::string message) const {
    return Diagnostic{file_.path, pos, std::move(message), ""};
  }

  /// A relation atom's relation index and arguments: variables, integers, words, `_`.
  Expected<std::pair<uint32_t, std::vector<egraph::AtomArg>>> atom_args(const Atom& atom,
                                                                        bool head) {
    if (!db_) return error(atom.pos, "relation atoms need a fact database (none was given)");
    const auto relation = db_->find(atom.relation);
    if (!relation) return error(atom.pos, "relation '" + atom.relation + "' is not declared");
    std::vector<egraph::AtomArg> args;
    for (const Term& t : atom.args) {
      egraph::AtomArg a;
      if (t.kind == Term::Kind::kVar) {
        if (head && !class_vars_.count(t.name)) {
          return error(t.pos, "variable ?" + t.name + " is not bound");
        }
        a = {egraph::AtomArg::Kind::kVar, class_var(t.name)};
      } else if (t.kind == Term::Kind::kNumber && t.is_integer) {
        if (t.integer < INT32_MIN || t.integer > INT32_MAX) {
          return error(t.pos, "a fact's integer must fit in 32 bits");
        }
        a = {egraph::AtomArg::Kind::kValue, static_cast<uint32_t>(static_cast<int32_t>(t.integer))};
      } else if (t.kind == Term::Kind::kWord && t.name == "_") {
        a = {egraph::AtomArg::Kind::kAny, 0};
      } else if (t.kind == Term::Kind::kWord) {
        a = {egraph::AtomArg::Kind::kValue, vocab_.symbol(t.name)};
      } else {
        return error(t.pos, "a fact's argument is a variable, an integer or a word");
      }
      args.push_back(a);
    }
    return std::pair{*relation, std::move(args)};
  }

  uint32_t class_var(const std::string& name) {
    auto [it, inserted] = class_vars_.try_emplace(name, next_class_var_);
    if (inserted) ++next_class_var_;
    return it->second;
  }

  Expected<bool> check_not_attr_var(const Term& t) const {
    if (attr_vars_.count(t.name)) {
      return error(t.pos, "?" + t.name + " is an attribute variable; it cannot be an operand");
    }
    return true;
  }

  /// An attribute value written in a rule: a literal or a variable.
  Expected<AttrSpec> attr_spec(const Term::Attr& attr, bool binding) {
    AttrSpec spec{attr.key, std::nullopt, 0, std::nullopt};
    const Term& v = attr.value;
    switch (v.kind) {
      case Term::Kind::kNumber:
        spec.literal = v.is_integer ? AttrValue(v.integer) : AttrValue(v.number);
        return spec;
      case Term::Kind::kList:
        spec.literal = AttrValue(v.list);
        return spec;
      case Term::Kind::kWord:
      case Term::Kind::kString:
        spec.literal = AttrValue(v.name);
        return spec;
      case Term::Kind::kVar: {
        if (class_vars_.count(v.name)) {
          return error(v.pos, "?" + v.name + " is an operand variable; it cannot be an attribute");
        }
        auto it = attr_vars_.find(v.name);
        if (it == attr_vars_.end()) {
          if (!binding) return error(v.pos, "attribute variable ?" + v.name + " is not bound");
          it = attr_vars_.emplace(v.name, static_cast<uint32_t>(attr_vars_.size())).first;
        }
        spec.var = it->second;
        return spec;
      }
      case Term::Kind::kApply: {
        if (binding) {
          return error(v.pos, "an attribute function such as (" + v.name +
                                  " …) computes a right-hand side's attribute; a pattern binds a "
                                  "variable instead (test it with a guard)");
        }
        auto expr = compile_attr_expr(v, resolver(), file_.path);
        if (!expr) return expr.error();
        if (auto e = check_types_available(*expr); !e) return e.error();
        spec.expr = std::move(*expr);
        return spec;
      }
    }
    return spec;
  }

  /// Resolves variable names in attribute expressions: attribute variables, then operands.
  VarResolver resolver() const {
    return [this](const std::string& name) -> std::optional<VarRef> {
      if (auto it = attr_vars_.find(name); it != attr_vars_.end()) {
        return VarRef{VarRef::Kind::kAttr, it->second};
      }
      if (auto it = class_vars_.find(name); it != class_vars_.end()) {
        return VarRef{VarRef::Kind::kClass, it->second};
      }
      return std::nullopt;
    };
  }

  Expected<bool> check_types_available(const AttrExpr& e) const {
    if (!e.uses_types() || types_) return true;
    return error(e.pos,
                 "this reads an operand's type, but the rules were compiled without a type "
                 "table (compile_rules' `types`)");
  }

  Expected<uint32_t> leaf(Pattern& p, const Term& t) {
    switch (t.kind) {
      case Term::Kind::kNumber:
        return p.op(vocab_.constant_symbol(), {}, vocab_.constant_payload(t.number));
      case Term::Kind::kWord:
        return p.op(vocab_.symbol(t.name), {}, 0u);
      case Term::Kind::kList:
      case Term::Kind::kString:
        return error(t.pos, "a list or string can only be an attribute value");
      default:
        return error(t.pos, "internal: not a leaf");
    }
  }

  Expected<uint32_t> lhs_node(Pattern& p, const Term& t) { return term_node(p, t, nullptr); }
  Expected<uint32_t> rhs_node(Pattern& p, const Term& t, Shape& shape) {
    return term_node(p, t, &shape);
  }

  /// Compiles a term into `p`: a left-hand side (a pattern that binds variables) when `rhs` is
  /// null, else a right-hand side (built per match; computed attributes go to `rhs`).
  Expected<uint32_t> term_node(Pattern& p, const Term& t, Shape* rhs) {
    if (t.kind == Term::Kind::kVar) {
      if (auto e = check_not_attr_var(t); !e) return e.error();
      if (!rhs) return p.var(class_var(t.name));
      auto it = class_vars_.find(t.name);
      if (it == class_vars_.end()) return error(t.pos, "variable ?" + t.name + " is not bound");
      return p.var(it->second);
    }
    if (t.kind != Term::Kind::kApply) return leaf(p, t);
    if (is_constant_form(t) && t.attrs[0].value.kind == Term::Kind::kNumber) {
      return leaf(p, t.attrs[0].value);
    }
    std::vector<uint32_t> children;
    for (const Term* arg : ac_operands(t, vocab_)) {
      auto child = term_node(p, *arg, rhs);
      if (!child) return child.error();
      children.push_back(*child);
    }
    AttrNode node;
    bool literal_only = true;
    for (const Term::Attr& attr : t.attrs) {
      auto spec = attr_spec(attr, /*binding=*/rhs == nullptr);
      if (!spec) return spec.error();
      literal_only = literal_only && spec->literal.has_value();
      node.attrs.push_back(std::move(*spec));
    }
    if (literal_only) {
      return p.op(vocab_.symbol(t.name), std::move(children), literal_payload(node));
    }
    if (!rhs) {
      // The matched payload is bound, then its attributes checked and bound per match.
      node.payload_var = static_cast<uint32_t>(lhs_attrs_.size());
      lhs_attrs_.push_back(node);
    } else {
      // The payload is built per match from the bound and computed attributes.
      node.payload_var = next_payload_var_++;
      node.constant = is_constant_form(t);
      for (const AttrSpec& spec : node.attrs) rhs->computes = rhs->computes || spec.expr;
      rhs->rhs_attrs.push_back(node);
    }
    return p.op_with_payload_var(vocab_.symbol(t.name), std::move(children), node.payload_var);
  }

  uint32_t literal_payload(const AttrNode& node) {
    egraph::Attrs attrs;
    for (const AttrSpec& spec : node.attrs) attrs.emplace_back(spec.key, *spec.literal);
    return vocab_.payload(std::move(attrs));
  }

  /// The class variable a guard argument names.
  Expected<uint32_t> guard_class_arg(const Term& g, size_t i) {
    if (g.args.size() <= i || g.args[i].kind != Term::Kind::kVar ||
        !class_vars_.count(g.args[i].name)) {
      return error(g.args.size() > i ? g.args[i].pos : g.pos,
                   "guard '" + g.name + "' expects an operand variable as argument " +
                       std::to_string(i + 1));
    }
    return class_vars_.at(g.args[i].name);
  }

  Expected<Guard> compile_guard(const Term& g) {
    if (g.kind != Term::Kind::kApply)
      return error(g.pos, "a guard is a call such as (not-zero ?x)");
    const Vocabulary& vocab = vocab_;
    auto arity = [&](size_t n) -> Expected<bool> {
      if (g.args.size() != n || !g.attrs.empty()) {
        return error(g.pos, "guard '" + g.name + "' takes " + std::to_string(n) + " argument" +
                                (n == 1 ? "" : "s"));
      }
      return true;
    };
    if (g.name == "not-zero" || g.name == "is-const" || g.name == "is-sym") {
      if (auto e = arity(1); !e) return e.error();
      auto x = guard_class_arg(g, 0);
      if (!x) return x.error();
      const uint32_t v = *x;
      if (g.name == "not-zero") {
        return Guard{[v, &vocab](const EGraph& eg, std::span<const uint32_t> row) {
                       return !is_constant_zero(eg, vocab, row[v]);
                     },
                     std::nullopt};
      }
      if (g.name == "is-const") {
        return Guard{[v](const EGraph& eg, std::span<const uint32_t> row) {
                       return eg.constant_of(row[v]) != egraph::kNoConstant;
                     },
                     std::nullopt};
      }
      return Guard{[v, &vocab](const EGraph& eg, std::span<const uint32_t> row) {
                     return has_symbol_leaf(eg, vocab, row[v]);
                   },
                   std::nullopt};
    }
    if (g.name == "const-or-distinct-var") {
      if (auto e = arity(2); !e) return e.error();
      auto c = guard_class_arg(g, 0);
      if (!c) return c.error();
      auto x = guard_class_arg(g, 1);
      if (!x) return x.error();
      return Guard{[c = *c, x = *x, &vocab](const EGraph& eg, std::span<const uint32_t> row) {
                     return eg.find(row[c]) != eg.find(row[x]) &&
                            (eg.constant_of(row[c]) != egraph::kNoConstant ||
                             has_symbol_leaf(eg, vocab, row[c]));
                   },
                   std::nullopt};
    }
    if (g.name == "distinct") {
      if (auto e = arity(2); !e) return e.error();
      auto a = guard_class_arg(g, 0);
      if (!a) return a.error();
      auto b = guard_class_arg(g, 1);
      if (!b) return b.error();
      return Guard{[a = *a, b = *b](const EGraph& eg, std::span<const uint32_t> row) {
                     return eg.find(row[a]) != eg.find(row[b]);
                   },
                   std::nullopt};
    }
    if (is_attr_guard(g.name)) {
      auto expr = compile_attr_guard(g, resolver(), file_.path);
      if (!expr) return expr.error();
      if (auto e = check_types_available(*expr); !e) return e.error();
      return Guard{nullptr, std::move(*expr)};
    }
    std::string known;
    for (const std::string& name : builtin_guard_names())
      known += (known.empty() ? "" : ", ") + name;
    return error(g.pos, "unknown guard '" + g.name + "'; built-in guards: " + known);
  }

  void finish_guard(egraph::Rule& rule, const std::shared_ptr<Shape>& shape) {
    if (shape->guards.empty() && shape->lhs_attrs.empty() && !shape->computes) return;
    const Vocabulary& vocab = vocab_;
    rule.guard = [shape, &vocab](const EGraph& g, std::span<const uint32_t> row) {
      return shape->accepts(g, vocab, row);
    };
  }

  const RuleFile& file_;
  Vocabulary& vocab_;
  const TypeOracle& type_of_;
  const TypeLookup& types_;
  relations::Database* db_;
  std::unordered_map<std::string, uint32_t> class_vars_;
  std::unordered_map<std::string, uint32_t> attr_vars_;
  std::vector<AttrNode> lhs_attrs_;
  uint32_t next_class_var_ = 0;
  uint32_t next_payload_var_ = 0;
};

}  // namespace

std::vector<std::string> builtin_guard_names() {
  std::vector<std::string> names = {"not-zero", "is-const", "is-sym", "const-or-distinct-var",
                                    "distinct"};
  for (const AttrFunction& f : attr_functions()) {
    if (f.guard) names.emplace_back(f.name);
  }
  return names;
}

std::vector<std::string> builtin_attr_function_names() {
  std::vector<std::string> names;
  for (const AttrFunction& f : attr_functions()) {
    if (!f.guard) names.emplace_back(f.name);
  }
  return names;
}

Expected<CompiledRules> compile_rules(const RuleFile& file, egraph::Vocabulary& vocab,
                                      TypeOracle type_of, relations::Database* db,
                                      TypeLookup types) {
  CompiledRules out;
  for (const AcDecl& ac : file.ac) vocab.set_commutative(vocab.symbol(ac.op), ac.associative);
  for (const RelationDecl& decl : file.relations) {
    if (!db) {
      return Diagnostic{file.path, decl.pos, "relations need a fact database (none was given)", ""};
    }
    std::vector<relations::Column> columns;
    for (RelationDecl::Column c : decl.columns) {
      columns.push_back(c == RelationDecl::Column::kClass ? relations::Column::kClass
                        : c == RelationDecl::Column::kInt ? relations::Column::kInt
                                                          : relations::Column::kWord);
    }
    auto declared = db->declare(decl.name, std::move(columns));
    if (!declared) {
      return Diagnostic{file.path, decl.pos, declared.error().message, ""};
    }
  }
  auto add = [&](Expected<egraph::Rule> rule, const Rule& syntax, bool reversed) -> bool {
    if (!rule) return false;
    out.origins.push_back({rule->name, file.path, syntax.pos, &syntax, reversed});
    out.rules.push_back(std::move(*rule));
    return true;
  };
  for (const Rule& syntax : file.rules) {
    switch (syntax.kind) {
      case Rule::Kind::kRewrite:
      case Rule::Kind::kBirewrite: {
        auto forward = RuleBuilder(file, vocab, type_of, types, db)
                           .rewrite(syntax.name, syntax.lhs, syntax.rhs, syntax.guards);
        if (!forward) return forward.error();
        add(std::move(forward), syntax, false);
        if (syntax.kind == Rule::Kind::kBirewrite) {
          auto backward = RuleBuilder(file, vocab, type_of, types, db)
                              .rewrite(syntax.name + "-rev", syntax.rhs, syntax.lhs, syntax.guards);
          if (!backward) return backward.error();
          add(std::move(backward), syntax, true);
        }
        break;
      }
      case Rule::Kind::kRule: {
        auto rule = RuleBuilder(file, vocab, type_of, types, db).datalog(syntax);
        if (!rule) return rule.error();
        add(std::move(rule), syntax, false);
        break;
      }
    }
  }
  return out;
}

egraph::ConstantFolding arithmetic_folding(egraph::Vocabulary& vocab) {
  const egraph::Symbol add = vocab.symbol("+"), sub = vocab.symbol("-"), mul = vocab.symbol("*"),
                       div = vocab.symbol("/");
  egraph::ConstantFolding folding;
  folding.constant_op = vocab.constant_symbol();
  folding.strict = true;  // every operator below needs both operands constant
  folding.fold = [&vocab, add, sub, mul, div](const egraph::ENode& n,
                                              std::span<const uint32_t> constants) -> uint32_t {
    if (n.children.size() != 2 || (n.op != add && n.op != sub && n.op != mul && n.op != div)) {
      return egraph::kNoConstant;
    }
    if (constants[0] == egraph::kNoConstant || constants[1] == egraph::kNoConstant) {
      return egraph::kNoConstant;
    }
    const auto a = vocab.constant_value(constants[0]), b = vocab.constant_value(constants[1]);
    if (!a || !b) return egraph::kNoConstant;
    double r = 0;
    if (n.op == add) r = *a + *b;
    if (n.op == sub) r = *a - *b;
    if (n.op == mul) r = *a * *b;
    if (n.op == div) {
      if (*b == 0) return egraph::kNoConstant;
      r = *a / *b;
    }
    if (std::isnan(r)) return egraph::kNoConstant;  // infinities fold, as in egg
    return vocab.constant_payload(r);
  };
  return folding;
}

}  // namespace scalify::rules

namespace scalify::rules {

Expected<egraph::ClassId> add_term(egraph::EGraph& g, egraph::Vocabulary& vocab, const Term& term,
                                   const TypeOracle& type_of, std::string_view file) {
  egraph::ENode node;
  switch (term.kind) {
    case Term::Kind::kNumber:
      node = {vocab.constant_symbol(), vocab.constant_payload(term.number), {}};
      break;
    case Term::Kind::kWord:
      node = {vocab.symbol(term.name), 0, {}};
      break;
    case Term::Kind::kApply: {
      node.op = vocab.symbol(term.name);
      for (const Term* arg : ac_operands(term, vocab)) {
        auto child = add_term(g, vocab, *arg, type_of, file);
        if (!child) return child.error();
        node.children.push_back(*child);
      }
      egraph::Attrs attrs;
      for (const Term::Attr& attr : term.attrs) {
        const Term& v = attr.value;
        if (v.kind == Term::Kind::kNumber) {
          attrs.emplace_back(attr.key, v.is_integer ? AttrValue(v.integer) : AttrValue(v.number));
        } else if (v.kind == Term::Kind::kList) {
          attrs.emplace_back(attr.key, v.list);
        } else if (v.kind == Term::Kind::kWord || v.kind == Term::Kind::kString) {
          attrs.emplace_back(attr.key, v.name);
        } else {
          return Diagnostic{std::string(file), v.pos, "a ground term's attribute must be a literal",
                            ""};
        }
      }
      node.payload = vocab.payload(std::move(attrs));
      break;
    }
    case Term::Kind::kVar:
      return Diagnostic{std::string(file), term.pos, "a ground term cannot have variables", ""};
    case Term::Kind::kList:
    case Term::Kind::kString:
      return Diagnostic{std::string(file), term.pos, "a list or string can only be an attribute",
                        ""};
  }
  return g.add_node_typed(std::move(node), type_of);
}

}  // namespace scalify::rules
