#include "rules_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "egraph/vocabulary.h"
#include "relations/relation.h"
#include "rules/bundled_rules.h"
#include "rules/rule_check.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"
#include "rules/rule_print.h"
#include "support/json.h"
#include "support/read_file.h"

namespace scalify::cli {
namespace {

/// A rule file as read: its name, text and syntax tree.
struct Loaded {
  std::string name;
  std::string text;
  rules::RuleFile file;
};

struct Options {
  bool check = false;
  bool json = false;
  rules::CheckOptions check_options;
  std::vector<std::string> paths;
};

int usage_error(std::ostream& err, std::string_view message) {
  err << "scalify rules: " << message << "\nusage: scalify " << kRulesUsage << "\n";
  return 2;
}

void print_help(std::ostream& out) {
  out << "usage: scalify " << kRulesUsage << "\n\n"
      << "Lists the rules (name, kind, file:line, text) of the bundled rule set, or of the FILEs\n"
      << "given instead. With --check, checks every rule numerically: each direction of a\n"
      << "rewrite is instantiated on random small tensors and attribute values that satisfy its\n"
      << "guards, both sides are evaluated by the reference interpreter, and any difference is\n"
      << "reported with a counterexample. A Datalog rule over Rep, Shard and Partial is\n"
      << "instantiated on a simulated mesh of 2 to 4 ranks, and every conclusion of its head is\n"
      << "tested against the values its body computes.\n\n"
      << "  --check      check the rules (exit 1 if one fails or cannot be instantiated)\n"
      << "  --json       print one JSON object instead\n"
      << "  --seed N     the random seed (default 1); the same seed gives the same instances\n"
      << "  --trials N   agreeing instances required per direction (default 50)\n";
}

std::optional<uint64_t> parse_count(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

/// Parses the arguments; an exit code when they are wrong (or --help was asked).
std::optional<int> parse_args(std::span<const std::string_view> args, Options& o, std::ostream& out,
                              std::ostream& err) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "-h" || arg == "--help") {
      print_help(out);
      return 0;
    }
    if (arg == "--check") {
      o.check = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--seed" || arg == "--trials") {
      if (i + 1 == args.size()) return usage_error(err, std::string(arg) + " needs a number");
      const auto n = parse_count(args[++i]);
      if (!n || (arg == "--trials" && (*n == 0 || *n > 100000))) {
        return usage_error(
            err, std::string(arg) + " needs a number, not '" + std::string(args[i]) + "'");
      }
      if (arg == "--seed") {
        o.check_options.seed = *n;
      } else {
        o.check_options.trials = static_cast<int>(*n);
        o.check_options.max_attempts =
            std::max(o.check_options.max_attempts, static_cast<int>(*n) * 60);
      }
    } else if (arg.size() > 1 && arg.front() == '-') {
      return usage_error(err, "unknown option '" + std::string(arg) + "'");
    } else {
      o.paths.emplace_back(arg);
    }
  }
  return std::nullopt;
}

void report(std::ostream& err, Diagnostic d, std::string_view text) {
  if (d.line_text.empty() && d.pos.known()) d.line_text = std::string(line_of(text, d.pos.line));
  err << d.format();
}

/// Reads, parses and compiles (to validate operator, guard and function names) every file.
std::optional<int> load(const Options& o, std::vector<Loaded>& files, std::ostream& err) {
  if (o.paths.empty()) {
    for (const rules::RuleText& f : rules::bundled_rule_files()) {
      files.push_back({std::string(f.name), std::string(f.text), {}});
    }
  }
  for (const std::string& path : o.paths) {
    std::string why;
    std::optional<std::string> text = read_whole_file(path, &why);
    if (!text) {
      err << path << ": error: " << why << "\n";
      return 2;
    }
    files.push_back({path, std::move(*text), {}});
  }
  for (Loaded& f : files) {
    auto parsed = rules::parse_rules(f.text, f.name);
    if (!parsed) {
      report(err, parsed.error(), f.text);
      return 2;
    }
    f.file = std::move(*parsed);
    egraph::Vocabulary vocab;
    relations::Database db;
    auto compiled = rules::compile_rules(
        f.file, vocab, [](const egraph::ENode&) { return egraph::TypeId{0}; }, &db,
        [](egraph::TypeId) { return std::optional<ir::Type>(); });
    if (!compiled) {
      report(err, compiled.error(), f.text);
      return 2;
    }
  }
  return std::nullopt;
}

