// The HLO module reader: structure (module, computations, instructions), name resolution and
// checks. Values inside instructions are read by value_reader.h; ReadError becomes a Diagnostic.
#include "hlo/reader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <unordered_map>

#include "hlo/cursor.h"
#include "hlo/literal_check.h"
#include "hlo/shape_check.h"
#include "hlo/type_inference.h"
#include "hlo/value_reader.h"
#include "support/heap_huge_pages.h"
#include "support/read_file.h"
#include "support/thread_pool.h"

namespace scalify::hlo {
namespace {

/// Byte offsets to 1-based line:col, built once per read with memchr.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    starts_.push_back(0);
    const char* p = text.data();
    const char* end = p + text.size();
    while (const void* nl = memchr(p, '\n', static_cast<size_t>(end - p))) {
      p = static_cast<const char*>(nl) + 1;
      starts_.push_back(static_cast<size_t>(p - text.data()));
    }
  }
  SourcePos pos(size_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    const size_t line = static_cast<size_t>(it - starts_.begin());
    return {static_cast<uint32_t>(line), static_cast<uint32_t>(offset - starts_[line - 1] + 1)};
  }

 private:
  std::vector<size_t> starts_;
};

struct PendingOperand {
  std::string_view name;
  size_t offset;
  std::optional<ir::Type> declared;  ///< the type written before the operand, if any
  ir::InstrId id = -1;               ///< where found while reading (defined before its use)
};

/// What the reader remembers about a computation until names and calls are resolved.
/// Per-instruction lists are flattened (one allocation each, not one per instruction).
struct PendingComputation {
  size_t offset = 0;
  std::vector<size_t> instr_offsets;
  std::vector<PendingOperand>
      operands;  ///< of instruction i: [operand_start[i], operand_start[i+1])
  std::vector<uint32_t> operand_start{0};
  std::vector<size_t> attr_offsets;  ///< of instruction i: from attr_start[i], one per attribute
  std::vector<uint32_t> attr_start{0};
  std::vector<ir::InstrId> type_omitted;  ///< instructions whose type is to be inferred

  std::span<const PendingOperand> operands_of(size_t i) const {
    return std::span(operands).subspan(operand_start[i], operand_start[i + 1] - operand_start[i]);
  }
  size_t attr_offset(size_t i, size_t a) const { return attr_offsets[attr_start[i] + a]; }
};

/// Roughly how many instructions the computation body starting at `body` holds (its lines up to
/// the first line that starts with '}'), so that vectors are sized once.
size_t estimate_instructions(std::string_view text, size_t body) {
  const char* p = text.data() + body;
  const char* end = text.data() + text.size();
  size_t lines = 1;
  while (const void* nl = memchr(p, '\n', static_cast<size_t>(end - p))) {
    p = static_cast<const char*>(nl) + 1;
    if (p == end || *p == '}') break;
    ++lines;
  }
  return lines;
}

bool keyword_at(const Cursor& c, std::string_view kw) {
  for (size_t i = 0; i < kw.size(); ++i) {
    if (c.peek(i) != kw[i]) return false;
  }
  return !is_name_char(c.peek(kw.size())) && c.peek(kw.size()) != '%';
}

class ModuleReader {
 public:
  ModuleReader(std::string_view text, const ReadOptions& options)
      : text_(text), c_(text), options_(options) {}

  ir::Module read() {
    read_header();
    c_.skip_ws();
    while (!c_.at_end()) {
      read_computation();
      c_.skip_ws();
    }
    if (module_.computations.empty()) c_.fail("the module has no computations");
    choose_entry();
    resolve_calls();
    for (ir::CompId id : callees_first()) {
      infer_omitted_types(static_cast<size_t>(id));
      check_declared_operand_types(static_cast<size_t>(id));
    }
    LineIndex lines(text_);
    assign_positions(lines);
    if (options_.check_shapes) check_shapes();
    return std::move(module_);
  }

