// Pieces of text both reports share: the one-line headline of a result, and the source site and
// snippet of its divergence.
#pragma once

#include <optional>
#include <string>

#include "report/report.h"
#include "report/source_snippet.h"

namespace scalify::report {

/// "divergent at tanh.12 (model.py:42)", "equivalent: 3 outputs proven on tp=2", …
std::string headline(const verify::CheckResult& r);

/// "model.py:42", or empty when the divergence has no source site.
std::string source_site(const verify::Divergence& d);

/// The source lines around the divergence's source site when the file is found (as recorded,
/// or beside the distributed program), else the distributed program's own lines around the node.
std::optional<Snippet> divergence_snippet(const ReportInput& in);

/// A file name's language for a fenced block: "python" for `.py`, "" otherwise.
std::string language_of(const std::string& path);

}  // namespace scalify::report
