#include "support/diagnostic.h"

namespace scalify {

std::string_view line_of(std::string_view text, uint32_t line) {
  size_t begin = 0;
  for (uint32_t l = 1; l < line; ++l) {
    size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos) return {};
    begin = nl + 1;
  }
  size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  std::string_view result = text.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

std::string Diagnostic::format() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (pos.known()) {
    out += ':' + std::to_string(pos.line) + ':' + std::to_string(pos.col);
  }
  out += ": error: " + message + '\n';
  if (pos.known() && !line_text.empty()) {
    // Show the line (non-printable bytes as '?', so binary input cannot garble a terminal)
    // and a caret under the column.
    std::string shown;
    shown.reserve(line_text.size());
    for (unsigned char c : line_text) {
      shown += (c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80) ? static_cast<char>(c) : '?';
    }
    if (shown.size() > 200) shown = shown.substr(0, 200) + "...";
    out += "  " + shown + '\n';
    std::string caret = "  ";
    for (uint32_t i = 1; i < pos.col && i - 1 < shown.size(); ++i) {
      caret += shown[i - 1] == '\t' ? '\t' : ' ';
    }
    out += caret + "^\n";
  }
  return out;
}

}  // namespace scalify
