// Reading a whole file in one go (HLO text runs to megabytes; a stream copy through a string
// buffer costs more than the parse that follows).
#pragma once

#include <optional>
#include <string>

namespace scalify {

/// The whole content of the file at `path`; nullopt when it cannot be opened or read, with
/// the reason in `*why` when given ("cannot open the file: No such file or directory", "cannot
/// read the file").
///
///   std::string why;
///   if (auto text = read_whole_file("model.hlo", &why)) parse(*text); else report(why);
std::optional<std::string> read_whole_file(const std::string& path, std::string* why = nullptr);

}  // namespace scalify
