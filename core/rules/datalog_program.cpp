#include "rules/datalog_program.h"

#include <algorithm>
#include <array>

#include "rules/rule_print.h"

namespace scalify::rules::check {
namespace {

using eval::mesh::Layout;

/// The relations with a numeric meaning, and their documented columns (DESIGN.md).
struct KnownRelation {
  std::string_view name;
  Layout::Kind layout;
  std::vector<RelationDecl::Column> columns;
};

const std::vector<KnownRelation>& known_relations() {
  using C = RelationDecl::Column;
  static const std::vector<KnownRelation> known = {
      {"Rep", Layout::Kind::kRep, {C::kClass, C::kClass}},
      {"Shard", Layout::Kind::kShard, {C::kClass, C::kClass, C::kInt, C::kWord}},
      {"Partial", Layout::Kind::kPartial, {C::kClass, C::kClass, C::kWord, C::kWord}},
  };
  return known;
}

Term var_term(const std::string& name, SourcePos pos) {
  Term t;
  t.kind = Term::Kind::kVar;
  t.name = name;
  t.pos = pos;
  return t;
}

/// Lifts every collective out of the terms of `items`, so that it is an item of its own over
/// one variable: `?r = (exponential (all-reduce (add ?a ?b)))` becomes
/// `?#1 = (add ?a ?b), ?#2 = (all-reduce ?#1), ?r = (exponential ?#2)`. `#` cannot start a
/// variable the parser reads, so the names are fresh.
class CollectiveLifter {
 public:
  std::vector<Item> lift(const std::vector<Item>& items) {
    std::vector<Item> out;
    for (const Item& item : items) {
      if (item.kind == Item::Kind::kAtom) {
        out.push_back(item);
        continue;
      }
      Item copy = item;
      copy.term = lift_operands(item.term, out);
      if (copy.kind == Item::Kind::kTerm && is_collective(copy.term.name)) {
        copy.kind = Item::Kind::kBind;  // a collective always names its result
        copy.var = fresh();
      }
      out.push_back(std::move(copy));
    }
    return out;
  }

 private:
  Term lift_operands(const Term& t, std::vector<Item>& out) {
    if (t.kind != Term::Kind::kApply) return t;
    Term copy = t;
    const bool collective = is_collective(t.name);
    for (Term& a : copy.args) {
      a = lift_operands(a, out);
      const bool lift = a.kind == Term::Kind::kApply && (is_collective(a.name) || collective);
      if (!lift) continue;
      Item bind;
      bind.kind = Item::Kind::kBind;
      bind.var = fresh();
      bind.term = a;
      bind.pos = a.pos;
      out.push_back(std::move(bind));
      a = var_term(out.back().var, a.pos);
    }
    return copy;
  }

  std::string fresh() { return "#" + std::to_string(++count_); }
  int count_ = 0;
};

}  // namespace

static std::string atom_text(const Atom& a) {
  std::string s = a.relation + "(";
  for (size_t i = 0; i < a.args.size(); ++i) s += (i ? ", " : "") + to_string(a.args[i]);
  return s + ")";
}

std::string item_text(const Item& item) {
  if (item.kind == Item::Kind::kAtom) return atom_text(item.atom);
  const std::string term = to_string(item.term);
  if (item.kind == Item::Kind::kTerm || item.var.front() == '#') return term;
  return "?" + item.var + " = " + term;
}

namespace {

void collect_operands(const TNode& n, std::vector<uint32_t>& out) {
  if (n.kind == TNode::Kind::kOperand && std::find(out.begin(), out.end(), n.var) == out.end()) {
    out.push_back(n.var);
  }
  for (const TNode& a : n.args) collect_operands(a, out);
}

class Compiler {
 public:
  Compiler(const RuleFile& file, const Rule& rule) : file_(file), rule_(rule) {}

  Expected<DatalogProgram> run() {
    for (const AcDecl& d : file_.ac) ac_.push_back(d.op);
    for (int part = 0; part < 2; ++part) {
      const bool head = part == 1;
      for (const Item& item : CollectiveLifter().lift(head ? rule_.head : rule_.body)) {
        auto step = compile(item, head);
        if (!step) return step.error();
        (head ? p_.head : p_.body).push_back(std::move(*step));
      }
      if (!head) p_.in_body.assign(p_.vars.operands.size(), true);
    }
    p_.in_body.resize(p_.vars.operands.size(), false);
    if (auto e = place_sides()) return *e;
    auto guards = Guards::compile(rule_.guards, p_.vars, file_.path);
    if (!guards) return guards.error();
    p_.guards = std::move(*guards);
    return std::move(p_);
  }

 private:
  Expected<DatalogStep> compile(const Item& item, bool head) {
    DatalogStep s;
    s.head = head;
    s.pos = item.pos;
    s.text = item_text(item);
    if (item.kind == Item::Kind::kAtom) return compile_fact(item.atom, std::move(s));
    auto term = compile_side(item.term, p_.vars, ac_, file_.path);
    if (!term) return term.error();
    s.term = std::move(*term);
    collect_operands(s.term, s.operands);
    if (s.term.kind == TNode::Kind::kApply && is_collective(s.term.op)) {
      s.kind = DatalogStep::Kind::kCollective;
      if (s.term.args.size() != 1) {
        return error(item.pos, "'" + s.term.op + "' takes one operand here");
      }
    }
    if (item.kind == Item::Kind::kBind) s.result = class_var(item.var);
    return s;
  }