 private:
  void read_header() {
    c_.skip_ws();
    if (c_.at_end()) c_.fail("empty file: expected 'HloModule'");
    if (!keyword_at(c_, "HloModule")) {
      // Like XLA's reader, accept bare computations without the header line.
      const char* save = c_.ptr();
      module_.name = "module";
      if (keyword_at(c_, "ENTRY")) return;
      std::string_view first = c_.name();
      const bool computation_follows = !first.empty() && (c_.eat('{') || c_.eat('('));
      c_.reset(save);
      if (!computation_follows)
        c_.fail("expected 'HloModule' at the start of the module, found " + c_.describe_next());
      return;
    }
    c_.advance(std::strlen("HloModule"));
    module_.name = std::string(c_.expect_name("the module name"));
    read_attribute_list(module_.attrs, nullptr);
  }

  // `, key=value` repeated; returns nothing, appends to `attrs` (and their offsets).
  void read_attribute_list(std::vector<ir::Attribute>& attrs, std::vector<size_t>* offsets,
                           ir::Metadata* metadata = nullptr) {
    while (c_.eat(',')) {
      c_.skip_ws();
      const size_t at = c_.offset();
      std::string_view key = c_.word();
      if (key.empty()) c_.fail("expected an attribute name, found " + c_.describe_next());
      c_.expect('=', "after the attribute name");
      if (key == "metadata" && metadata) {
        *metadata = read_metadata(c_);
        continue;
      }
      for (const ir::Attribute& a : attrs) {
        if (a.key == key) throw ReadError{at, "duplicate attribute '" + std::string(key) + "'"};
      }
      attrs.push_back({std::string(key), read_attr_value(c_, key), {}});
      if (offsets) offsets->push_back(at);
    }
  }

  void read_computation() {
    PendingComputation pending;
    pending.offset = c_.offset();
    ir::Computation comp;
    if (keyword_at(c_, "ENTRY")) {
      comp.is_entry = true;
      c_.advance(5);
    }
    const std::string_view name = c_.expect_name("a computation name (or the end of the file)");
    comp.name = std::string(name);
    if (c_.eat('(')) skip_signature();
    read_attribute_list(comp.attrs, nullptr);
    c_.expect('{', "to open the computation body");
    const size_t estimate = estimate_instructions(text_, c_.offset());
    comp.reserve(estimate);
    pending.instr_offsets.reserve(estimate);
    pending.operand_start.reserve(estimate + 1);
    pending.attr_start.reserve(estimate + 1);
    std::optional<size_t> root_offset;
    while (true) {
      c_.skip_ws();
      if (c_.at_end())
        c_.fail_at(text_.data() + pending.offset,
                   "computation '" + comp.name + "' is not closed by '}'");
      if (c_.peek() == '}') {
        c_.advance();
        break;
      }
      const size_t at = c_.offset();
      const bool is_root = keyword_at(c_, "ROOT");
      if (is_root) {
        if (root_offset) c_.fail("computation '" + comp.name + "' has a second ROOT");
        root_offset = at;
        c_.advance(4);
      }
      read_instruction(comp, pending, is_root, at);
    }
    read_attribute_list(comp.attrs, nullptr);  // `}, execution_thread="…"` also occurs
    if (comp.instructions.empty())
      c_.fail_at(text_.data() + pending.offset,
                 "computation '" + comp.name + "' has no instructions");
    if (comp.root < 0) comp.root = static_cast<ir::InstrId>(comp.size() - 1);
    if (!computation_ids_.emplace(name, static_cast<ir::CompId>(module_.computations.size()))
             .second)
      c_.fail_at(text_.data() + pending.offset, "duplicate computation name '" + comp.name + "'");
    resolve_operands(comp, pending);
    check_parameters(comp, pending);
    module_.computations.push_back(std::move(comp));
    pending_.push_back(std::move(pending));
  }

