#include "report/report.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace scalify::report {

Expected<bool> write_report(const std::string& path, const ReportInput& in) {
  auto error = [&](const std::string& message) { return Diagnostic{path, {}, message, ""}; };
  std::string text;
  if (path.ends_with(".html") || path.ends_with(".htm")) {
    text = html_report(in);
  } else if (path.ends_with(".md")) {
    text = markdown_report(in);
  } else {
    return error("a report is .html or .md");
  }
  // Beside the target, so that the rename stays on one file system.
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return error("cannot write the report");
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::remove(temporary.c_str());
      return error("cannot write the report (is the disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::remove(temporary.c_str());
    return error("cannot write the report: " + ec.message());
  }
  return true;
}

}  // namespace scalify::report
