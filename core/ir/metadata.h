// `metadata={op_type="…" op_name="…" source_file="…" source_line=N …}`: where a node came from.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace scalify::ir {

/// The framework's record of an instruction's origin. Absent numbers are -1.
///
///   md.op_name == "model.layers.17.self_attn/aten__mm";
///   md.source_file == "model.py"; md.source_line == 123;
struct Metadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = -1;
  int64_t source_column = -1;
  int64_t stack_frame_id = -1;
  /// Any other field (`deduplicated_name`, `scheduling_name`, `preserve_layout`, …): key and
  /// value text as written (strings keep their quotes).
  std::vector<std::pair<std::string, std::string>> other;

  bool empty() const {
    return op_type.empty() && op_name.empty() && source_file.empty() && source_line < 0 &&
           source_column < 0 && stack_frame_id < 0 && other.empty();
  }
  /// true when the framework recorded a source file and line.
  bool has_source_site() const { return !source_file.empty() && source_line >= 0; }
  /// The canonical text including braces, e.g. `{op_name="a" source_line=3}`.
  std::string to_string() const;
  friend bool operator==(const Metadata&, const Metadata&) = default;
};

}  // namespace scalify::ir
