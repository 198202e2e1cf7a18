#include "egraph/query.h"

#include <algorithm>

namespace scalify::egraph {
namespace {

constexpr uint32_t kNoReg = 0xffffffffu;

}  // namespace

OpIndex::OpIndex(const EGraph& g) : OpIndex(g, g.class_ids()) {}

OpIndex::OpIndex(const EGraph& g, std::vector<ClassId> classes) : all_(std::move(classes)) {
  for (ClassId c : all_) {
    const std::span<const ENode> nodes = g.nodes(c);  // sorted by op: one entry per (op, class)
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i == 0 || nodes[i].op != nodes[i - 1].op) by_op_[nodes[i].op].push_back(c);
    }
  }
}

std::span<const ClassId> OpIndex::classes_with(Symbol op) const {
  auto it = by_op_.find(op);
  if (it == by_op_.end()) return {};
  return it->second;
}

void Query::add(const Pattern& pattern, std::optional<uint32_t> root_var) {
  var_count_ = std::max(var_count_, pattern.var_count());
  if (root_var) var_count_ = std::max(var_count_, *root_var + 1);
  payload_var_count_ = std::max(payload_var_count_, pattern.payload_var_count());
  patterns_.emplace_back(pattern, root_var);
  compiled_ = false;
}

void Query::add_atom(uint32_t relation, std::vector<AtomArg> args) {
  for (const AtomArg& a : args) {
    if (a.kind == AtomArg::Kind::kVar) var_count_ = std::max(var_count_, a.value + 1);
  }
  atoms_.push_back({relation, std::move(args)});
  compiled_ = false;
}

void Query::compile_node(Program& prog, const Pattern& p, uint32_t node, uint32_t reg,
                         std::vector<bool>& payload_bound, std::span<const Symbol> ac) const {
  const Pattern::Node& n = p.nodes()[node];
  Instr bind{Instr::Kind::kBind, reg, prog.registers, n.op,
             static_cast<uint32_t>(n.children.size())};
  prog.registers += bind.arity;
  bind.ac = bind.arity >= 2 && std::find(ac.begin(), ac.end(), n.op) != ac.end();
  if (n.payload_var) {
    bind.kind =
        payload_bound[*n.payload_var] ? Instr::Kind::kCheckPayload : Instr::Kind::kBindPayload;
    bind.payload = *n.payload_var;
    payload_bound[*n.payload_var] = true;
  } else if (n.payload) {
    bind.has_payload = true;
    bind.payload = *n.payload;
  }
  prog.code.push_back(bind);
  // Variables first: comparing early prunes the search before descending.
  for (uint32_t k = 0; k < bind.arity; ++k) {
    const Pattern::Node& child = p.nodes()[n.children[k]];
    if (!child.is_var) continue;
    if (prog.var_reg[child.var] == kNoReg) {
      prog.var_reg[child.var] = bind.other + k;
    } else {
      prog.code.push_back(Instr{Instr::Kind::kCompare, bind.other + k, prog.var_reg[child.var]});
    }
  }
  for (uint32_t k = 0; k < bind.arity; ++k) {
    if (!p.nodes()[n.children[k]].is_var) {
      compile_node(prog, p, n.children[k], bind.other + k, payload_bound, ac);
    }
  }
}

void Query::compile_atom(Program& prog, const Atom& atom, bool delta) const {
  AtomPlan plan{atom.relation, delta, {}};
  for (const AtomArg& a : atom.args) {
    ColumnPlan col;
    if (a.kind == AtomArg::Kind::kValue) {
      col = {ColumnPlan::Mode::kValue, a.value};
    } else if (a.kind == AtomArg::Kind::kVar) {
      if (prog.var_reg[a.value] == kNoReg) {
        prog.var_reg[a.value] = prog.registers++;
        col = {ColumnPlan::Mode::kBind, prog.var_reg[a.value]};
      } else {
        col = {ColumnPlan::Mode::kCompare, prog.var_reg[a.value]};
      }
    }
    plan.columns.push_back(col);
  }
  prog.code.push_back(Instr{Instr::Kind::kFact, 0, static_cast<uint32_t>(prog.atoms.size())});
  prog.atoms.push_back(std::move(plan));
}

