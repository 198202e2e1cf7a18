// The Markdown report: what a reviewer reads first comes first (verdict, divergence, source
// line), the rest folded.
#include <sstream>

#include "report/report.h"
#include "report/report_text.h"

namespace scalify::report {
namespace {

/// `text` as inline code, safe when it holds backticks.
std::string code(const std::string& text) {
  return text.find('`') == std::string::npos ? "`" + text + "`" : "``" + text + "``";
}

/// A table cell: pipes and line breaks would end it.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

void divergence(std::ostream& out, const ReportInput& in) {
  const verify::CheckResult& r = in.result;
  const verify::Divergence& d = *r.divergence;
  out << "**First divergence:** " << code(d.dist_node) << " (" << code(d.op) << ")";
  if (d.dist_line > 0) out << " at " << code(in.dist_path + ":" + std::to_string(d.dist_line));
  out << "\n\n- **Why:** " << d.reason << '\n';
  const std::string site = source_site(d);
  if (!site.empty()) {
    out << "- **Source:** " << code(site);
    if (!d.op_name.empty()) out << " (" << code(d.op_name) << ")";
    out << '\n';
  }
  if (!d.operand_layouts.empty()) {
    out << "- **Operand layouts:**";
    for (size_t i = 0; i < d.operand_layouts.size(); ++i) {
      out << (i ? "," : "") << " " << i << ": " << code(d.operand_layouts[i]);
    }
    out << '\n';
  }
  if (!d.ref_node.empty()) out << "- **Closest reference node:** " << code(d.ref_node) << '\n';
  if (auto s = divergence_snippet(in)) {
    out << "\n```" << language_of(s->path) << '\n';
    for (const SnippetLine& l : s->lines) {
      out << (l.marked ? "> " : "  ") << l.number << " | " << l.text << '\n';
    }
    out << "```\n";
  }
  out << '\n';
}

}  // namespace

std::string markdown_report(const ReportInput& in) {
  const verify::CheckResult& r = in.result;
  std::ostringstream out;
  out << "## Scalify: " << headline(r) << "\n\n";
  if (r.divergence) divergence(out, in);
  if (!r.assumptions.empty()) {
    out << "**The verdict holds only if:**\n";
    for (const verify::Assumption& a : r.assumptions) {
      out << "- " << code(a.dist) << " is " << code(a.layout.to_string(r.mesh)) << ": " << a.why
          << '\n';
    }
    out << '\n';
  }
  size_t proven = 0;
  for (const verify::Goal& g : r.goals) proven += g.proven ? 1 : 0;
  char time[32];
  std::snprintf(time, sizeof time, "%.2f", r.stats.seconds);
  out << "Reference " << code(in.ref_path) << ", distributed " << code(in.dist_path) << " · mesh "
      << code(r.mesh.to_string()) << " · " << proven << "/" << r.goals.size()
      << " outputs proven · " << time << " s\n\n";

  out << "<details><summary>Bijection (" << r.bijection.size()
      << " parameters)</summary>\n\n| distributed | layout | reference | how "
         "|\n|---|---|---|---|\n";
  for (const verify::BijectionEntry& b : r.bijection) {
    out << "| " << code(b.dist) << " | " << code(b.layout.to_string(r.mesh)) << " | " << code(b.ref)
        << " | " << cell(b.why) << " |\n";
  }
  for (const std::string& u : r.unmatched_dist_parameters) {
    out << "| " << code(u) << " | | (none) | no counterpart |\n";
  }
  out << "\n</details>\n\n<details><summary>Goals (" << proven << " of " << r.goals.size()
      << " proven)</summary>\n\n| reference output | distributed output | result "
         "|\n|---|---|---|\n";
  for (const verify::Goal& g : r.goals) {
    out << "| " << code(g.ref) << " | " << code(g.dist) << " | "
        << cell(g.proven ? "proven, " + g.layout->to_string(r.mesh) : "not proven: " + g.why_not)
        << " |\n";
  }
  out << "\n</details>\n";
  if (!r.notes.empty()) {
    out << "\n<details><summary>Notes</summary>\n\n";
    for (const std::string& n : r.notes) out << "- " << n << '\n';
    out << "\n</details>\n";
  }
  return out.str();
}

}  // namespace scalify::report
