#include "ir/opcode.h"

#include <algorithm>
#include <array>
#include <utility>

namespace scalify::ir {
namespace {

constexpr size_t kCount = static_cast<size_t>(Opcode::kXor) + 1;

constexpr std::array<std::string_view, kCount> kNames = {
#define SCALIFY_OPCODE_NAME(e, s, f) s,
    SCALIFY_OPCODES(SCALIFY_OPCODE_NAME)
#undef SCALIFY_OPCODE_NAME
};

constexpr std::array<OpcodeFamily, kCount> kFamilies = {
#define SCALIFY_OPCODE_FAMILY(e, s, f) OpcodeFamily::f,
    SCALIFY_OPCODES(SCALIFY_OPCODE_FAMILY)
#undef SCALIFY_OPCODE_FAMILY
};

// Names sorted once, for a binary search on the reader's hot path.
const std::array<std::pair<std::string_view, Opcode>, kCount>& sorted_names() {
  static const auto table = [] {
    std::array<std::pair<std::string_view, Opcode>, kCount> t{};
    for (size_t i = 0; i < kCount; ++i) t[i] = {kNames[i], static_cast<Opcode>(i)};
    std::sort(t.begin(), t.end());
    return t;
  }();
  return table;
}

}  // namespace

std::string_view opcode_name(Opcode op) { return kNames[static_cast<size_t>(op)]; }

OpcodeFamily opcode_family(Opcode op) { return kFamilies[static_cast<size_t>(op)]; }

std::optional<Opcode> parse_opcode(std::string_view name) {
  const auto& table = sorted_names();
  auto it = std::lower_bound(table.begin(), table.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  if (it == table.end() || it->first != name) return std::nullopt;
  return it->second;
}

}  // namespace scalify::ir
