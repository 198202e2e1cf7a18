#include "inspect_command.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "hlo/reader.h"
#include "ir/summary.h"

namespace scalify::cli {

namespace {

// List limits that keep the report of a big module within about 60 lines.
constexpr size_t kOpcodeRows = 7, kOpcodeColumns = 3;
constexpr size_t kMaxParameters = 10, kMaxOutputs = 6, kMaxCollectiveLines = 8;
constexpr size_t kMaxCustomCalls = 5;
constexpr size_t kMaxTypeChars = 48, kMaxGroupChars = 40;

std::string truncated(std::string s, size_t max) {
  if (s.size() > max) s = s.substr(0, max - 1) + "…";
  return s;
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100.0);
  return buf;
}

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + ' ' + std::string(word) + (n == 1 ? "" : "s");
}

/// Rows of cells printed with each column padded to its widest cell (by UTF-8 characters).
class Table {
 public:
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out, std::string_view indent = "  ") const {
    std::vector<size_t> width;
    for (const auto& row : rows_) {
      width.resize(std::max(width.size(), row.size()), 0);
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], chars(row[i]));
    }
    for (const auto& row : rows_) {
      std::string line(indent);
      for (size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) line.append(width[i] - chars(row[i]) + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    }
  }

 private:
  static size_t chars(std::string_view s) {
    return static_cast<size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  }
  std::vector<std::vector<std::string>> rows_;
};

void print_more(std::ostream& out, size_t shown, size_t total) {
  if (total > shown) out << "  … and " << total - shown << " more\n";
}

/// `groups {{0,1},{2,3}}`, or a shortened form with the group count and size for long lists;
/// A collective-permute's pairs instead, e.g. `pairs {{0,1},{1,0}}`.
std::string describe_groups(const ir::CollectiveSummary& c) {
  if (!c.source_target_pairs.empty()) {
    std::string text = "pairs {";
    for (size_t i = 0; i < c.source_target_pairs.size(); ++i) {
      if (i) text += ',';
      text += '{' + std::to_string(c.source_target_pairs[i].first) + ',' +
              std::to_string(c.source_target_pairs[i].second) + '}';
    }
    return truncated(text + '}', kMaxGroupChars);
  }
  if (c.replica_groups_text.empty() || c.replica_groups.empty()) return "groups all devices";
  std::string text = c.replica_groups_text;
  const size_t size = c.replica_groups.front().size();
  const bool uniform = std::all_of(c.replica_groups.begin(), c.replica_groups.end(),
                                   [&](const auto& g) { return g.size() == size; });
  if (text.size() > kMaxGroupChars || c.iota) {
    text = truncated(std::move(text), kMaxGroupChars) + " (" +
           plural(c.replica_groups.size(), "group");
    if (uniform) text += " of " + std::to_string(size);
    text += ')';
  }
  return "groups " + text;
}

std::string describe_op(const ir::CollectiveSummary& c) {
  std::string op(ir::opcode_name(c.opcode));
  if (c.reduction) op += '(' + std::string(ir::opcode_name(*c.reduction)) + ')';
  return op;
}

void print_header(std::ostream& out, const std::string& path, const ir::ModuleSummary& s) {
  Table t;
  t.add({"module", s.module});
  t.add({"file", path});
  t.add({"computations", std::to_string(s.computations.size()) + " (ENTRY " + s.entry + ")"});
  t.add({"instructions", std::to_string(s.instructions) + " in all, " +
                             std::to_string(s.entry_instructions) + " in ENTRY"});
  t.add({"devices", plural(static_cast<size_t>(s.num_partitions), "partition") + ", " +
                        plural(static_cast<size_t>(s.replica_count), "replica")});
  t.add({"source sites", percent(s.metadata_coverage()) +
                             " of instructions have source_file:source_line (op_name " +
                             percent(s.op_name_coverage()) + ")"});
  t.print(out, "");
}

