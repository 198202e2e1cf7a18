// NameTable: text names of an enum's values to the values, by hash.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace scalify {

/// Finds an enum value by its name. `names[i]` names the value `Enum(i)`; the strings must
/// outlive the table (string literals do).
///
///   static const NameTable<DType> table(kNames);
///   table.find("bf16") == DType::kBF16;  table.find("nope") == std::nullopt;
template <class Enum>
class NameTable {
 public:
  template <size_t N>
  explicit NameTable(const std::array<std::string_view, N>& names) {
    for (size_t i = 0; i < N; ++i) by_name_.emplace(names[i], static_cast<Enum>(i));
  }
  std::optional<Enum> find(std::string_view name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::unordered_map<std::string_view, Enum> by_name_;
};

}  // namespace scalify
