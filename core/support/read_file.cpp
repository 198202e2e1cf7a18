#include "support/read_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#if defined(__unix__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

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

FileText::FileText(FileText&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      read_(std::move(other.read_)) {}

FileText& FileText::operator=(FileText&& other) noexcept {
  if (this != &other) {
    FileText gone(std::move(*this));
    map_ = std::exchange(other.map_, nullptr);
    size_ = std::exchange(other.size_, 0);
    read_ = std::move(other.read_);
  }
  return *this;
}

FileText::~FileText() {
#if defined(__unix__)
  if (map_) munmap(const_cast<char*>(map_), size_);
#endif
}

std::optional<FileText> map_whole_file(const std::string& path, std::string* why) {
#if defined(__unix__)
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    struct stat st {};
    void* mapped = MAP_FAILED;
    // An empty file cannot be mapped, and a pipe or device has no size: those are read.
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      mapped = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE,
                    fd, 0);
    }
    ::close(fd);
    if (mapped != MAP_FAILED) {
      FileText text;
      text.map_ = static_cast<const char*>(mapped);
      text.size_ = static_cast<size_t>(st.st_size);
      return text;
    }
  }
#endif
  std::optional<std::string> read = read_whole_file(path, why);
  if (!read) return std::nullopt;
  FileText text;
  text.read_ = std::move(*read);
  return text;
}

}  // namespace scalify
