// Helpers shared by the tests: where the corpus is, reading files, running the CLI.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"

namespace scalify::test {

/// `../shared/corpus` (configured at build time).
std::string corpus_dir();
/// The whole file; fails the current test if it cannot be read.
std::string read_file(const std::string& path);
/// HLO text read as a module; fails the current test if it does not read (`file` labels the
/// diagnostic).
ir::Module parse_module(const std::string& text, const std::string& file = "inline.hlo");
/// Every `*.hlo` file below the corpus directory, sorted.
std::vector<std::string> corpus_hlo_files();

/// One module string of the corpus's `xla/bulk_xla_test_hlo_strings.jsonl.gz`.
struct BulkModule {
  std::string label;  ///< "file.cc:TestName"
  std::string text;
};
/// All of them, in file order.
std::vector<BulkModule> bulk_corpus_modules();

/// Result of running a command through the shell.
struct CommandResult {
  int exit_code = -1;
  std::string out;  ///< standard output
  std::string err;  ///< standard error
};
/// Runs `scalify ARGS` (the freshly built binary); ARGS is shell text.
CommandResult run_cli(const std::string& args);

/// A fresh temporary directory, removed when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  /// Writes `content` to `path()/name` and returns the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

}  // namespace scalify::test

#include <catch2/catch.hpp>

#include "support/diagnostic.h"

namespace Catch {
template <>
struct StringMaker<scalify::SourcePos> {
  static std::string convert(const scalify::SourcePos& p) {
    return std::to_string(p.line) + ":" + std::to_string(p.col);
  }
};
}  // namespace Catch
