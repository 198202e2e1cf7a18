#include "egraph/vocabulary.h"

#include <algorithm>
#include <sstream>

namespace scalify::egraph {
namespace {

/// An unambiguous text key for an attribute list (the values' type tags included).
std::string encode(const Attrs& attrs) {
  std::string key;
  for (const auto& [name, value] : attrs) {
    key += name;
    key += '\x1f';
    key += static_cast<char>('0' + value.index());
    key += to_string(value);
    key += '\x1e';
  }
  return key;
}

}  // namespace

std::string to_string(const AttrValue& v) {
  struct Printer {
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream out;
      out.precision(17);
      out << d;
      return out.str();
    }
    std::string operator()(const std::vector<int64_t>& list) const {
      std::string s = "[";
      for (size_t i = 0; i < list.size(); ++i) s += (i ? " " : "") + std::to_string(list[i]);
      return s + "]";
    }
    std::string operator()(const std::string& word) const { return word; }
  };
  return std::visit(Printer{}, v);
}

std::string to_string(const Attrs& attrs) {
  std::string s;
  for (const auto& [key, value] : attrs) {
    if (!s.empty()) s += ' ';
    s += ':' + key + ' ' + to_string(value);
  }
  return s;
}

Vocabulary::Vocabulary() {
  payloads_.emplace_back();  // payload 0: no attributes
  payload_ids_.emplace(std::string(), 0);
  constant_ = symbol("constant");
}

Symbol Vocabulary::symbol(std::string_view name) {
  auto [it, inserted] = symbols_.try_emplace(std::string(name), static_cast<Symbol>(names_.size()));
  if (inserted) names_.emplace_back(name);
  return it->second;
}

std::optional<Symbol> Vocabulary::find_symbol(std::string_view name) const {
  auto it = symbols_.find(std::string(name));
  if (it == symbols_.end()) return std::nullopt;
  return it->second;
}

uint32_t Vocabulary::payload(Attrs attrs) {
  std::sort(attrs.begin(), attrs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  auto [it, inserted] =
      payload_ids_.try_emplace(encode(attrs), static_cast<uint32_t>(payloads_.size()));
  if (inserted) payloads_.push_back(std::move(attrs));
  return it->second;
}

const AttrValue* Vocabulary::attr(uint32_t payload, std::string_view key) const {
  for (const auto& [name, value] : payloads_[payload]) {
    if (name == key) return &value;
  }
  return nullptr;
}

void Vocabulary::set_commutative(Symbol s, bool associative) {
  if (commutative_.size() <= s) commutative_.resize(s + 1, 0);
  commutative_[s] = associative ? kAc : kCommutative;
}

std::vector<Symbol> Vocabulary::commutative_symbols() const {
  std::vector<Symbol> out;
  for (Symbol s = 0; s < commutative_.size(); ++s) {
    if (commutative_[s] != 0) out.push_back(s);
  }
  return out;
}

uint32_t Vocabulary::constant_payload(double value) {
  if (value == 0) value = 0;  // one zero: -0.0 and 0.0 are the same constant
  if (auto it = constants_.find(value); it != constants_.end()) return it->second;
  const uint32_t id = payload({{"value", value}});
  constants_.emplace(value, id);
  return id;
}

std::optional<double> Vocabulary::constant_value(uint32_t payload) const {
  const AttrValue* v = attr(payload, "value");
  if (!v) return std::nullopt;
  if (const double* d = std::get_if<double>(v)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  return std::nullopt;
}

}  // namespace scalify::egraph