void print_opcodes(std::ostream& out, const ir::ModuleSummary& s) {
  std::vector<std::pair<std::string, size_t>> by_count(s.opcodes.begin(), s.opcodes.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out << "\nopcodes (" << plural(by_count.size(), "kind") << ", by count)\n";
  const size_t shown = std::min(by_count.size(), kOpcodeRows * kOpcodeColumns);
  const size_t rows = (shown + kOpcodeColumns - 1) / kOpcodeColumns;
  // Column-major, so the eye reads down the most frequent first.
  Table t;
  for (size_t r = 0; r < rows; ++r) {
    std::vector<std::string> row;
    for (size_t c = 0; c < kOpcodeColumns; ++c) {
      const size_t i = c * rows + r;
      if (i >= shown) break;
      row.push_back(by_count[i].first);
      row.push_back(std::to_string(by_count[i].second));
    }
    t.add(std::move(row));
  }
  t.print(out);
  print_more(out, shown, by_count.size());
}

void print_values(std::ostream& out, std::string_view title, std::string_view index_prefix,
                  const std::vector<ir::BoundaryValue>& values, size_t limit) {
  out << '\n' << title << " (" << values.size() << ")\n";
  const size_t shown = std::min(values.size(), limit);
  Table t;
  for (size_t i = 0; i < shown; ++i) {
    const ir::BoundaryValue& v = values[i];
    std::vector<std::string> row{std::string(index_prefix) + std::to_string(v.index), v.name,
                                 truncated(v.type, kMaxTypeChars)};
    if (!v.sharding.empty()) row.push_back("sharding=" + v.sharding);
    t.add(std::move(row));
  }
  t.print(out);
  print_more(out, shown, values.size());
}

void print_collectives(std::ostream& out, const ir::ModuleSummary& s) {
  if (s.collectives.empty()) {
    out << "\ncollectives: none\n";
    return;
  }
  out << "\ncollectives (" << s.collectives.size() << ")\n";
  Table t;
  if (s.collectives.size() <= kMaxCollectiveLines) {
    for (const ir::CollectiveSummary& c : s.collectives) {
      std::vector<std::string> row{c.name, describe_op(c), truncated(c.type, kMaxTypeChars),
                                   describe_groups(c)};
      if (c.channel_id) row.push_back("channel_id=" + std::to_string(*c.channel_id));
      t.add(std::move(row));
    }
    t.print(out);
    return;
  }
  // Many collectives (a whole train step): one line per kind and grouping, with a count.
  struct Group {
    size_t count = 0;
    std::string first;
  };
  std::map<std::tuple<std::string, std::string>, Group> groups;
  std::vector<std::tuple<std::string, std::string>> order;
  for (const ir::CollectiveSummary& c : s.collectives) {
    auto key = std::make_tuple(describe_op(c), describe_groups(c));
    Group& g = groups[key];
    if (g.count++ == 0) {
      g.first = c.name;
      order.push_back(key);
    }
  }
  const size_t shown = std::min(order.size(), kMaxCollectiveLines);
  for (size_t i = 0; i < shown; ++i) {
    const Group& g = groups[order[i]];
    t.add({std::to_string(g.count) + " ×", std::get<0>(order[i]), std::get<1>(order[i]),
           "first " + g.first});
  }
  t.print(out);
  print_more(out, shown, order.size());
}

void print_custom_calls(std::ostream& out, const ir::ModuleSummary& s) {
  if (s.custom_calls.empty()) {
    out << "\ncustom calls: none\n";
    return;
  }
  std::vector<std::pair<std::string, size_t>> by_count(s.custom_calls.begin(),
                                                       s.custom_calls.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out << "\ncustom calls (" << plural(by_count.size(), "target") << ")\n";
  const size_t shown = std::min(by_count.size(), kMaxCustomCalls);
  Table t;
  for (size_t i = 0; i < shown; ++i) t.add({by_count[i].first, std::to_string(by_count[i].second)});
  t.print(out);
  print_more(out, shown, by_count.size());
}

void print_report(std::ostream& out, const std::string& path, const ir::ModuleSummary& s) {
  print_header(out, path, s);
  print_opcodes(out, s);
  print_values(out, "parameters", "#", s.parameters, kMaxParameters);
  print_values(out, "outputs", "", s.outputs, kMaxOutputs);
  print_collectives(out, s);
  print_custom_calls(out, s);
}

int usage_error(std::ostream& err, std::string_view message) {
  err << "scalify inspect: " << message << "\nusage: scalify " << kInspectUsage << "\n";
  return 2;
}

}  // namespace

int run_inspect(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  bool as_json = false;
  std::string path;
  bool have_path = false;
  for (std::string_view arg : args) {
    if (arg == "--json") {
      as_json = true;
    } else if (arg == "-h" || arg == "--help") {
      out << "usage: scalify " << kInspectUsage << "\n\n"
          << "Reads an HLO text module and prints a summary: computations, instructions by\n"
          << "opcode, ENTRY parameters and outputs, collectives and their replica groups,\n"
          << "custom-call targets, and the share of instructions with a source site.\n\n"
          << "  --json   print one JSON object instead\n";
      return 0;
    } else if (arg.size() > 1 && arg.front() == '-') {
      return usage_error(err, "unknown option '" + std::string(arg) + "'");
    } else if (have_path) {
      return usage_error(err, "expected one FILE, got a second one: '" + std::string(arg) + "'");
    } else {
      path = std::string(arg);
      have_path = true;
    }
  }
  if (!have_path) return usage_error(err, "missing FILE");

  const Expected<ir::Module> module = hlo::read_module_file(path);
  if (!module) {
    err << module.error().format();
    return 2;
  }
  const ir::ModuleSummary summary = ir::summarize(*module);
  if (as_json) {
    out << ir::to_json(summary).dump(2) << '\n';
  } else {
    print_report(out, path, summary);
  }
  return 0;
}

}  // namespace scalify::cli
