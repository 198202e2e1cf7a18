#include "egraph/query.h"

#include <algorithm>

namespace scalify::egraph {
namespace {

constexpr uint32_t kNoReg = 0xffffffffu;

}  // namespace

OpIndex::OpIndex(const EGraph& g) {
  all_ = g.class_ids();
  for (ClassId c : all_) {
    Symbol last = 0;
    bool first = true;
    for (const ENode& n : g.nodes(c)) {  // sorted by op: one entry per (op, class)
      if (!first && n.op == last) continue;
      by_op_[n.op].push_back(c);
      last = n.op;
      first = false;
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

void Query::compile_node(const Pattern& p, uint32_t node, uint32_t reg,
                         std::vector<uint32_t>& var_reg, std::vector<bool>& payload_bound) {
  const Pattern::Node& n = p.nodes()[node];
  Instr bind{Instr::Kind::kBind, reg, registers_, n.op, static_cast<uint32_t>(n.children.size())};
  registers_ += bind.arity;
  if (n.payload_var) {
    bind.kind =
        payload_bound[*n.payload_var] ? Instr::Kind::kCheckPayload : Instr::Kind::kBindPayload;
    bind.payload = *n.payload_var;
    payload_bound[*n.payload_var] = true;
  } else if (n.payload) {
    bind.has_payload = true;
    bind.payload = *n.payload;
  }
  program_.push_back(bind);
  // Variables first: comparing early prunes the search before descending.
  for (uint32_t k = 0; k < bind.arity; ++k) {
    const Pattern::Node& child = p.nodes()[n.children[k]];
    if (!child.is_var) continue;
    if (var_reg[child.var] == kNoReg) {
      var_reg[child.var] = bind.other + k;
    } else {
      program_.push_back(Instr{Instr::Kind::kCompare, bind.other + k, var_reg[child.var]});
    }
  }
  for (uint32_t k = 0; k < bind.arity; ++k) {
    if (!p.nodes()[n.children[k]].is_var) {
      compile_node(p, n.children[k], bind.other + k, var_reg, payload_bound);
    }
  }
}

void Query::compile() {
  program_.clear();
  registers_ = 0;
  std::vector<uint32_t> var_reg(var_count_, kNoReg);
  std::vector<bool> payload_bound(payload_var_count_, false);
  for (const auto& [pattern, root_var] : patterns_) {
    const Pattern::Node& root = pattern.nodes()[pattern.root()];
    // The register the root is matched in: a variable bound earlier, or a new scan.
    uint32_t reg = kNoReg;
    const std::optional<uint32_t> root_is = root.is_var ? std::optional(root.var) : root_var;
    if (root_is && var_reg[*root_is] != kNoReg) reg = var_reg[*root_is];
    if (reg == kNoReg) {
      reg = registers_++;
      program_.push_back(root.is_var ? Instr{Instr::Kind::kScanAll, reg}
                                     : Instr{Instr::Kind::kScanOp, reg, 0, root.op});
    }
    for (std::optional<uint32_t> v :
         {root.is_var ? std::optional(root.var) : std::nullopt, root_var}) {
      if (!v) continue;
      if (var_reg[*v] == kNoReg) {
        var_reg[*v] = reg;
      } else if (var_reg[*v] != reg) {
        program_.push_back(Instr{Instr::Kind::kCompare, reg, var_reg[*v]});
      }
    }
    if (!root.is_var) compile_node(pattern, pattern.root(), reg, var_reg, payload_bound);
  }
  var_reg_ = std::move(var_reg);
  compiled_ = true;
}

/// The backtracking interpreter of a compiled query: registers hold classes, each instruction
/// either narrows the search (Compare) or branches over candidates (Scan, Bind).
struct Query::Machine {
  const EGraph& g;
  const OpIndex& index;
  const Query& q;
  const std::function<bool(std::span<const uint32_t>)>& yield;
  std::vector<ClassId> regs;
  std::vector<uint32_t> payloads;
  std::vector<uint32_t> row;
  bool stopped = false;

  void run(size_t pc) {
    if (pc == q.program_.size()) {
      for (uint32_t v = 0; v < q.var_count_; ++v) {
        row[v] = q.var_reg_[v] == kNoReg ? kUnbound : regs[q.var_reg_[v]];
      }
      std::copy(payloads.begin(), payloads.end(), row.begin() + q.var_count_);
      if (!yield(row)) stopped = true;
      return;
    }
    const Instr& in = q.program_[pc];
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
        const std::vector<ENode>& nodes = g.nodes(regs[in.reg]);
        auto it = std::lower_bound(nodes.begin(), nodes.end(), in.op,
                                   [](const ENode& n, Symbol op) { return n.op < op; });
        for (; it != nodes.end() && it->op == in.op; ++it) {
          if (it->children.size() != in.arity) continue;
          if (in.kind == Instr::Kind::kBind && in.has_payload && it->payload != in.payload) {
            continue;
          }
          if (in.kind == Instr::Kind::kCheckPayload && payloads[in.payload] != it->payload) {
            continue;
          }
          if (in.kind == Instr::Kind::kBindPayload) payloads[in.payload] = it->payload;
          std::copy(it->children.begin(), it->children.end(), regs.begin() + in.other);
          run(pc + 1);
          if (stopped) return;
        }
        return;
      }
    }
  }
};

void Query::search(const EGraph& g, const OpIndex& index,
                   const std::function<bool(std::span<const uint32_t>)>& yield) const {
  Machine m{g,
            index,
            *this,
            yield,
            std::vector<ClassId>(registers_, kUnbound),
            std::vector<uint32_t>(payload_var_count_, 0),
            std::vector<uint32_t>(width(), 0)};
  m.run(0);
}

}  // namespace scalify::egraph
