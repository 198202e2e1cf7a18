#include "verify/fingerprint.h"

#include <charconv>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "verify/term_bridge.h"

namespace scalify::verify {

namespace {

/// Two independent 64-bit FNV-1a variants (different offset bases and primes), fed piece by
/// piece, so that a canonical text is hashed without being built.
class Fnv2 {
 public:
  Fnv2& add(std::string_view s) {
    for (unsigned char ch : s) {
      a_ = (a_ ^ ch) * 0x100000001b3ull;
      b_ = (b_ ^ ch) * (0x1000000001b3ull ^ 0x2ull);
    }
    return *this;
  }
  Fnv2& add(char ch) { return add(std::string_view(&ch, 1)); }
  Fnv2& add_number(int64_t v) {
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    return add(std::string_view(buf, static_cast<size_t>(end - buf)));
  }
  /// 32 hex digits; b gets a final mix.
  std::string digest() const {
    uint64_t b = b_;
    b ^= b >> 29;
    b *= 0xbf58476d1ce4e5b9ull;
    b ^= b >> 32;
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a_),
                  static_cast<unsigned long long>(b));
    return buf;
  }

 private:
  uint64_t a_ = 0xcbf29ce484222325ull, b_ = 0x84222325cbf29ce4ull;
};

/// The hash of a computation's canonical text: one line per instruction, operands by index,
/// value-neutral attributes left out; a called computation by its own hash, computed once.
class Canonical {
 public:
  explicit Canonical(const ir::Module& m) : m_(m) {}

  std::string hash(ir::CompId c) {
    const auto found = done_.find(c);
    if (found != done_.end()) return found->second;
    const ir::Computation& comp = m_.computations[static_cast<size_t>(c)];
    Fnv2 h;
    std::vector<int64_t> index(comp.size(), -1);
    int64_t next = 0;
    const auto order = comp.topological_order().value_or(std::vector<ir::InstrId>{});
    for (ir::InstrId id : order) {
      const ir::Instruction& instr = comp[id];
      index[static_cast<size_t>(id)] = next++;
      type_text_.clear();
      instr.type.append_to(type_text_, false);
      h.add(instr.opcode_text()).add(' ').add(type_text_);
      if (instr.opcode == ir::Opcode::kParameter) h.add(" #").add_number(instr.parameter_number);
      h.add(" (");
      for (ir::InstrId o : instr.operands) h.add_number(index[static_cast<size_t>(o)]).add(',');
      h.add(')');
      if (!instr.literal.empty()) h.add(" {").add(instr.literal).add('}');
      for (const ir::Attribute& a : instr.attrs) {
        if (value_neutral(a.key)) continue;
        if (std::holds_alternative<ir::ComputationRefs>(a.value)) continue;  // below
        h.add(' ').add(a.key).add('=').add(ir::attr_value_to_string(a.value));
      }
      for (ir::CompId callee : instr.called) h.add(" call:").add(hash(callee));
      if (id == comp.root) h.add(" ROOT");
      h.add('\n');
    }
    return done_.emplace(c, h.digest()).first->second;
  }

 private:
  const ir::Module& m_;
  std::unordered_map<ir::CompId, std::string> done_;
  std::string type_text_;  ///< one buffer for every instruction's type text
};

}  // namespace

std::string hash128(std::string_view text) { return Fnv2().add(text).digest(); }

std::string fingerprint(const ir::Module& m) { return Canonical(m).hash(m.entry_id); }

std::string computation_fingerprint(const ir::Module& m, ir::CompId comp) {
  return Canonical(m).hash(comp);
}

}  // namespace scalify::verify
