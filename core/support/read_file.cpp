#include "support/read_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace scalify {

std::optional<std::string> read_whole_file(const std::string& path, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<std::string> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                             &std::fclose);
  if (!file) return fail("cannot open the file: " + std::string(std::strerror(errno)));
  std::string text;
  // The size when the file can tell it (a pipe cannot: then chunk by chunk).
  if (std::fseek(file.get(), 0, SEEK_END) == 0) {
    const long size = std::ftell(file.get());
    if (size > 0) text.reserve(static_cast<size_t>(size));
    std::rewind(file.get());
  }
  char chunk[1 << 16];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, file.get())) > 0;) text.append(chunk, n);
  if (std::ferror(file.get())) return fail("cannot read the file");
  return text;
}

}  // namespace scalify