  Expected<DatalogStep> compile_fact(const Atom& atom, DatalogStep s) {
    s.kind = DatalogStep::Kind::kFact;
    const auto decl = std::find_if(file_.relations.begin(), file_.relations.end(),
                                   [&](const RelationDecl& d) { return d.name == atom.relation; });
    const auto known =
        std::find_if(known_relations().begin(), known_relations().end(),
                     [&](const KnownRelation& k) { return k.name == atom.relation; });
    if (known == known_relations().end() || decl == file_.relations.end() ||
        decl->columns != known->columns) {
      return error(atom.pos, "relation '" + atom.relation +
                                 "' has no numeric meaning: the check knows Rep(class, class), "
                                 "Shard(class, class, int, word) and Partial(class, class, "
                                 "word, word) (x, X, axis, op)");
    }
    s.layout = known->layout;
    s.dist = class_var(name_of(atom.args[0]));
    s.ref = class_var(name_of(atom.args[1]));
    if (s.layout == Layout::Kind::kShard) {
      const Term& dim = atom.args[2];
      if (dim.kind == Term::Kind::kNumber) {
        s.dim = dim.integer;
      } else {
        s.dim_var = attr_var(name_of(dim));
      }
      if (auto e = axis(atom.args[3])) return *e;
    }
    if (s.layout == Layout::Kind::kPartial) {
      if (auto e = axis(atom.args[2])) return *e;
      const Term& op = atom.args[3];
      if (op.kind == Term::Kind::kWord && op.name != "_") {
        if (!eval::mesh::reduction_named(op.name)) {
          return error(op.pos,
                       "'" + op.name + "' is not a reduction: sum, mean, max, min or product");
        }
        s.op_word = op.name;
      } else {
        s.op_var = attr_var(name_of(op));
      }
    }
    return s;
  }

  /// A variable's name; `_` (any) becomes a fresh variable of its own.
  std::string name_of(const Term& t) {
    if (t.kind == Term::Kind::kVar) return t.name;
    return "#_" + std::to_string(++anonymous_);
  }

  uint32_t class_var(const std::string& name) {
    auto& names = p_.vars.operands;
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<uint32_t>(it - names.begin());
    names.push_back(name);
    return static_cast<uint32_t>(names.size() - 1);
  }

  uint32_t attr_var(const std::string& name) {
    auto& names = p_.vars.attrs;
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<uint32_t>(it - names.begin());
    names.push_back(name);
    return static_cast<uint32_t>(names.size() - 1);
  }

  /// The mesh axis a fact names: one word for the whole rule.
  std::optional<Diagnostic> axis(const Term& t) {
    if (t.kind == Term::Kind::kWord && t.name != "_") {
      if (axis_word_ && *axis_word_ != t.name) {
        return error(t.pos, "the facts name two mesh axes ('" + *axis_word_ + "' and '" + t.name +
                                "'): only rules over one axis are checked");
      }
      axis_word_ = t.name;
      p_.axis = t.name;
      return std::nullopt;
    }
    p_.axis_vars.push_back(attr_var(name_of(t)));
    return std::nullopt;
  }

  /// Every class variable lives on one side: the first column of a fact and the collectives
  /// are the distributed side, the second column the reference; a term's operands and result
  /// live where the term does. Unplaced variables are reference values.
  std::optional<Diagnostic> place_sides() {
    const size_t n = p_.vars.operands.size();
    std::vector<uint32_t> parent(n);
    for (uint32_t i = 0; i < n; ++i) parent[i] = i;
    auto find = [&](uint32_t v) {
      while (parent[v] != v) v = parent[v] = parent[parent[v]];
      return v;
    };
    std::vector<std::optional<Side>> side(n);
    std::vector<SourcePos> where(n);
    std::optional<Diagnostic> conflict;
    auto place = [&](uint32_t v, Side s, SourcePos pos) {
      const uint32_t r = find(v);
      if (side[r] && *side[r] != s && !conflict) {
        conflict = error(
            pos, "?" + p_.vars.operands[v] + " would be both a distributed and a reference value");
      }
      side[r] = s;
      where[r] = pos;
    };
    for (const auto* steps : {&p_.body, &p_.head}) {
      for (const DatalogStep& s : *steps) {
        if (s.kind == DatalogStep::Kind::kFact) continue;
        std::vector<uint32_t> vs = s.operands;
        if (s.result) vs.push_back(*s.result);
        for (uint32_t v : vs) parent[find(v)] = find(vs.front());
      }
    }
    for (const auto* steps : {&p_.body, &p_.head}) {
      for (const DatalogStep& s : *steps) {
        if (s.kind == DatalogStep::Kind::kFact) {
          place(s.dist, Side::kDistributed, s.pos);
          place(s.ref, Side::kReference, s.pos);
        } else if (s.kind == DatalogStep::Kind::kCollective) {
          place(s.operands.front(), Side::kDistributed, s.pos);
        }
      }
    }
    if (conflict) return conflict;
    p_.sides.resize(n);
    for (uint32_t v = 0; v < n; ++v) p_.sides[v] = side[find(v)].value_or(Side::kReference);
    return std::nullopt;
  }

  Diagnostic error(SourcePos pos, std::string message) const {
    return Diagnostic{file_.path, pos, std::move(message), ""};
  }

  const RuleFile& file_;
  const Rule& rule_;
  std::vector<std::string> ac_;
  DatalogProgram p_;
  std::optional<std::string> axis_word_;
  int anonymous_ = 0;
};

}  // namespace

bool is_collective(std::string_view op) {
  static constexpr std::array<std::string_view, 4> kCollectives = {"all-reduce", "all-gather",
                                                                   "reduce-scatter", "all-to-all"};
  return std::find(kCollectives.begin(), kCollectives.end(), op) != kCollectives.end();
}

Expected<DatalogProgram> compile_datalog(const RuleFile& file, const Rule& rule) {
  return Compiler(file, rule).run();
}

}  // namespace scalify::rules::check