  // `(p0: f32[], p1: f32[]) -> f32[]`: checked for form only; like XLA's reader, the body's
  // parameter instructions are what counts.
  void skip_signature() {
    if (!c_.eat(')')) {
      do {
        c_.expect_name("a parameter name");
        c_.expect(':', "after the parameter name");
        read_type(c_, 0, &types_);
      } while (c_.eat(','));
      c_.expect(')', "to close the parameter list");
    }
    if (!c_.eat("->")) c_.fail("expected '->' and the result type, found " + c_.describe_next());
    read_type(c_, 0, &types_);
  }

  // `at`: where the instruction's line starts (at ROOT, if written).
  void read_instruction(ir::Computation& comp, PendingComputation& pending, bool is_root,
                        size_t at) {
    ir::Instruction instr;
    const std::string_view name = c_.expect_name("an instruction name or '}'");
    instr.name = std::string(name);
    c_.expect('=', "after the instruction name");
    // The type may be left out (`%t = tuple(%a, %b)`); it is then inferred once names resolve.
    c_.skip_ws();
    const char* type_at = c_.ptr();
    const std::string_view leading_word = c_.peek() == '(' ? std::string_view() : c_.word();
    const bool type_omitted = !leading_word.empty() && c_.peek() == '(';
    c_.reset(type_at);
    if (!type_omitted) instr.type = read_type(c_, 0, &types_);
    c_.skip_ws();
    const char* op_at = c_.ptr();
    std::string_view op = c_.word();
    if (op.empty()) c_.fail("expected an opcode, found " + c_.describe_next());
    set_opcode(instr, op, op_at);
    c_.expect('(', "after the opcode");
    if (instr.opcode == ir::Opcode::kParameter) {
      instr.parameter_number = c_.integer("parameter number");
      if (instr.parameter_number < 0) c_.fail("negative parameter number");
      c_.expect(')', "after the parameter number");
    } else if (instr.opcode == ir::Opcode::kConstant) {
      c_.skip_ws();
      const size_t literal_at = c_.offset();
      std::string_view literal = c_.until_matching('(', ')', "constant");
      while (!literal.empty() && std::strchr(" \t\r\n", literal.back())) literal.remove_suffix(1);
      if (literal.empty()) c_.fail("constant has no value");
      if (auto err = check_literal(literal, instr.type)) {
        throw ReadError{literal_at + err->offset,
                        "constant of type " + instr.type.to_string(false) + ": " + err->message};
      }
      instr.literal = std::string(literal);
    } else if (!c_.eat(')')) {
      do {
        pending.operands.push_back(read_operand(comp, pending));
      } while (c_.eat(','));
      c_.expect(')', "to close the operand list");
    }
    read_attribute_list(instr.attrs, &pending.attr_offsets, &instr.metadata);
    const auto added = comp.add(std::move(instr));
    if (!added) {
      const size_t first = static_cast<size_t>(*comp.find(name));
      const SourcePos p = LineIndex(text_).pos(pending.instr_offsets[first]);
      throw ReadError{at, "duplicate instruction name '" + std::string(name) +
                              "' (first defined at line " + std::to_string(p.line) + ")"};
    }
    const ir::InstrId id = *added;
    if (is_root) comp.root = id;
    if (type_omitted) pending.type_omitted.push_back(id);
    pending.instr_offsets.push_back(at);
    pending.operand_start.push_back(static_cast<uint32_t>(pending.operands.size()));
    pending.attr_start.push_back(static_cast<uint32_t>(pending.attr_offsets.size()));
  }

  void set_opcode(ir::Instruction& instr, std::string_view op, const char* op_at) {
    if (auto opcode = ir::parse_opcode(op)) {
      instr.opcode = *opcode;
      return;
    }
    // Async wrappers of any op: `call-start`, `custom-call-update`, `fusion-done`, …
    for (auto [suffix, async] : {std::pair{std::string_view("-start"), ir::Opcode::kAsyncStart},
                                 std::pair{std::string_view("-update"), ir::Opcode::kAsyncUpdate},
                                 std::pair{std::string_view("-done"), ir::Opcode::kAsyncDone}}) {
      if (op.size() <= suffix.size() || op.substr(op.size() - suffix.size()) != suffix) continue;
      if (auto wrapped = ir::parse_opcode(op.substr(0, op.size() - suffix.size()))) {
        instr.opcode = async;
        instr.async_wrapped = *wrapped;
        return;
      }
    }
    c_.fail_at(op_at, "unknown opcode '" + std::string(op) + "'");
  }

