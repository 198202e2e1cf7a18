// Saved sessions: every item survives a save and an open; files that are not sessions, damaged
// ones and newer ones are refused with a message and left exactly as they were; a failed save
// keeps the previous session.
#include "store/session_file.h"

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "verify/check_json.h"
#include "verify/spec.h"

using namespace scalify;
namespace fs = std::filesystem;

namespace {

constexpr const char* kRef = R"(HloModule ref
ENTRY main {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  ROOT d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

constexpr const char* kDist = R"(HloModule dist, num_partitions=2
ENTRY main {
  x = f32[4,8] parameter(0)
  w = f32[8,3] parameter(1)
  d = f32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[4,3] tanh(d)
}
)";

verify::CheckResult sample_result() {
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  const auto layout = [&](const char* text) { return *verify::Layout::parse(text, mesh); };
  verify::CheckResult r;
  r.mesh = mesh;
  r.verdict = verify::Verdict::kDivergent;
  r.bijection.push_back({"x", "x", 0, 0, layout("rep"), "position and shape", {}, {}});
  r.bijection.push_back({"w", "w", 1, 1, layout("shard(1,tp)"), "shape ratio", {4, 2}, {1, 0}});
  verify::Goal proven;
  proven.ref = "d";
  proven.dist = "d";
  proven.proven = true;
  proven.layout = layout("shard(1,tp)");
  proven.proof = {"w is shard(1,tp) of w (the bijection)", "d is shard(1,tp) of d (dot)"};
  verify::Goal open;
  open.ref = "out#1";
  open.dist = "t#1";
  open.index = 1;
  open.why_not = "no layout reaches t";
  r.goals = {proven, open};
  r.assumptions.push_back({"w", layout("shard(1,tp,pad 6,zeros)"), "the padding holds zeros"});
  r.unmatched_ref_outputs = {"aux"};
  r.unmatched_dist_parameters = {"step"};
  r.notes = {"checked whole"};
  verify::Divergence d;
  d.dist_node = "t";
  d.ref_node = "d";
  d.op = "tanh";
  d.reason = "operand 0 is shard(1,tp) but the reference never applies tanh";
  d.by_value = true;
  d.operand_layouts = {"shard(1,tp)"};
  d.op_name = "model/tanh";
  d.source = verify::SourceSite{"model.py", 42};
  d.dist_line = 6;
  d.ref_line = 5;
  r.divergence = d;
  r.matches = {{"x", "x", layout("rep")}, {"d", "d", layout("shard(1,tp)")}};
  r.stats.seconds = 0.25;
  r.stats.parts = 3;
  r.stats.memo_hits = 1;
  r.stats.enodes = 120;
  r.stats.eclasses = 80;
  r.stats.iterations = 4;
  r.stats.facts = 33;
  r.stats.stop_reason = "saturated";
  return r;
}

store::Session sample_session() {
  store::Session s;
  s.reference = {"/models/ref.hlo", kRef, {}};
  s.distributed = {"/models/dist.hlo", kDist, {"layer 3", "epilogue"}};
  s.spec =
      "{\"mesh\": {\"tp\": 2}, \"parameters\": "
      "[{\"dist\": \"w\", \"ref\": \"w\", \"layout\": \"shard(1,tp)\"}]}";
  s.result = sample_result();
  s.notes = {{store::Pane::kDistributed, "t", "the tanh must come after the all-gather"},
             {store::Pane::kReference, "d", "ünïcode, quotes \" and\nnew lines"}};
  return s;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Every name in `dir`.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// Opening `path` fails with a message containing `words`, and the file is as it was.
void refused_untouched(const std::string& path, const std::string& words) {
  const std::string before = bytes_of(path);
  const std::vector<std::string> siblings = names_in(fs::path(path).parent_path().string());
  auto opened = store::open_session(path);
  REQUIRE_FALSE(opened);
  CHECK_THAT(opened.error().format(), Catch::Contains(words));
  CHECK_THAT(opened.error().format(), Catch::Contains(path));
  CHECK(bytes_of(path) == before);
  CHECK(names_in(fs::path(path).parent_path().string()) == siblings);  // nothing moved or made
}

void run_sql(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("session file: every item survives a save and an open", "[store][session]") {
  test::TempDir dir;
  const std::string path = dir.path() + "/bug.scalify";
  const store::Session s = sample_session();
  REQUIRE(store::save_session(path, s));
  auto back = store::open_session(path);
  REQUIRE(back);

  CHECK(back->reference == s.reference);
  CHECK(back->distributed == s.distributed);
  CHECK(back->distributed.expanded_groups == std::vector<std::string>{"layer 3", "epilogue"});
  CHECK(back->spec == s.spec);
  const auto spec = verify::parse_spec(back->spec, "spec");
  REQUIRE(spec);
  CHECK(spec->parameters.at(0).layout->to_string(spec->layout_mesh) == "shard(1,tp)");
  CHECK(back->notes == s.notes);

  REQUIRE(back->result);
  const verify::CheckResult& r = *back->result;
  // The whole result, matches included, as its JSON says it.
  CHECK(verify::to_json(r, {.matches = true}) == verify::to_json(*s.result, {.matches = true}));
  CHECK(r.verdict == verify::Verdict::kDivergent);
  CHECK(r.mesh.to_string() == "tp=2");
  REQUIRE(r.bijection.size() == 2);
  CHECK(r.bijection[1].layout.to_string(r.mesh) == "shard(1,tp)");
  CHECK(r.bijection[1].dist_number == 1);
  CHECK(r.bijection[1].reshape == std::vector<int64_t>{4, 2});
  CHECK(r.bijection[1].permutation == std::vector<int64_t>{1, 0});
  REQUIRE(r.goals.size() == 2);
  CHECK(r.goals[0].proof == s.result->goals[0].proof);
  CHECK_FALSE(r.goals[1].layout);
  CHECK(r.goals[1].why_not == "no layout reaches t");
  REQUIRE(r.assumptions.size() == 1);
  CHECK(r.assumptions[0].layout.to_string(r.mesh) == "shard(1,tp,pad 6,zeros)");
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "t");
  CHECK(r.divergence->by_value);
  CHECK(r.divergence->source->line == 42);
  CHECK(r.divergence->dist_line == 6);
  CHECK(r.matches.size() == 2);
  CHECK(r.stats.stop_reason == "saturated");
  CHECK(r.unmatched_dist_parameters == std::vector<std::string>{"step"});

  // Saved again over itself: the same session.
  REQUIRE(store::save_session(path, *back));
  auto again = store::open_session(path);
  REQUIRE(again);
  CHECK(again->notes == s.notes);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"bug.scalify"});
}

