#include "ir/metadata.h"

#include "ir/attributes.h"

namespace scalify::ir {

std::string Metadata::to_string() const {
  std::string out = "{";
  auto sep = [&] {
    if (out.size() > 1) out += ' ';
  };
  auto text = [&](const char* key, const std::string& v) {
    if (v.empty()) return;
    sep();
    out += key;
    out += '=';
    out += quote(v);
  };
  auto number = [&](const char* key, int64_t v) {
    if (v < 0) return;
    sep();
    out += key;
    out += '=';
    out += std::to_string(v);
  };
  text("op_type", op_type);
  text("op_name", op_name);
  text("source_file", source_file);
  number("source_line", source_line);
  number("source_column", source_column);
  number("stack_frame_id", stack_frame_id);
  for (const auto& [key, value] : other) {
    sep();
    out += key + '=' + value;
  }
  out += '}';
  return out;
}

}  // namespace scalify::ir
