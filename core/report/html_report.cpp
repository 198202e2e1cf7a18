// The HTML report: one self-contained page (inline style and SVG, nothing run, nothing fetched),
// with the proof embedded for `scalify proof verify REPORT.html`.
#include <cstdio>
#include <sstream>

#include "hlo/printer.h"
#include "proofcheck/proof_file.h"
#include "report/graph_svg.h"
#include "report/neighbourhood.h"
#include "report/report.h"
#include "report/report_text.h"

namespace scalify::report {
namespace {

const char* kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 0 20px 40px; color: #1d2330; }
header { margin: 20px 0; padding: 14px 18px; border-radius: 8px; color: #fff; }
header h1 { margin: 0; font-size: 26px; }
header p { margin: 4px 0 0; font-size: 15px; }
.equivalent { background: #1e7b45; } .divergent { background: #c0321f; } .inconclusive { background: #8a6d12; }
h2 { border-bottom: 1px solid #d5dae3; padding-bottom: 4px; margin-top: 28px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e6e9ef; vertical-align: top; }
th { background: #f4f6fa; }
code, pre { font-family: ui-monospace, monospace; font-size: 12.5px; }
pre { background: #f4f6fa; padding: 8px 10px; overflow-x: auto; border-radius: 6px; }
pre .marked { background: #ffd9d4; display: inline-block; width: 100%; }
dl { display: grid; grid-template-columns: max-content auto; gap: 4px 14px; }
dt { font-weight: 600; } dd { margin: 0; }
.drawings { display: flex; flex-wrap: wrap; gap: 16px; }
.drawings figure { margin: 0; overflow-x: auto; border: 1px solid #e6e9ef; border-radius: 6px; padding: 6px; }
details { margin: 4px 0; } summary { cursor: pointer; }
.proof { font-family: ui-monospace, monospace; font-size: 12px; }
.no { color: #c0321f; font-weight: 600; } .yes { color: #1e7b45; font-weight: 600; }
footer { margin-top: 30px; color: #6b7385; font-size: 12px; }
)";

std::string e(const std::string& s) { return escape_xml(s); }
std::string c(const std::string& s) { return "<code>" + escape_xml(s) + "</code>"; }

void summary(std::ostream& out, const ReportInput& in) {
  const verify::CheckResult& r = in.result;
  size_t proven = 0;
  for (const verify::Goal& g : r.goals) proven += g.proven ? 1 : 0;
  char stats[200];
  std::snprintf(stats, sizeof stats, "%.3f s · %zu e-nodes in %zu e-classes · %zu layout facts",
                r.stats.seconds, r.stats.enodes, r.stats.eclasses, r.stats.facts);
  out << "<section id=\"summary\"><h2>Summary</h2><table>\n"
      << "<tr><th>Reference</th><td>" << c(in.ref_path) << "</td></tr>\n"
      << "<tr><th>Distributed</th><td>" << c(in.dist_path) << "</td></tr>\n"
      << "<tr><th>Mesh</th><td>" << c(r.mesh.to_string()) << "</td></tr>\n"
      << "<tr><th>Outputs proven</th><td>" << proven << " of " << r.goals.size() << "</td></tr>\n"
      << "<tr><th>Check</th><td>" << e(stats);
  if (r.stats.parts > 1) {
    out << " · " << r.stats.parts << " parts, " << r.stats.memo_hits << " from the memo";
  }
  out << "</td></tr>\n</table></section>\n";
}

void divergence(std::ostream& out, const ReportInput& in) {
  const verify::Divergence& d = *in.result.divergence;
  out << "<section id=\"divergence\"><h2>First divergence: " << c(d.dist_node) << " (" << e(d.op)
      << ")</h2>\n<dl>\n<dt>Why</dt><dd>" << e(d.reason) << "</dd>\n";
  for (size_t i = 0; i < d.operand_layouts.size(); ++i) {
    out << "<dt>Operand " << i << "</dt><dd>" << c(d.operand_layouts[i]) << "</dd>\n";
  }
  if (!d.op_name.empty()) out << "<dt>op_name</dt><dd>" << c(d.op_name) << "</dd>\n";
  const std::string site = source_site(d);
  if (!site.empty()) out << "<dt>Source</dt><dd>" << c(site) << "</dd>\n";
  if (d.dist_line > 0) {
    out << "<dt>In the program</dt><dd>" << c(in.dist_path + ":" + std::to_string(d.dist_line))
        << "</dd>\n";
  }
  if (!d.ref_node.empty()) {
    out << "<dt>Closest reference node</dt><dd>" << c(d.ref_node);
    if (d.ref_line > 0) out << " at " << c(in.ref_path + ":" + std::to_string(d.ref_line));
    out << "</dd>\n";
  }
  out << "</dl>\n";
  if (auto s = divergence_snippet(in)) {
    out << "<p>" << c(s->path) << "</p>\n<pre>";
    for (const SnippetLine& l : s->lines) {
      char number[16];
      std::snprintf(number, sizeof number, "%5lld  ", static_cast<long long>(l.number));
      out << (l.marked ? "<span class=\"marked\">" : "") << number << e(l.text)
          << (l.marked ? "</span>" : "") << '\n';
    }
    out << "</pre>\n";
  }
  out << "<div class=\"drawings\">\n<figure>"
      << to_svg(neighbourhood(in.dist, d.dist_node), "distributed: around " + d.dist_node, "dist")
      << "</figure>\n";
  if (!d.ref_node.empty()) {
    out << "<figure>"
        << to_svg(neighbourhood(in.ref, d.ref_node), "reference: around " + d.ref_node, "ref")
        << "</figure>\n";
  }
  out << "</div></section>\n";
}

void bijection(std::ostream& out, const verify::CheckResult& r) {
  out << "<section id=\"bijection\"><h2>Bijection</h2><table>\n<tr><th>Distributed "
         "parameter</th><th>Layout</th><th>Reference parameter</th><th>How it was "
         "inferred</th></tr>\n";
  for (const verify::BijectionEntry& b : r.bijection) {
    out << "<tr><td>" << c(b.dist) << "</td><td>" << c(b.layout.to_string(r.mesh)) << "</td><td>"
        << c(b.ref) << "</td><td>" << e(b.why) << "</td></tr>\n";
  }
  for (const std::string& u : r.unmatched_dist_parameters) {
    out << "<tr><td>" << c(u)
        << "</td><td></td><td class=\"no\">none</td><td>no "
           "counterpart</td></tr>\n";
  }
  out << "</table></section>\n";
}

void goals(std::ostream& out, const verify::CheckResult& r) {
  out << "<section id=\"goals\"><h2>Goals</h2>\n";
  for (const verify::Goal& g : r.goals) {
    out << "<details><summary>" << c(g.ref) << " ← " << c(g.dist) << ": ";
    if (g.proven) {
      out << "<span class=\"yes\">proven</span>, " << c(g.layout->to_string(r.mesh));
    } else {
      out << "<span class=\"no\">not proven</span>: " << e(g.why_not);
    }
    out << "</summary>\n";
    if (!g.proof.empty()) {
      out << "<ol class=\"proof\" start=\"0\">\n";
      for (const std::string& step : g.proof) out << "<li>" << e(step) << "</li>\n";
      out << "</ol>\n";
    }
    out << "</details>\n";
  }
  for (const std::string& u : r.unmatched_ref_outputs) {
    out << "<p>" << c(u) << ": no distributed output</p>\n";
  }
  out << "</section>\n";
}

/// Programs bigger than this together are not embedded (the page would take long to open);
/// `check --proof` writes their proof on its own.
constexpr size_t kMaxEmbeddedProgramBytes = 16u << 20;

/// The proof as data the browser neither shows nor runs: JSON in a script element of type
/// application/json, every '<' escaped so that no text in it can close the element.
void embedded_proof(std::ostringstream& out, const ReportInput& in) {
  const proofcheck::ProofFile proof{in.ref_path, hlo::print_module(in.ref), in.dist_path,
                                    hlo::print_module(in.dist), in.result};
  if (proof.ref_hlo.size() + proof.dist_hlo.size() > kMaxEmbeddedProgramBytes) {
    out << "<p class=\"note\">The programs are too large to embed their proof here; "
           "<code>scalify check … --proof FILE.json</code> writes it.</p>\n";
    return;
  }
  std::string json = proofcheck::proof_to_json(proof).dump();
  std::string escaped;
  escaped.reserve(json.size());
  for (char ch : json) {
    if (ch == '<') {
      escaped += "\\u003c";
    } else {
      escaped += ch;
    }
  }
  out << "<script type=\"application/json\" id=\"" << proofcheck::kHtmlProofId << "\">" << escaped
      << "</script>\n";
}

}  // namespace

std::string html_report(const ReportInput& in) {
  const verify::CheckResult& r = in.result;
  const std::string verdict(verify::verdict_name(r.verdict));
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Scalify: "
      << e(headline(r)) << "</title>\n<style>" << kStyle << "</style></head><body>\n"
      << "<header class=\"" << verdict << "\"><h1 id=\"verdict\">" << e(verdict) << "</h1><p>"
      << e(headline(r)) << "</p></header>\n";
  if (r.divergence) divergence(out, in);
  if (!r.assumptions.empty()) {
    out << "<section id=\"assumptions\"><h2>Assumptions</h2><p>The verdict holds only if these "
           "are true:</p><ul>\n";
    for (const verify::Assumption& a : r.assumptions) {
      out << "<li>" << c(a.dist) << " is " << c(a.layout.to_string(r.mesh)) << ": " << e(a.why)
          << "</li>\n";
    }
    out << "</ul></section>\n";
  }
  summary(out, in);
  bijection(out, r);
  goals(out, r);
  if (!r.notes.empty()) {
    out << "<section id=\"notes\"><h2>Notes</h2><ul>\n";
    for (const std::string& n : r.notes) out << "<li>" << e(n) << "</li>\n";
    out << "</ul></section>\n";
  }
  out << "<footer>Written by <code>scalify check</code> (Scalify Studio). The proof is embedded: "
         "<code>scalify proof verify</code> this file re-checks it.</footer>\n";
  embedded_proof(out, in);
  out << "</body></html>\n";
  return out.str();
}

}  // namespace scalify::report
