// A small graph drawn as standalone SVG text, for reports that must not depend on anything
// (core has no Graphviz): nodes in layers by their longest path from a source, edges as curves
// from a node's bottom to its reader's top, the center node red.
#pragma once

#include <string>

#include "report/neighbourhood.h"

namespace scalify::report {

/// The SVG element (`<svg …>…</svg>`) of `g`, with `title` above it; every text is escaped.
/// `id` makes the drawing's internal ids unique when several share one page.
///
///   std::string svg = to_svg(neighbourhood(dist, "tanh.12"), "distributed", "dist");
std::string to_svg(const Neighbourhood& g, const std::string& title, const std::string& id);

/// `text` with &, <, >, " and ' written as entities.
std::string escape_xml(const std::string& text);

}  // namespace scalify::report
