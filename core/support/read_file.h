// Reading a whole file in one go (HLO text runs to megabytes; a stream copy through a string
// buffer costs more than the parse that follows).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace scalify {

/// The whole content of the file at `path`; nullopt when it cannot be opened or read, with
/// the reason in `*why` when given ("cannot open the file: No such file or directory", "cannot
/// read the file").
///
///   std::string why;
///   if (auto text = read_whole_file("model.hlo", &why)) parse(*text); else report(why);
std::optional<std::string> read_whole_file(const std::string& path, std::string* why = nullptr);

/// A file's whole content, mapped into memory when it is a regular file (no copy, and no fresh
/// memory to fault in: the page cache's pages are shown as they are), else read. Move-only.
class FileText {
 public:
  FileText(FileText&& other) noexcept;
  FileText& operator=(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  ~FileText();

  std::string_view view() const { return map_ ? std::string_view(map_, size_) : read_; }

 private:
  friend std::optional<FileText> map_whole_file(const std::string&, std::string*);
  FileText() = default;
  const char* map_ = nullptr;  ///< the mapping, or nullptr when read_ holds the text
  size_t size_ = 0;
  std::string read_;
};

/// read_whole_file's twin for large inputs: the same content and reasons.
///
///   if (auto text = map_whole_file("model.hlo", &why)) parse(text->view());
std::optional<FileText> map_whole_file(const std::string& path, std::string* why = nullptr);

}  // namespace scalify
