#include "report/report_text.h"

namespace scalify::report {

std::string source_site(const verify::Divergence& d) {
  if (!d.source) return "";
  return d.source->file + ":" + std::to_string(d.source->line);
}

std::string headline(const verify::CheckResult& r) {
  const std::string verdict(verify::verdict_name(r.verdict));
  if (r.divergence) {
    const std::string site = source_site(*r.divergence);
    return verdict + " at " + r.divergence->dist_node + (site.empty() ? "" : " (" + site + ")");
  }
  size_t proven = 0;
  for (const verify::Goal& g : r.goals) proven += g.proven ? 1 : 0;
  return verdict + ": " + std::to_string(proven) + " of " + std::to_string(r.goals.size()) +
         " outputs proven on " + r.mesh.to_string();
}

std::optional<Snippet> divergence_snippet(const ReportInput& in) {
  if (!in.result.divergence) return std::nullopt;
  const verify::Divergence& d = *in.result.divergence;
  if (d.source) {
    if (auto path = locate_source(d.source->file, in.dist_path)) {
      if (auto s = snippet(*path, d.source->line, 3)) return s;
    }
  }
  return snippet(in.dist_path, d.dist_line, 2);
}

std::string language_of(const std::string& path) {
  return path.size() > 3 && path.ends_with(".py") ? "python" : "";
}

}  // namespace scalify::report
