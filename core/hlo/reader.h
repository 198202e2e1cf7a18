// The HLO text reader: one pass over the text, names resolved, types checked.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/expected.h"

namespace scalify::hlo {

struct ReadOptions {
  /// Check every instruction's declared result type against its opcode and operands
  /// (see shape_check.h). Operand types written inline are always checked.
  bool check_shapes = true;
};

/// Reads an HLO module from text. `file_name` only labels diagnostics.
///
///   auto m = read_module("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n", "m.hlo");
///   if (!m) std::cerr << m.error().format();   // "m.hlo:3:7: error: …"
///   else    assert(m->entry().size() == 1);
Expected<ir::Module> read_module(std::string_view text, std::string_view file_name = "<input>",
                                 const ReadOptions& options = {});

/// Reads the file at `path`: a clear diagnostic when it cannot be opened, is empty or binary.
Expected<ir::Module> read_module_file(const std::string& path, const ReadOptions& options = {});

/// Reads several files side by side, one thread each (a check's two programs: reading is a
/// large share of checking a large model). The results in the order of `paths`.
///
///   const std::string paths[] = {"ref.hlo", "dist.hlo"};
///   auto modules = read_module_files(paths);
///   if (!modules[0]) std::cerr << modules[0].error().format();  // the first file's error first
std::vector<Expected<ir::Module>> read_module_files(std::span<const std::string> paths,
                                                    const ReadOptions& options = {});

}  // namespace scalify::hlo
