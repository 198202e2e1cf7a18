#include "support/atomic_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace scalify {

Expected<bool> write_file_atomically(const std::string& path, std::string_view text,
                                     std::string_view what) {
  auto error = [&](const std::string& message) { return Diagnostic{path, {}, message, ""}; };
  // Beside the target, so that the rename stays on one file system.
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return error("cannot write " + std::string(what));
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::remove(temporary.c_str());
      return error("cannot write " + std::string(what) + " (is the disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::remove(temporary.c_str());
    return error("cannot write " + std::string(what) + ": " + ec.message());
  }
  return true;
}

}  // namespace scalify
