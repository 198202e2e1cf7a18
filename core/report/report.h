// Reports of a check for people who do not run it: a self-contained HTML page (verdict, mesh,
// bijection, every goal with its proof, the divergence with its source and a drawing of its
// neighbourhood in both programs) and a short Markdown comment for a code review.
#pragma once

#include <string>

#include "ir/module.h"
#include "support/expected.h"
#include "verify/check_result.h"

namespace scalify::report {

/// What a report is made of: the result and the two programs it is about.
struct ReportInput {
  const verify::CheckResult& result;
  const ir::Module& ref;
  const ir::Module& dist;
  std::string ref_path, dist_path;  ///< as the user named them; source files are looked up
                                    ///< beside dist_path
};

/// The Markdown comment: the verdict and, first, the divergence and its source line; then the
/// assumptions, and the bijection and goals folded in `<details>`.
///
///   std::string md = markdown_report({result, ref, dist, "ref.hlo", "dist.hlo"});
///   // "## Scalify: divergent at `tanh.12` (model.py:42)\n…"
std::string markdown_report(const ReportInput& in);

/// The HTML page: one file with its style and drawings inline, no links out, and the proof
/// (proofcheck/proof_file.h) embedded as JSON data for `scalify proof verify PAGE.html`.
std::string html_report(const ReportInput& in);

/// Writes the report `path` asks for by its extension (`.html`/`.htm` or `.md`) atomically: to
/// a temporary file beside it, then renamed over it, so that a failure never leaves half a
/// report nor loses the one that was there. An error names the path.
Expected<bool> write_report(const std::string& path, const ReportInput& in);

}  // namespace scalify::report
