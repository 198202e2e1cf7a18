#include "rules/rule_print.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace scalify::rules {
namespace {

std::string number(const Term& t) {
  if (t.is_integer) return std::to_string(t.integer);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", t.number);
  // The shortest text that reads back to the same double.
  for (int digits = 1; digits < 17; ++digits) {
    char shorter[40];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, t.number);
    if (std::strtod(shorter, nullptr) == t.number) return shorter;
  }
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::string item(const Item& it) {
  switch (it.kind) {
    case Item::Kind::kBind:
      return "?" + it.var + " = " + to_string(it.term);
    case Item::Kind::kTerm:
      return to_string(it.term);
    case Item::Kind::kAtom: {
      std::string s = it.atom.relation + "(";
      for (size_t i = 0; i < it.atom.args.size(); ++i) {
        s += (i ? ", " : "") + to_string(it.atom.args[i]);
      }
      return s + ")";
    }
  }
  return "";
}

std::string items(const std::vector<Item>& list) {
  std::string s;
  for (size_t i = 0; i < list.size(); ++i) s += (i ? ", " : "") + item(list[i]);
  return s;
}

}  // namespace

std::string to_string(const Term& t) {
  switch (t.kind) {
    case Term::Kind::kVar:
      return "?" + t.name;
    case Term::Kind::kNumber:
      return number(t);
    case Term::Kind::kWord:
      return t.name;
    case Term::Kind::kString:
      return quoted(t.name);
    case Term::Kind::kList: {
      std::string s = "[";
      for (size_t i = 0; i < t.list.size(); ++i) s += (i ? " " : "") + std::to_string(t.list[i]);
      return s + "]";
    }
    case Term::Kind::kApply: {
      std::string s = "(" + t.name;
      for (const Term& a : t.args) s += " " + to_string(a);
      for (const Term::Attr& a : t.attrs) s += " :" + a.key + " " + to_string(a.value);
      return s + ")";
    }
  }
  return "";
}

std::string to_string(const Rule& r) {
  std::string s;
  std::string guards;
  for (const Term& g : r.guards) guards += " if " + to_string(g);
  switch (r.kind) {
    case Rule::Kind::kRewrite:
      return to_string(r.lhs) + " => " + to_string(r.rhs) + guards;
    case Rule::Kind::kBirewrite:
      return to_string(r.lhs) + " <=> " + to_string(r.rhs) + guards;
    case Rule::Kind::kRule:
      return items(r.body) + guards + " => " + items(r.head);
  }
  return s;
}

const char* kind_name(Rule::Kind k) {
  switch (k) {
    case Rule::Kind::kRewrite:
      return "rewrite";
    case Rule::Kind::kBirewrite:
      return "birewrite";
    case Rule::Kind::kRule:
      return "rule";
  }
  return "";
}

}  // namespace scalify::rules

namespace scalify::rules {

std::string comment_above(std::string_view text, uint32_t line) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size() && lines.size() + 1 < line) {
    const size_t end = text.find('\n', start);
    lines.push_back(
        text.substr(start, end == std::string_view::npos ? text.size() - start : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  std::vector<std::string_view> comment;
  for (size_t i = lines.size(); i-- > 0;) {
    std::string_view l = lines[i];
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
    if (l.empty() || l.front() != '#') break;
    l.remove_prefix(1);
    if (!l.empty() && l.front() == ' ') l.remove_prefix(1);
    comment.push_back(l);
  }
  std::string out;
  for (size_t i = comment.size(); i-- > 0;) {
    if (!out.empty()) out += ' ';
    out += comment[i];
  }
  return out;
}

}  // namespace scalify::rules
