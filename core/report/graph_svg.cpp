#include "report/graph_svg.h"

#include <algorithm>
#include <cstdio>

namespace scalify::report {
namespace {

constexpr int kWidth = 190, kHeight = 40, kGapX = 24, kGapY = 46, kMargin = 14, kTitle = 24;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// A label cut to fit a box (about 6.5 px a character at 11 px).
std::string fit(const std::string& s, size_t chars = 28) {
  return s.size() <= chars ? s : s.substr(0, chars - 1) + "…";
}

}  // namespace

std::string escape_xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string to_svg(const Neighbourhood& g, const std::string& title, const std::string& id) {
  const std::string marker = "arrow-" + escape_xml(id);
  // Layers: the longest path from a source (nodes are in program order, so operands come first).
  std::vector<int> layer(g.nodes.size(), 0);
  for (const auto& [from, to] : g.edges) {
    if (from < to) layer[to] = std::max(layer[to], layer[from] + 1);
  }
  const int layers = g.nodes.empty() ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
  std::vector<int> column(g.nodes.size(), 0), per_layer(static_cast<size_t>(layers), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) column[i] = per_layer[layer[i]]++;
  const int widest = per_layer.empty() ? 1 : *std::max_element(per_layer.begin(), per_layer.end());
  const int width = std::max(kMargin * 2 + widest * (kWidth + kGapX) - kGapX, 240);
  const int height = kTitle + kMargin * 2 + std::max(layers, 1) * (kHeight + kGapY) - kGapY;
  auto x_of = [&](size_t i) {  // each layer centred
    const int row = per_layer[layer[i]];
    const int row_width = row * (kWidth + kGapX) - kGapX;
    return (width - row_width) / 2 + column[i] * (kWidth + kGapX);
  };
  auto y_of = [&](size_t i) { return kTitle + kMargin + layer[i] * (kHeight + kGapY); };

  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                  "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
                  std::to_string(width) + " " + std::to_string(height) +
                  "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<defs><marker id=\"" + marker +
       "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
       "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 "
       "5 L 0 10 z\" fill=\"#666\"/></marker></defs>\n";
  s += "<text x=\"" + std::to_string(kMargin) + "\" y=\"16\" font-weight=\"bold\">" +
       escape_xml(title) + "</text>\n";
  for (const auto& [from, to] : g.edges) {
    const double x1 = x_of(from) + kWidth / 2.0, y1 = y_of(from) + kHeight;
    const double x2 = x_of(to) + kWidth / 2.0, y2 = y_of(to);
    const double mid = (y1 + y2) / 2;
    s += "<path d=\"M " + number(x1) + " " + number(y1) + " C " + number(x1) + " " + number(mid) +
         " " + number(x2) + " " + number(mid) + " " + number(x2) + " " + number(y2) +
         "\" fill=\"none\" stroke=\"#666\" marker-end=\"url(#" + marker + ")\"/>\n";
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Neighbourhood::Node& n = g.nodes[i];
    const int x = x_of(i), y = y_of(i);
    s += "<g><title>" + escape_xml(n.name + ": " + n.label) + "</title>";
    s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
         std::to_string(kWidth) + "\" height=\"" + std::to_string(kHeight) + "\" rx=\"6\" fill=\"" +
         (n.center ? "#ffd9d4" : "#f4f6fa") + "\" stroke=\"" + (n.center ? "#d0301c" : "#8a94a6") +
         "\" stroke-width=\"" + (n.center ? "2.5" : "1") + "\"/>";
    s += "<text x=\"" + std::to_string(x + 8) + "\" y=\"" + std::to_string(y + 16) +
         "\" font-weight=\"bold\">" + escape_xml(fit(n.name)) + "</text>";
    s += "<text x=\"" + std::to_string(x + 8) + "\" y=\"" + std::to_string(y + 31) + "\">" +
         escape_xml(fit(n.label)) + "</text></g>\n";
  }
  return s + "</svg>\n";
}

}  // namespace scalify::report
