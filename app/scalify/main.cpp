// scalify: the command line. This file only dispatches; each command lives in its own file.
#include <algorithm>
#include <exception>
#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include "check_command.h"
#include "gen_command.h"
#include "inspect_command.h"
#include "process_exit.h"
#include "proof_command.h"
#include "rules_command.h"
#include "support/heap_huge_pages.h"

namespace {

constexpr std::string_view kVersion =
    SCALIFY_VERSION;  // project()'s version, from app/CMakeLists.txt

using Args = std::span<const std::string_view>;

struct Command {
  std::string_view name;
  std::string_view usage;  ///< after "scalify "
  std::string_view help;   ///< one line
  int (*run)(Args args, std::ostream& out, std::ostream& err);
};

constexpr Command kCommands[] = {
    {"check", scalify::cli::kCheckUsage, scalify::cli::kCheckHelp, scalify::cli::run_check},
    {"gen", scalify::cli::kGenUsage, scalify::cli::kGenHelp, scalify::cli::run_gen},
    {"inspect", scalify::cli::kInspectUsage, scalify::cli::kInspectHelp, scalify::cli::run_inspect},
    {"proof", scalify::cli::kProofUsage, scalify::cli::kProofHelp, scalify::cli::run_proof},
    {"rules", scalify::cli::kRulesUsage, scalify::cli::kRulesHelp, scalify::cli::run_rules},
};

void print_usage(std::ostream& os) {
  // Each command's usage (its own lines as written), then what it does, indented.
  os << "usage: scalify COMMAND [ARGS...]\n\ncommands:\n";
  for (const Command& c : kCommands) {
    std::string usage(c.usage);
    for (size_t at = usage.find("\n       "); at != std::string::npos;
         at = usage.find("\n       ", at + 1)) {
      usage.replace(at, 8, "\n  ");
    }
    os << "  scalify " << usage << "\n      " << c.help << '\n';
  }
  os << "\noptions:\n"
        "  -h, --help    show this help (scalify COMMAND --help: help on one command)\n"
        "  --version     print the version\n"
        "\nexit codes: 0 ok or equivalent, 1 divergent, 2 bad input or usage, 3 inconclusive\n";
}

const Command* find_command(std::string_view name) {
  for (const Command& c : kCommands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int dispatch(Args args) {
  if (args.empty()) {
    std::cerr << "scalify: missing COMMAND\n\n";
    print_usage(std::cerr);
    return 2;
  }
  const std::string_view first = args[0];
  if (first == "-h" || first == "--help" || first == "help") {
    if (first == "help" && args.size() > 1) {  // `scalify help inspect`
      if (const Command* c = find_command(args[1])) {
        static constexpr std::string_view kHelpArgs[] = {"--help"};
        return c->run(Args(kHelpArgs), std::cout, std::cerr);
      }
    }
    print_usage(std::cout);
    return 0;
  }
  if (first == "--version") {
    std::cout << "scalify " << kVersion << '\n';
    return 0;
  }
  if (const Command* c = find_command(first)) return c->run(args.subspan(1), std::cout, std::cerr);
  std::cerr << "scalify: unknown " << (first.starts_with('-') ? "option" : "command") << " '"
            << first << "'\n\n";
  print_usage(std::cerr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // A batch run: its tens of MB of small objects on huge pages (a third of a large check's
  // time was page faults).
  scalify::support::use_huge_pages_for_heap();
  scalify::cli::exit_when_done(true);  // one command a process: no teardown
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const std::exception& e) {
    // A bug, not bad input: say so plainly rather than abort with a core dump.
    std::cerr << "scalify: internal error: " << e.what() << '\n';
    return 70;  // EX_SOFTWARE
  }
}