TEST_CASE("session file: a session before its check has no result and no spec",
          "[store][session]") {
  test::TempDir dir;
  const std::string path = dir.path() + "/new.scalify";
  store::Session s;
  s.reference = {"ref.hlo", kRef, {}};
  s.distributed = {"dist.hlo", kDist, {}};
  REQUIRE(store::save_session(path, s));
  auto back = store::open_session(path);
  REQUIRE(back);
  CHECK_FALSE(back->result);
  CHECK(back->spec.empty());
  CHECK(back->notes.empty());
  CHECK(back->distributed == s.distributed);
}

TEST_CASE("session file: a truncated file is refused and left as it was", "[store][session]") {
  test::TempDir dir;
  const std::string path = dir.path() + "/cut.scalify";
  store::Session s = sample_session();
  s.distributed.hlo += std::string(20000, '\n');  // several pages
  REQUIRE(store::save_session(path, s));
  const std::string whole = bytes_of(path);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(whole.data(), static_cast<std::streamsize>(whole.size() / 2));
  }
  refused_untouched(path, "truncated");
  SECTION("cut inside the header") {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(whole.data(), 40);
    refused_untouched(path, "truncated");
  }
}

TEST_CASE("session file: a file that is not a session is refused and left as it was",
          "[store][session]") {
  test::TempDir dir;
  SECTION("plain text") {
    const std::string path = dir.write("notes.scalify", "my notes, not a session\n");
    refused_untouched(path, "not a Scalify session (not an SQLite file)");
  }
  SECTION("an empty file") {
    const std::string path = dir.write("empty.scalify", "");
    refused_untouched(path, "not a Scalify session");
  }
  SECTION("an SQLite database of another program") {
    const std::string path = dir.path() + "/songs.scalify";
    run_sql(path, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES('so long')");
    refused_untouched(path, "an SQLite database of another program");
  }
  SECTION("our application id but no session inside") {
    const std::string path = dir.path() + "/odd.scalify";
    run_sql(path, "PRAGMA application_id = 1396919366; CREATE TABLE meta(key TEXT, value TEXT)");
    refused_untouched(path, "not a Scalify session");
  }
  SECTION("a damaged page") {
    const std::string path = dir.path() + "/damaged.scalify";
    REQUIRE(store::save_session(path, sample_session()));
    std::string bytes = bytes_of(path);
    REQUIRE(bytes.size() > 4096 + 200);
    for (size_t i = 4096; i < 4096 + 200; ++i) bytes[i] = '\xA5';  // the second page
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    refused_untouched(path, "damaged");
  }
  SECTION("a folder") {
    fs::create_directory(dir.path() + "/folder.scalify");
    auto opened = store::open_session(dir.path() + "/folder.scalify");
    REQUIRE_FALSE(opened);
    CHECK_THAT(opened.error().message, Catch::Contains("folder"));
  }
  SECTION("no such file") {
    auto opened = store::open_session(dir.path() + "/missing.scalify");
    REQUIRE_FALSE(opened);
    CHECK_THAT(opened.error().format(), Catch::Contains("missing.scalify"));
  }
}

TEST_CASE("session file: a newer format is refused with both versions", "[store][session]") {
  test::TempDir dir;
  const std::string path = dir.path() + "/future.scalify";
  REQUIRE(store::save_session(path, sample_session()));
  run_sql(path, "UPDATE meta SET value = '3' WHERE key = 'format_version'");
  refused_untouched(path, "was written by a newer Scalify (format 3; this one reads 1)");
}

TEST_CASE("session file: a failed save keeps the previous session and leaves no temporary file",
          "[store][session]") {
  test::TempDir dir;
  const std::string path = dir.path() + "/keep.scalify";
  store::Session old = sample_session();
  REQUIRE(store::save_session(path, old));
  const std::string before = bytes_of(path);
  store::Session next = sample_session();
  next.notes.push_back({store::Pane::kDistributed, "x", "not saved"});

  SECTION("the temporary file cannot be made") {
    // A folder where the temporary file would go: it is not ours, so it stays.
    fs::create_directory(path + ".partial");
    dir.write("keep.scalify.partial/inside", "x");
    auto saved = store::save_session(path, next);
    REQUIRE_FALSE(saved);
    CHECK_THAT(saved.error().format(), Catch::Contains("cannot save the session"));
    CHECK(bytes_of(path) == before);
    CHECK(fs::is_directory(path + ".partial"));
    auto back = store::open_session(path);
    REQUIRE(back);
    CHECK(back->notes == old.notes);
  }
  SECTION("the target is a folder") {
    const std::string folder = dir.path() + "/folder.scalify";
    fs::create_directory(folder);
    auto saved = store::save_session(folder, next);
    REQUIRE_FALSE(saved);
    CHECK_THAT(saved.error().format(), Catch::Contains("folder.scalify"));
    CHECK(fs::is_directory(folder));
    CHECK(names_in(dir.path()) == std::vector<std::string>{"folder.scalify", "keep.scalify"});
  }
  SECTION("the folder does not exist") {
    auto saved = store::save_session(dir.path() + "/no/such/folder/s.scalify", next);
    REQUIRE_FALSE(saved);
    CHECK(names_in(dir.path()) == std::vector<std::string>{"keep.scalify"});
  }
}
