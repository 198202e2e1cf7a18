// The model.py that generated programs point into: `source_file="model.py" source_line=N`
// names a line of this text, so that a source site can be opened and shown.
#pragma once

#include <cstdint>
#include <string_view>

namespace scalify::modelgen {

/// The whole of model.py.
std::string_view model_source();

/// The 1-based line of model.py where `snippet` first occurs; 0 if it does not (a bug in the
/// generator, which tests catch: every generated instruction must have a line).
///
///   model_line("q = self.q_proj(x)")   // the line of the query projection
int64_t model_line(std::string_view snippet);

}  // namespace scalify::modelgen
