#include "verify/type_table.h"

#include <cmath>

#include "rules/tensor_term.h"

namespace scalify::verify {

namespace {

/// Whether number class c is an integer: its constant leaf holds one (a number made by an op on
/// numbers, without a leaf, is not known to be).
bool integral_number(egraph::ClassId c, const egraph::EGraph& g, const egraph::Vocabulary& vocab) {
  for (const egraph::ENode& n : g.nodes(c, vocab.constant_symbol())) {
    const auto v = vocab.constant_value(n.payload);
    return v && std::isfinite(*v) && *v == std::trunc(*v);
  }
  return false;
}

bool integer_like(ir::DType t) { return ir::is_integer(t) || t == ir::DType::kPred; }

}  // namespace

TypeTable::TypeTable() : types_(2) {}

egraph::TypeId TypeTable::intern(const ir::Type& type) {
  const std::string key = type.to_string(false);
  auto [it, inserted] = ids_.try_emplace(key, static_cast<egraph::TypeId>(types_.size()));
  if (inserted) {
    ir::Type plain = type;
    plain.set_layout(std::nullopt);
    types_.push_back(std::move(plain));
  }
  return it->second;
}

std::optional<ir::Type> TypeTable::type(egraph::TypeId id) const {
  return id < types_.size() ? types_[id] : std::nullopt;
}

egraph::TypeId TypeTable::type_of(const egraph::ENode& node, const egraph::EGraph& g,
                                  const egraph::Vocabulary& vocab) {
  if (node.op == vocab.constant_symbol()) return kNumber;
  key_.assign({node.op, node.payload});
  for (egraph::ClassId c : node.children) {
    const egraph::TypeId t = g.type_of(c);
    key_.push_back(t);
    if (t == kNumber) key_.push_back(integral_number(c, g, vocab));
  }
  if (const auto it = typed_.find(key_); it != typed_.end()) return it->second;
  const egraph::TypeId t = type_of_uncached(node, g, vocab);
  typed_.emplace(key_, t);
  return t;
}

egraph::TypeId TypeTable::type_of_uncached(const egraph::ENode& node, const egraph::EGraph& g,
                                           const egraph::Vocabulary& vocab) {
  std::vector<std::optional<ir::Type>> args;
  args.reserve(node.children.size());
  bool all_numbers = true, fraction = false;
  for (egraph::ClassId c : node.children) {
    const egraph::TypeId t = g.type_of(c);
    if (t == kUntyped) return kUntyped;
    args.push_back(type(t));
    all_numbers = all_numbers && t == kNumber;
    fraction = fraction || (t == kNumber && !integral_number(c, g, vocab));
  }
  // Moving the elements of a number around leaves the number (a broadcast scalar is the same
  // in every position), which is how a rule that transposes both operands of a product treats
  // a scalar operand.
  const std::string& op = vocab.name(node.op);
  if (all_numbers && node.children.size() == 1 &&
      (op == "transpose" || op == "reshape" || op == "reverse" || op == "slice")) {
    return kNumber;
  }
  // A broadcast of a number is a splat: the number again (its element type is its users', which
  // the broadcast cannot know), or, mapping dimensions a scalar does not have, no value at all.
  // (Typing it f32 would set it against the bf16 or integer value a rule equates it with.)
  if (op == "broadcast" && node.children.size() == 1 && all_numbers) {
    const egraph::AttrValue* dims = vocab.attr(node.payload, "dimensions");
    const auto* list = dims ? std::get_if<std::vector<int64_t>>(dims) : nullptr;
    return !dims || (list && list->empty()) ? kNumber : kUntyped;
  }
  auto typed = rules::check::type_application(op, args, vocab.attrs(node.payload));
  if (const auto* t = std::get_if<ir::Type>(&typed)) {
    // A number stands for a splat of the element type the op computes in (a compare: its
    // operands'). One that is not an integer cannot be an integer or pred value: x / 2 is not
    // x * 0.5 in s32, so a rule that would build that term does not apply there.
    if (fraction) {
      std::optional<ir::DType> in = t->is_array() ? std::optional(t->dtype()) : std::nullopt;
      if (op == "compare") {
        in.reset();
        for (const auto& a : args) {
          if (a && a->is_array()) in = a->dtype();
        }
      }
      if (in && integer_like(*in)) return kUntyped;
    }
    // An elementwise op on numbers only is a number itself.
    if (all_numbers && !node.children.empty() && t->rank() == 0 &&
        vocab.name(node.op) != "convert") {
      return kNumber;
    }
    return intern(*t);
  }
  return kUntyped;
}

}  // namespace scalify::verify