Query::Program Query::compile_program(std::optional<size_t> delta_atom,
                                      std::span<const Symbol> ac) const {
  Program prog;
  prog.var_reg.assign(var_count_, kNoReg);
  std::vector<bool> payload_bound(payload_var_count_, false);
  if (delta_atom) compile_atom(prog, atoms_[*delta_atom], true);
  for (size_t a = 0; a < atoms_.size(); ++a) {
    if (a != delta_atom) compile_atom(prog, atoms_[a], false);
  }
  for (const auto& [pattern, root_var] : patterns_) {
    const Pattern::Node& root = pattern.nodes()[pattern.root()];
    // The register the root is matched in: a variable bound earlier, or a new scan.
    uint32_t reg = kNoReg;
    const std::optional<uint32_t> root_is = root.is_var ? std::optional(root.var) : root_var;
    if (root_is && prog.var_reg[*root_is] != kNoReg) reg = prog.var_reg[*root_is];
    if (reg == kNoReg) {
      reg = prog.registers++;
      prog.code.push_back(root.is_var ? Instr{Instr::Kind::kScanAll, reg}
                                      : Instr{Instr::Kind::kScanOp, reg, 0, root.op});
    }
    for (std::optional<uint32_t> v :
         {root.is_var ? std::optional(root.var) : std::nullopt, root_var}) {
      if (!v) continue;
      if (prog.var_reg[*v] == kNoReg) {
        prog.var_reg[*v] = reg;
      } else if (prog.var_reg[*v] != reg) {
        prog.code.push_back(Instr{Instr::Kind::kCompare, reg, prog.var_reg[*v]});
      }
    }
    if (!root.is_var) compile_node(prog, pattern, pattern.root(), reg, payload_bound, ac);
  }
  return prog;
}

void Query::compile(std::span<const Symbol> ac) {
  // Atoms before patterns: facts are few and bind the patterns' roots, which then need no scan.
  full_ = compile_program(std::nullopt, ac);
  scans_ = std::any_of(full_.code.begin(), full_.code.end(), [](const Instr& in) {
    return in.kind == Instr::Kind::kScanOp || in.kind == Instr::Kind::kScanAll;
  });
  height_.reset();
  if (patterns_.size() == 1 && atoms_.empty()) {
    const Pattern& p = patterns_[0].first;
    std::vector<uint32_t> level(p.nodes().size(), 1);  // children come before their parents
    for (size_t i = 0; i < p.nodes().size(); ++i) {
      for (uint32_t c : p.nodes()[i].children) level[i] = std::max(level[i], level[c] + 1);
    }
    if (!p.nodes()[p.root()].is_var) height_ = level[p.root()];
  }
  delta_.clear();
  if (patterns_.empty()) {  // (see search(): only bodies of atoms alone are semi-naive)
    for (size_t a = 0; a < atoms_.size(); ++a) delta_.push_back(compile_program(a, ac));
  }
  compiled_ = true;
}

/// The backtracking interpreter of a compiled query: registers hold classes (or an atom's
/// values), each instruction either narrows the search (Compare) or branches over candidates
/// (Scan, Bind, Fact).
struct Query::Machine {
  const EGraph& g;
  const OpIndex& index;
  const Program& prog;
  const Query& q;
  const std::function<bool(std::span<const uint32_t>)>& yield;
  relations::Database* db;
  uint32_t since;
  const std::vector<bool>* changed;  ///< if set, yield only matches that read a marked class
  std::vector<ClassId> regs;
  std::vector<uint32_t> payloads;
  std::vector<uint32_t> row;
  bool stopped = false;

  void run(size_t pc) {
    if (pc == prog.code.size()) {
      // Every class the match read is in a register: the scanned root and the operands of
      // every node it bound (canonical, as the e-graph is clean).
      if (changed && std::none_of(regs.begin(), regs.end(), [this](ClassId c) {
            return c < changed->size() && (*changed)[c];
          })) {
        return;
      }
      for (uint32_t v = 0; v < q.var_count_; ++v) {
        row[v] = prog.var_reg[v] == kNoReg ? kUnbound : regs[prog.var_reg[v]];
      }
      std::copy(payloads.begin(), payloads.end(), row.begin() + q.var_count_);
      if (!yield(row)) stopped = true;
      return;
    }
    const Instr& in = prog.code[pc];
    switch (in.kind) {
      case Instr::Kind::kScanOp:
      case Instr::Kind::kScanAll:
        for (ClassId c :
             in.kind == Instr::Kind::kScanOp ? index.classes_with(in.op) : index.all_classes()) {
          regs[in.reg] = c;
          run(pc + 1);
          if (stopped) return;
        }
        return;
      case Instr::Kind::kCompare:
        if (g.find(regs[in.reg]) == g.find(regs[in.other])) run(pc + 1);
        return;
      case Instr::Kind::kBind:
      case Instr::Kind::kBindPayload:
      case Instr::Kind::kCheckPayload: {
        const std::span<const ENode> nodes = g.nodes(regs[in.reg], in.op);
        for (auto it = nodes.begin(); it != nodes.end(); ++it) {
          if (it->children.size() != in.arity) continue;
          if (in.kind == Instr::Kind::kBind && in.has_payload && it->payload != in.payload) {
            continue;
          }
          if (in.kind == Instr::Kind::kCheckPayload && payloads[in.payload] != it->payload) {
            continue;
          }
          if (in.kind == Instr::Kind::kBindPayload) payloads[in.payload] = it->payload;
          const auto out = regs.begin() + in.other;
          std::copy(it->children.begin(), it->children.end(), out);
          if (!in.ac) {
            run(pc + 1);
            if (stopped) return;
            continue;
          }
          // Operands of an AC application match in every distinct order.
          std::sort(out, out + in.arity);
          do {
            run(pc + 1);
            if (stopped) return;
          } while (std::next_permutation(out, out + in.arity));
        }
        return;
      }
      case Instr::Kind::kFact:
        run_fact(pc, prog.atoms[in.other]);
        return;
    }
  }

