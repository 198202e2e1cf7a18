// Vocabulary: interned operator names and attribute payloads, so that the e-graph compares
// small integers while people read names and attributes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "egraph/enode.h"

namespace scalify::egraph {

/// An attribute value: an integer, a real, an integer list (dimensions) or a word.
using AttrValue = std::variant<int64_t, double, std::vector<int64_t>, std::string>;

/// A payload: attributes sorted by key, each key once. Payload 0 is the empty list.
using Attrs = std::vector<std::pair<std::string, AttrValue>>;

std::string to_string(const AttrValue& v);
/// `:k1 v1 :k2 v2` (empty for no attributes).
std::string to_string(const Attrs& attrs);

/// Interns operator names as Symbols and attribute lists as payload ids. A numeric constant is
/// the nullary operator `constant` with payload `{value: x}`.
///
///   Vocabulary v;
///   Symbol t = v.symbol("transpose");
///   uint32_t p = v.payload({{"dimensions", std::vector<int64_t>{1, 0}}});
///   ENode n{t, p, {x}};
///   v.name(t) == "transpose";
///   v.attrs(p)[0].first == "dimensions";
///   v.constant_value(v.constant_payload(2.0)) == 2.0;
class Vocabulary {
 public:
  Vocabulary();

  Symbol symbol(std::string_view name);
  std::optional<Symbol> find_symbol(std::string_view name) const;
  const std::string& name(Symbol s) const { return names_[s]; }

  /// The payload id of `attrs` (sorted here; keys must be distinct).
  uint32_t payload(Attrs attrs);
  const Attrs& attrs(uint32_t payload) const { return payloads_[payload]; }
  /// How many symbols and payloads are interned (ids run from 0 to these).
  size_t symbol_count() const { return names_.size(); }
  size_t payload_count() const { return payloads_.size(); }
  /// The value of attribute `key` in a payload, or nullptr.
  const AttrValue* attr(uint32_t payload, std::string_view key) const;

  /// Commutative operators (`comm` in a rule file), associative too (`ac`): the e-graph keeps
  /// their operands sorted, patterns match them in any order, and terms of `ac` operators
  /// are written n-ary (nested applications flattened).
  void set_commutative(Symbol s, bool associative);
  bool is_commutative(Symbol s) const { return s < commutative_.size() && commutative_[s] != 0; }
  bool is_ac(Symbol s) const { return s < commutative_.size() && commutative_[s] == kAc; }
  /// The operators declared `comm` or `ac` (for EGraph::set_commutative and Query::compile).
  std::vector<Symbol> commutative_symbols() const;

  Symbol constant_symbol() const { return constant_; }
  uint32_t constant_payload(double value);
  /// The constant's value if `payload` is `{value: x}` with x a number.
  std::optional<double> constant_value(uint32_t payload) const;

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, Symbol> symbols_;
  std::vector<Attrs> payloads_;
  std::unordered_map<std::string, uint32_t> payload_ids_;  ///< keyed by a canonical encoding
  std::unordered_map<double, uint32_t> constants_;
  static constexpr uint8_t kCommutative = 1, kAc = 2;
  std::vector<uint8_t> commutative_;  ///< by symbol: 0, kCommutative or kAc
  Symbol constant_ = 0;
};

}  // namespace scalify::egraph
