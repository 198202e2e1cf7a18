#include "verify/fingerprint.h"

#include <cstdio>
#include <unordered_map>

#include "verify/term_bridge.h"

namespace scalify::verify {

namespace {

/// The canonical text of computation `c`: one line per instruction, operands by index.
/// Called computations are written by their canonical text's hash, computed once each.
class Canonical {
 public:
  explicit Canonical(const ir::Module& m) : m_(m) {}

  std::string text(ir::CompId c) {
    const auto found = done_.find(c);
    if (found != done_.end()) return found->second;
    const ir::Computation& comp = m_.computations[static_cast<size_t>(c)];
    std::string out;
    std::unordered_map<ir::InstrId, size_t> index;
    const auto order = comp.topological_order().value_or(std::vector<ir::InstrId>{});
    for (ir::InstrId id : order) {
      const ir::Instruction& instr = comp[id];
      index[id] = index.size();
      out += instr.opcode_text();
      out += ' ';
      out += instr.type.to_string(false);
      if (instr.opcode == ir::Opcode::kParameter)
        out += " #" + std::to_string(instr.parameter_number);
      out += " (";
      for (ir::InstrId o : instr.operands) out += std::to_string(index.at(o)) + ',';
      out += ')';
      if (!instr.literal.empty()) out += " {" + instr.literal + '}';
      for (const ir::Attribute& a : instr.attrs) {
        if (value_neutral(a.key)) continue;
        if (std::holds_alternative<ir::ComputationRefs>(a.value)) continue;  // below
        out += ' ' + a.key + '=' + ir::attr_value_to_string(a.value);
      }
      for (ir::CompId callee : instr.called) out += " call:" + hash128(text(callee));
      if (id == comp.root) out += " ROOT";
      out += '\n';
    }
    return done_.emplace(c, std::move(out)).first->second;
  }

 private:
  const ir::Module& m_;
  std::unordered_map<ir::CompId, std::string> done_;
};

uint64_t fnv1a(std::string_view s, uint64_t h, uint64_t prime) {
  for (unsigned char ch : s) {
    h ^= ch;
    h *= prime;
  }
  return h;
}

}  // namespace

std::string hash128(std::string_view text) {
  // Two independent 64-bit FNV-1a variants (different offset bases, primes and a final mix).
  uint64_t a = fnv1a(text, 0xcbf29ce484222325ull, 0x100000001b3ull);
  uint64_t b = fnv1a(text, 0x84222325cbf29ce4ull, 0x1000000001b3ull ^ 0x2ull);
  b ^= b >> 29;
  b *= 0xbf58476d1ce4e5b9ull;
  b ^= b >> 32;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

std::string fingerprint(const ir::Module& m) {
  Canonical c(m);
  return hash128(c.text(m.entry_id));
}

}  // namespace scalify::verify