std::string padded(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

/// The longest rule name, for aligned columns.
size_t name_width(const std::vector<Loaded>& files) {
  size_t width = 0;
  for (const Loaded& f : files) {
    for (const rules::Rule& r : f.file.rules) width = std::max(width, r.name.size());
    for (const rules::AcDecl& d : f.file.ac) {
      for (const rules::Rule& r : rules::declared_identities(d)) {
        width = std::max(width, r.name.size());
      }
    }
  }
  return width;
}

std::string where(const Loaded& f, const rules::Rule& r) {
  return f.name + ":" + std::to_string(r.pos.line);
}

json::Value rule_json(const Loaded& f, const rules::Rule& r) {
  json::Object o;
  o.set("name", r.name);
  o.set("kind", rules::kind_name(r.kind));
  o.set("file", f.name);
  o.set("line", static_cast<int64_t>(r.pos.line));
  o.set("column", static_cast<int64_t>(r.pos.col));
  o.set("text", rules::to_string(r));
  o.set("comment", rules::comment_above(f.text, r.pos.line));
  return o;
}

int list(const std::vector<Loaded>& files, bool as_json, std::ostream& out) {
  if (as_json) {
    json::Array all;
    json::Array names;
    for (const Loaded& f : files) {
      names.push_back(
          json::Object{{"name", f.name}, {"rules", static_cast<int64_t>(f.file.rules.size())}});
      for (const rules::Rule& r : f.file.rules) all.push_back(rule_json(f, r));
    }
    out << json::Value(json::Object{{"files", std::move(names)}, {"rules", std::move(all)}}).dump(2)
        << '\n';
    return 0;
  }
  size_t total = 0;
  const size_t width = name_width(files);
  for (const Loaded& f : files) {
    out << f.name << " (" << f.file.rules.size() << " rule" << (f.file.rules.size() == 1 ? "" : "s")
        << ")\n";
    for (const rules::Rule& r : f.file.rules) {
      const std::string comment = rules::comment_above(f.text, r.pos.line);
      out << "  " << padded(r.name, width) << "  " << padded(rules::kind_name(r.kind), 9) << "  "
          << where(f, r) << '\n';
      if (!comment.empty()) out << "    # " << comment << '\n';
      out << "    " << rules::to_string(r) << '\n';
    }
    total += f.file.rules.size();
  }
  out << total << " rule" << (total == 1 ? "" : "s") << " in " << files.size() << " file"
      << (files.size() == 1 ? "" : "s") << '\n';
  return 0;
}

// ---- --check ----

struct Tally {
  size_t passed = 0, failed = 0, not_instantiated = 0, directions = 0;
  void add(rules::Verdict v) {
    switch (v) {
      case rules::Verdict::kPassed:
        ++passed;
        break;
      case rules::Verdict::kFailed:
        ++failed;
        break;
      case rules::Verdict::kNotInstantiated:
        ++not_instantiated;
        break;
    }
  }
};

json::Value counterexample_json(const rules::Counterexample& c) {
  json::Array operands;
  for (const auto& o : c.operands) {
    operands.push_back(json::Object{{"name", o.name}, {"type", o.type}, {"value", o.value}});
  }
  json::Object attributes;
  for (const auto& [name, value] : c.attributes) attributes.set(name, value);
  return json::Object{{"operands", std::move(operands)},
                      {"attributes", std::move(attributes)},
                      {"lhs", c.lhs},
                      {"rhs", c.rhs},
                      {"lhs_type", c.lhs_type},
                      {"rhs_type", c.rhs_type},
                      {"lhs_value", c.lhs_value},
                      {"rhs_value", c.rhs_value},
                      {"mismatch", c.mismatch},
                      {"lhs_hlo", c.lhs_hlo},
                      {"rhs_hlo", c.rhs_hlo}};
}

void print_counterexample(std::ostream& out, const rules::DirectionCheck& d, bool datalog) {
  const rules::Counterexample& c = *d.counterexample;
  out << "    counterexample (" << d.name << ", after " << d.trials << " agreeing trial"
      << (d.trials == 1 ? "" : "s") << "):\n";
  for (const auto& o : c.operands) {
    out << "      " << o.name << " : " << o.type << " = " << o.value << '\n';
  }
  for (const auto& [name, value] : c.attributes) out << "      " << name << " = " << value << '\n';
  if (datalog) {  // values are listed above; the conclusion that does not hold, and why
    out << "      body   " << c.lhs << "\n      head   " << c.rhs << " does not hold:\n      "
        << c.mismatch << '\n';
    return;
  }
  out << "      left   " << c.lhs << "\n             : " << c.lhs_type << " = " << c.lhs_value
      << '\n';
  out << "      right  " << c.rhs << "\n             : " << c.rhs_type;
  if (!c.rhs_value.empty()) out << " = " << c.rhs_value;
  out << '\n';
  out << "      " << c.mismatch << '\n';
}

std::string trials_text(const rules::RuleCheck& rc) {
  std::string s;
  for (const rules::DirectionCheck& d : rc.directions) {
    if (!s.empty()) s += ", ";
    s += (rc.directions.size() > 1 ? (d.name.ends_with("-rev") ? "<= " : "=> ") : "") +
         std::to_string(d.trials) + " trials";
  }
  return s;
}

int run_check(const std::vector<Loaded>& files, const Options& o, std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  const size_t width = name_width(files);
  Tally tally;
  json::Array rules_json;
  std::string text;
  std::ostringstream lines;
  for (const Loaded& f : files) {
    const std::vector<rules::RuleCheck> checks = rules::check_rules(f.file, o.check_options);
    for (const rules::RuleCheck& rc : checks) {
      const rules::Rule& r = rc.rule;
      tally.add(rc.verdict);
      tally.directions += rc.directions.size();
      json::Value j = rule_json(f, r);
      j.as_object().set("verdict", rules::to_string(rc.verdict));
      json::Array dirs;
      for (const rules::DirectionCheck& d : rc.directions) {
        json::Object dj{{"name", d.name},
                        {"verdict", rules::to_string(d.verdict)},
                        {"trials", d.trials},
                        {"attempts", d.attempts},
                        {"rejected", d.rejected}};
        if (!d.note.empty()) dj.set("note", d.note);
        dj.set("counterexample",
               d.counterexample ? counterexample_json(*d.counterexample) : json::Value());
        dirs.push_back(std::move(dj));
      }
      j.as_object().set("directions", std::move(dirs));
      rules_json.push_back(std::move(j));
      if (o.json) continue;
      const char* verdict = rc.verdict == rules::Verdict::kFailed            ? "FAILED"
                            : rc.verdict == rules::Verdict::kNotInstantiated ? "NOT INSTANTIATED"
                                                                             : "passed";
      lines << padded(verdict, 16) << "  " << padded(r.name, width) << "  " << where(f, r);
      if (rc.verdict == rules::Verdict::kPassed) lines << "  (" << trials_text(rc) << ")";
      lines << '\n';
      if (rc.verdict == rules::Verdict::kFailed || rc.verdict == rules::Verdict::kNotInstantiated) {
        lines << "    " << rules::to_string(r) << '\n';
      }
      for (const rules::DirectionCheck& d : rc.directions) {
        if (d.counterexample) print_counterexample(lines, d, r.kind == rules::Rule::Kind::kRule);
        if (d.verdict == rules::Verdict::kNotInstantiated) {
          lines << "    " << d.name << ": no instance could be checked in " << d.attempts
                << " attempts; last reason: " << d.note << '\n';
        }
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const size_t checked = tally.passed + tally.failed + tally.not_instantiated;
  if (o.json) {
    json::Object summary{{"rules", checked},
                         {"directions", tally.directions},
                         {"passed", tally.passed},
                         {"failed", tally.failed},
                         {"not_instantiated", tally.not_instantiated}};
    out << json::Value(json::Object{{"seed", o.check_options.seed},
                                    {"trials", o.check_options.trials},
                                    {"rtol", o.check_options.rtol},
                                    {"atol", o.check_options.atol},
                                    {"rules", std::move(rules_json)},
                                    {"summary", std::move(summary)},
                                    {"seconds", seconds}})
               .dump(2)
        << '\n';
  } else {
    char time[32];
    std::snprintf(time, sizeof time, "%.2f", seconds);
    out << lines.str() << "\nchecked " << checked << " rule" << (checked == 1 ? "" : "s") << " ("
        << tally.directions << (tally.directions == 1 ? " direction" : " directions") << ", seed "
        << o.check_options.seed << ", " << o.check_options.trials << " trials each) in " << time
        << " s: " << tally.passed << " passed, " << tally.failed << " failed, "
        << tally.not_instantiated << " could not be instantiated\n";
  }
  return tally.failed + tally.not_instantiated > 0 ? 1 : 0;
}

}  // namespace

int run_rules(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  Options o;
  if (auto code = parse_args(args, o, out, err)) return *code;
  std::vector<Loaded> files;
  if (auto code = load(o, files, err)) return *code;
  return o.check ? run_check(files, o, out) : list(files, o.json, out);
}

}  // namespace scalify::cli