  // `f32[4]{0} %x`, `%x` or `x`. The declared type of an operand already defined (the common
  // case in torch-xla dumps) is checked at once; others wait until every name and inferred type
  // is known.
  PendingOperand read_operand(const ir::Computation& comp, const PendingComputation& pending) {
    c_.skip_ws();
    PendingOperand operand{{}, c_.offset(), std::nullopt};
    if (c_.peek() == '(') {
      operand.declared = read_type(c_, 0, &types_);
    } else if (c_.peek() != '%') {
      const char* save = c_.ptr();
      std::string_view w = c_.word();
      c_.reset(save);
      if (c_.peek(w.size()) == '[' && ir::parse_dtype(w))
        operand.declared = read_type(c_, 0, &types_);
    }
    c_.skip_ws();
    operand.offset = c_.offset();
    operand.name = c_.expect_name("an operand name");
    if (operand.declared) {
      const auto id = comp.find(operand.name);
      if (id) operand.id = *id;
      const bool known = id && std::find(pending.type_omitted.begin(), pending.type_omitted.end(),
                                         *id) == pending.type_omitted.end();
      if (known) {
        if (!operand.declared->compatible(comp[*id].type)) {
          throw ReadError{operand.offset,
                          declared_type_mismatch(operand.name, *operand.declared, comp[*id].type)};
        }
        operand.declared.reset();  // checked
      }
    }
    return operand;
  }

  static std::string declared_type_mismatch(std::string_view name, const ir::Type& declared,
                                            const ir::Type& actual) {
    return "operand '" + std::string(name) + "' is declared " + declared.to_string(false) +
           " here but defined as " + actual.to_string(false);
  }

  void resolve_operands(ir::Computation& comp, const PendingComputation& pending) {
    for (size_t i = 0; i < comp.size(); ++i) {
      ir::Instruction& instr = comp.instructions[i];
      for (const PendingOperand& operand : pending.operands_of(i)) {
        const auto id = operand.id >= 0 ? std::optional(operand.id) : comp.find(operand.name);
        if (!id) {
          throw ReadError{operand.offset, "undefined operand '" + std::string(operand.name) +
                                              "' in computation '" + comp.name + "'"};
        }
        instr.operands.push_back(*id);
      }
    }
    if (!comp.topological_order()) {
      throw ReadError{pending.offset,
                      "the instructions of computation '" + comp.name + "' form a cycle"};
    }
  }

  void check_parameters(const ir::Computation& comp, const PendingComputation& pending) {
    std::vector<ir::InstrId> seen;
    for (size_t i = 0; i < comp.size(); ++i) {
      const ir::Instruction& instr = comp.instructions[i];
      if (instr.opcode != ir::Opcode::kParameter) continue;
      const auto n = static_cast<size_t>(instr.parameter_number);
      if (n >= comp.size())
        throw ReadError{pending.instr_offsets[i],
                        "parameter number " + std::to_string(n) + " is out of range"};
      if (seen.size() <= n) seen.resize(n + 1, -1);
      if (seen[n] >= 0)
        throw ReadError{pending.instr_offsets[i],
                        "duplicate parameter number " + std::to_string(n)};
      seen[n] = static_cast<ir::InstrId>(i);
    }
    for (size_t n = 0; n < seen.size(); ++n) {
      if (seen[n] < 0)
        throw ReadError{pending.offset, "computation '" + comp.name + "' has no parameter(" +
                                            std::to_string(n) + ")"};
    }
  }