  void run_fact(size_t pc, const AtomPlan& plan) {
    relations::Relation& rel = db->relation(plan.relation);
    // Candidates: through the index of the first fixed column, else every fact.
    std::span<const uint32_t> candidates;
    bool all = true;
    for (size_t c = 0; c < plan.columns.size(); ++c) {
      const ColumnPlan& col = plan.columns[c];
      if (col.mode == ColumnPlan::Mode::kValue || col.mode == ColumnPlan::Mode::kCompare) {
        const uint32_t value = col.mode == ColumnPlan::Mode::kValue ? col.value : regs[col.value];
        candidates = rel.with(c, value);
        all = false;
        break;
      }
    }
    const size_t n = all ? rel.size() : candidates.size();
    for (size_t k = 0; k < n; ++k) {
      const uint32_t i = all ? static_cast<uint32_t>(k) : candidates[k];
      if (plan.delta && rel.stamp(i) < since) continue;
      const std::span<const uint32_t> fact = rel.row(i);
      bool ok = true;
      for (size_t c = 0; c < plan.columns.size() && ok; ++c) {
        const ColumnPlan& col = plan.columns[c];
        switch (col.mode) {
          case ColumnPlan::Mode::kBind:
            regs[col.value] = fact[c];
            break;
          case ColumnPlan::Mode::kCompare:
            ok = regs[col.value] == fact[c];
            break;
          case ColumnPlan::Mode::kValue:
            ok = col.value == fact[c];
            break;
          case ColumnPlan::Mode::kAny:
            break;
        }
      }
      if (!ok) continue;
      run(pc + 1);
      if (stopped) return;
    }
  }
};

void Query::run_program(const Program& prog, const EGraph& g, const OpIndex& index,
                        const std::function<bool(std::span<const uint32_t>)>& yield,
                        relations::Database* db, uint32_t since,
                        const std::vector<bool>* changed) const {
  Machine m{g,
            index,
            prog,
            *this,
            yield,
            db,
            since,
            changed,
            std::vector<ClassId>(prog.registers, kUnbound),
            std::vector<uint32_t>(payload_var_count_, 0),
            std::vector<uint32_t>(width(), 0)};
  m.run(0);
}

void Query::search_changed(const EGraph& g, const OpIndex& index, const std::vector<bool>& changed,
                           const std::function<bool(std::span<const uint32_t>)>& yield) const {
  run_program(full_, g, index, yield, nullptr, 0, &changed);
}

void Query::search(const EGraph& g, const OpIndex& index,
                   const std::function<bool(std::span<const uint32_t>)>& yield,
                   relations::Database* db, uint32_t since) const {
  if (!atoms_.empty() && db == nullptr) return;  // no facts: no match
  // A body that matches terms too is searched in full: a term new to the e-graph may join
  // old facts, which a delta over facts alone would miss.
  if (atoms_.empty() || since == 0 || !patterns_.empty()) {
    run_program(full_, g, index, yield, db, since);
    return;
  }
  // Semi-naive: a match using several new facts is found once per new fact; rules' actions
  // are idempotent, so the repeats cost time, never correctness.
  bool go_on = true;
  for (const Program& prog : delta_) {
    if (!go_on) break;
    run_program(
        prog, g, index, [&](std::span<const uint32_t> row) { return go_on = yield(row); }, db,
        since);
  }
}

}  // namespace scalify::egraph
