#include "report/report.h"

#include "support/atomic_file.h"

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
  return write_file_atomically(path, text, "the report");
}

}  // namespace scalify::report