  void choose_entry() {
    for (size_t i = 0; i < module_.computations.size(); ++i) {
      if (!module_.computations[i].is_entry) continue;
      if (module_.entry_id >= 0) throw ReadError{pending_[i].offset, "a second ENTRY computation"};
      module_.entry_id = static_cast<ir::CompId>(i);
    }
    if (module_.entry_id < 0) {  // XLA's rule: without ENTRY, the last computation is the entry
      module_.entry_id = static_cast<ir::CompId>(module_.computations.size() - 1);
    }
  }

  void resolve_calls() {
    for (size_t ci = 0; ci < module_.computations.size(); ++ci) {
      ir::Computation& comp = module_.computations[ci];
      for (size_t i = 0; i < comp.size(); ++i) {
        ir::Instruction& instr = comp.instructions[i];
        for (size_t a = 0; a < instr.attrs.size(); ++a) {
          const auto* refs = std::get_if<ir::ComputationRefs>(&instr.attrs[a].value);
          if (!refs) continue;
          for (const std::string& callee : refs->names) {
            const auto found = computation_ids_.find(callee);
            if (found == computation_ids_.end())
              throw ReadError{pending_[ci].attr_offset(i, a),
                              "unknown computation '" + callee + "'"};
            if (found->second == module_.entry_id)
              throw ReadError{pending_[ci].attr_offset(i, a),
                              "the ENTRY computation cannot be called"};
            instr.called.push_back(found->second);
          }
        }
      }
    }
  }

  // Instructions written without a type get XLA's inferred type, operands first.
  void infer_omitted_types(size_t ci) {
    const PendingComputation& pending = pending_[ci];
    if (pending.type_omitted.empty()) return;
    ir::Computation& comp = module_.computations[ci];
    std::vector<bool> omitted(comp.size(), false);
    for (ir::InstrId id : pending.type_omitted) omitted[static_cast<size_t>(id)] = true;
    const std::vector<ir::InstrId> order =
        comp.topological_order().value();  // acyclic: checked on reading
    for (ir::InstrId id : order) {
      if (!omitted[static_cast<size_t>(id)]) continue;
      std::string why;
      std::optional<ir::Type> type = infer_result_type(module_, comp, comp[id], &why);
      if (!type) {
        throw ReadError{pending.instr_offsets[static_cast<size_t>(id)],
                        "cannot infer the type of '" + comp[id].name + "' (write it out): " + why};
      }
      comp[id].type = std::move(*type);
    }
  }

  void check_declared_operand_types(size_t ci) const {
    const ir::Computation& comp = module_.computations[ci];
    const PendingComputation& pending = pending_[ci];
    for (size_t i = 0; i < comp.size(); ++i) {
      const auto operands = pending.operands_of(i);
      for (size_t k = 0; k < operands.size(); ++k) {
        const ir::Type& actual = comp[comp.instructions[i].operands[k]].type;
        if (operands[k].declared && !operands[k].declared->compatible(actual)) {
          throw ReadError{operands[k].offset,
                          declared_type_mismatch(operands[k].name, *operands[k].declared, actual)};
        }
      }
    }
  }

  // The computations in an order where every callee comes before its callers; a computation
  // that calls itself, directly or not, is an error.
  std::vector<ir::CompId> callees_first() const {
    const size_t n = module_.computations.size();
    std::vector<std::vector<ir::CompId>> callees(n);
    for (size_t c = 0; c < n; ++c) {
      for (const auto& instr : module_.computations[c].instructions) {
        callees[c].insert(callees[c].end(), instr.called.begin(), instr.called.end());
      }
    }
    std::vector<ir::CompId> order;
    std::vector<uint8_t> state(n, 0);              // 0 new, 1 on the stack, 2 done
    std::vector<std::pair<size_t, size_t>> stack;  // (computation, next callee to visit)
    for (size_t start = 0; start < n; ++start) {
      if (state[start]) continue;
      stack.emplace_back(start, 0);
      state[start] = 1;
      while (!stack.empty()) {
        auto& [c, next] = stack.back();
        if (next == callees[c].size()) {
          state[c] = 2;
          order.push_back(static_cast<ir::CompId>(c));
          stack.pop_back();
          continue;
        }
        const auto callee = static_cast<size_t>(callees[c][next++]);
        if (state[callee] == 1) {
          throw ReadError{pending_[callee].offset,
                          "computation '" + module_.computations[callee].name + "' calls itself"};
        }
        if (state[callee] == 0) {
          state[callee] = 1;
          stack.emplace_back(callee, 0);
        }
      }
    }
    return order;
  }

