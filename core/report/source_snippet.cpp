#include "report/source_snippet.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace scalify::report {

std::optional<std::string> locate_source(const std::string& recorded,
                                         const std::string& beside_file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (recorded.empty()) return std::nullopt;
  if (fs::is_regular_file(recorded, ec)) return recorded;
  const fs::path p(recorded);
  if (p.is_absolute() || beside_file.empty()) return std::nullopt;
  const fs::path beside = fs::path(beside_file).parent_path() / p;
  if (fs::is_regular_file(beside, ec)) return beside.string();
  return std::nullopt;
}

std::optional<Snippet> snippet(const std::string& path, int64_t line, int64_t context) {
  if (line < 1) return std::nullopt;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  Snippet s{path, {}};
  const int64_t first = std::max<int64_t>(1, line - context), last = line + context;
  int64_t number = 0;
  for (std::string text; number < last && std::getline(in, text);) {
    ++number;
    if (number >= first) s.lines.push_back({number, std::move(text), number == line});
  }
  if (number < line) return std::nullopt;
  return s;
}

}  // namespace scalify::report
