#include "test_support.h"

#include <sys/wait.h>
#include <zlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "hlo/reader.h"
#include "support/json.h"

namespace fs = std::filesystem;

namespace scalify::test {

std::string corpus_dir() { return SCALIFY_CORPUS_DIR; }

ir::Module parse_module(const std::string& text, const std::string& file) {
  auto m = hlo::read_module(text, file);
  if (!m) FAIL(m.error().format());
  return std::move(*m);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> corpus_hlo_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(corpus_dir())) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<BulkModule> bulk_corpus_modules() {
  const std::string path = corpus_dir() + "/xla/bulk_xla_test_hlo_strings.jsonl.gz";
  gzFile gz = gzopen(path.c_str(), "rb");
  INFO("opening " << path);
  REQUIRE(gz != nullptr);
  std::string data;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(gz, buffer, sizeof buffer)) > 0) data.append(buffer, static_cast<size_t>(n));
  gzclose(gz);
  std::vector<BulkModule> modules;
  std::istringstream lines(data);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto value = json::parse(line);
    REQUIRE(value.has_value());
    const json::Value* file = value->find("file");
    const json::Value* test = value->find("test");
    const json::Value* text = value->find("text");
    REQUIRE((file && test && text));
    const std::string test_name =
        test->is_string() ? test->as_string() : "line " + std::to_string(modules.size() + 1);
    modules.push_back({file->as_string() + ":" + test_name, text->as_string()});
  }
  return modules;
}

CommandResult run_cli(const std::string& args) {
  TempDir tmp;
  const std::string out = tmp.path() + "/out", err = tmp.path() + "/err";
  const std::string cmd =
      std::string("'") + SCALIFY_CLI + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path p = fs::temp_directory_path() / ("scalify-test-" + std::to_string(rd()));
    if (fs::create_directory(p)) {
      path_ = p.string();
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary directory");
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  const std::string p = path_ + "/" + name;
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

}  // namespace scalify::test