  void assign_positions(const LineIndex& lines) {
    for (size_t ci = 0; ci < module_.computations.size(); ++ci) {
      ir::Computation& comp = module_.computations[ci];
      comp.pos = lines.pos(pending_[ci].offset);
      for (size_t i = 0; i < comp.size(); ++i) {
        comp.instructions[i].pos = lines.pos(pending_[ci].instr_offsets[i]);
        for (size_t a = 0; a < comp.instructions[i].attrs.size(); ++a) {
          comp.instructions[i].attrs[a].pos = lines.pos(pending_[ci].attr_offset(i, a));
        }
      }
    }
  }

  void check_shapes() const {
    for (size_t ci = 0; ci < module_.computations.size(); ++ci) {
      const ir::Computation& comp = module_.computations[ci];
      for (size_t i = 0; i < comp.size(); ++i) {
        if (auto problem = check_result_type(module_, comp, comp.instructions[i])) {
          throw ReadError{pending_[ci].instr_offsets[i],
                          "'" + comp.instructions[i].name + "': " + *problem};
        }
      }
    }
  }

  std::string_view text_;
  Cursor c_;
  ReadOptions options_;
  ir::Module module_;
  std::vector<PendingComputation> pending_;
  TypeCache types_;
  /// Computation names (views of the text) to their ids.
  std::unordered_map<std::string_view, ir::CompId> computation_ids_;
};

Diagnostic to_diagnostic(std::string_view text, std::string_view file_name, const ReadError& e) {
  const SourcePos pos = LineIndex(text).pos(std::min(e.offset, text.size()));
  return Diagnostic{std::string(file_name), pos, e.message, std::string(line_of(text, pos.line))};
}

}  // namespace

Expected<ir::Module> read_module(std::string_view text, std::string_view file_name,
                                 const ReadOptions& options) {
  try {
    return ModuleReader(text, options).read();
  } catch (const ReadError& e) {
    return to_diagnostic(text, file_name, e);
  }
}

Expected<ir::Module> read_module_file(const std::string& path, const ReadOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Diagnostic{path, {}, "is a directory, not an HLO file", ""};
  std::string why;
  const std::optional<FileText> read = map_whole_file(path, &why);
  if (!read) return Diagnostic{path, {}, why, ""};
  const std::string_view text = read->view();
  if (text.empty())
    return Diagnostic{path, {1, 1}, "the file is empty: expected an HLO module", ""};
  if (const void* nul = memchr(text.data(), '\0', text.size())) {
    const auto offset = static_cast<size_t>(static_cast<const char*>(nul) - text.data());
    return to_diagnostic(text, path,
                         ReadError{offset, "the file is binary (a NUL byte), not HLO text"});
  }
  return read_module(text, path, options);
}

std::vector<Expected<ir::Module>> read_module_files(std::span<const std::string> paths,
                                                    const ReadOptions& options) {
  std::vector<std::optional<Expected<ir::Module>>> read(paths.size());
  parallel_for(paths.size(), paths.size(), [&](size_t i) {
    if (i > 0) support::use_huge_pages_for_thread_heap();
    read[i].emplace(read_module_file(paths[i], options));
  });
  std::vector<Expected<ir::Module>> out;
  out.reserve(paths.size());
  for (auto& r : read) out.push_back(std::move(*r));
  return out;
}

}  // namespace scalify::hlo
