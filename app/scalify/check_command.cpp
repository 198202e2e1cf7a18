#include "check_command.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hlo/printer.h"
#include "hlo/reader.h"
#include "process_exit.h"
#include "proofcheck/proof_file.h"
#include "report/report.h"
#include "report/source_snippet.h"
#include "store/memo_store.h"
#include "support/atomic_file.h"
#include "verify/check.h"
#include "verify/check_json.h"
#include "verify/mesh_inference.h"
#include "verify/spec.h"

namespace scalify::cli {

namespace {

int usage_error(std::ostream& err, const std::string& message) {
  err << "scalify check: " << message << "\nusage: scalify " << kCheckUsage << '\n';
  return 2;
}

/// Lines `line - 2 … line + 2` of a file, the middle one marked, long lines cut.
void print_context(std::ostream& out, const std::string& path, int64_t line) {
  const auto s = report::snippet(path, line, 2);
  if (!s) return;
  for (const report::SnippetLine& l : s->lines) {
    std::string text = l.text;
    if (text.size() > 150) text = text.substr(0, 149) + "…";
    out << (l.marked ? "  > " : "    ") << path << ':' << l.number << ": " << text << '\n';
  }
}

/// The result for a person; with `explain`, every proven goal's proof under it.
void print_text(std::ostream& out, const verify::CheckResult& r, const std::string& ref_path,
                const std::string& dist_path, bool explain) {
  using verify::Verdict;
  out << "verdict   " << verify::verdict_name(r.verdict) << '\n';
  out << "mesh      " << r.mesh.to_string() << '\n';
  out << "\nbijection (distributed parameter ~ layout of reference parameter)\n";
  for (const auto& b : r.bijection) {
    out << "  " << b.dist << "  ~ " << b.layout.to_string(r.mesh) << " of " << b.ref << "   ("
        << b.why << ")\n";
  }
  for (const auto& u : r.unmatched_dist_parameters) out << "  " << u << "  no counterpart\n";
  out << "\ngoals\n";
  for (const auto& g : r.goals) {
    out << "  " << g.ref << " <- " << g.dist << "  ";
    if (g.proven) {
      out << "proven, " << g.layout->to_string(r.mesh) << '\n';
      if (explain) {
        for (const std::string& step : g.proof) out << "      " << step << '\n';
      }
    } else {
      out << "NOT proven: " << g.why_not << '\n';
    }
  }
  for (const auto& u : r.unmatched_ref_outputs) out << "  " << u << "  no distributed output\n";
  if (!r.assumptions.empty()) {
    out << "\nassumptions (the verdict holds only if these are true)\n";
    for (const auto& a : r.assumptions) {
      out << "  " << a.dist << " is " << a.layout.to_string(r.mesh) << ": " << a.why << '\n';
    }
  }
  if (r.divergence) {
    const auto& d = *r.divergence;
    out << "\nfirst divergence: " << d.dist_node << " (" << d.op << ")\n";
    out << "  reason    " << d.reason << '\n';
    for (size_t i = 0; i < d.operand_layouts.size(); ++i) {
      out << "  operand " << i << "  " << d.operand_layouts[i] << '\n';
    }
    if (!d.op_name.empty()) out << "  op_name   " << d.op_name << '\n';
    if (d.source) out << "  source    " << d.source->file << ':' << d.source->line << '\n';
    if (!d.ref_node.empty()) out << "  closest reference node: " << d.ref_node << '\n';
    out << '\n';
    print_context(out, dist_path, d.dist_line);
    if (d.ref_line > 0) {
      out << '\n';
      print_context(out, ref_path, d.ref_line);
    }
  }
  if (!r.notes.empty()) {
    out << "\nnotes\n";
    for (const auto& n : r.notes) out << "  " << n << '\n';
  }
  char stats[300];
  std::snprintf(stats, sizeof stats,
                "\n%.2f s, %zu e-nodes in %zu e-classes, %zu layout facts, %zu iterations (%s)",
                r.stats.seconds, r.stats.enodes, r.stats.eclasses, r.stats.facts,
                r.stats.iterations, r.stats.stop_reason.c_str());
  out << stats;
  if (r.stats.parts > 1) {
    out << ", " << r.stats.parts << " parts, " << r.stats.memo_hits << " from the memo";
  }
  out << '\n';
}

bool parse_number(std::string_view s, double& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && v > 0;
}

}  // namespace

int run_check(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  bool as_json = false;
  std::optional<std::string> report_path, proof_path;
  std::vector<std::string> files;
  verify::CheckRequest request;
  request.threads = std::max(1u, std::thread::hardware_concurrency());
  std::optional<std::string> spec_path;
  bool use_cache = true;
  std::string cache_path = store::default_cache_path();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    auto value = [&](std::string_view name) -> std::optional<std::string_view> {
      if (i + 1 >= args.size()) return std::nullopt;
      (void)name;
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      out << "usage: scalify " << kCheckUsage << "\n\n"
          << "Proves that DIST (the program every rank runs) computes REF (the single-device\n"
          << "program), or names the first node of DIST where it stops doing so, why, and its\n"
          << "source line.\n\n"
          << "  --json              print one JSON object (see DESIGN.md)\n"
          << "  --report FILE       also write a report: FILE.html (one self-contained page)\n"
          << "                      or FILE.md (a comment for a code review)\n"
          << "  --proof FILE.json   also write the proof with both programs, for\n"
          << "                      `scalify proof verify FILE.json`\n"
          << "  --spec SPEC.json    mesh, parameter and output layouts that override inference\n"
          << "  --mesh tp=8         the mesh (else the spec's, else inferred); a device order\n"
          << "                      may follow: --mesh \"tp=4 devices=[3,2,1,0]\"\n"
          << "  --strict            unmatched parameters or outputs fail the check\n"
          << "  --explain           print every proven goal's proof, with the rewrites behind\n"
          << "                      it (slower)\n"
          << "  --budget-seconds S  stop saturating after S seconds (default 30)\n"
          << "  -j N                parts checked at once (default: every core)\n"
          << "  --cache FILE        the SQLite cache of part results (default\n"
          << "                      $XDG_CACHE_HOME/scalify/memo.sqlite or ~/.cache/scalify/…)\n"
          << "  --no-cache          neither read nor write the cache\n"
          << "  --whole             check the whole program at once, not layer by layer\n"
          << "\nexit codes: 0 equivalent, 1 divergent, 2 bad input or usage, 3 inconclusive\n";
      return 0;
    } else if (arg == "--json") {
      as_json = true;
    } else if (arg == "--report") {
      const auto v = value("--report");
      if (!v || !(v->ends_with(".html") || v->ends_with(".htm") || v->ends_with(".md"))) {
        return usage_error(err, "--report needs a file ending in .html or .md");
      }
      report_path = std::string(*v);
    } else if (arg == "--proof") {
      const auto v = value("--proof");
      if (!v || v->empty()) return usage_error(err, "--proof needs a file");
      proof_path = std::string(*v);
    } else if (arg == "--strict") {
      request.options.strict = true;
    } else if (arg == "--explain") {
      request.options.explain = true;
    } else if (arg == "--spec") {
      auto v = value(arg);
      if (!v) return usage_error(err, "--spec needs a file");
      spec_path = std::string(*v);
    } else if (arg == "--mesh") {
      auto v = value(arg);
      if (!v) return usage_error(err, "--mesh needs a value such as tp=8");
      auto mesh = verify::Mesh::parse(*v);
      if (!mesh) return usage_error(err, mesh.error().message);
      request.mesh = *mesh;
    } else if (arg == "--budget-seconds") {
      auto v = value(arg);
      double s = 0;
      if (!v || !parse_number(*v, s))
        return usage_error(err, "--budget-seconds needs a positive number");
      request.options.budget_seconds = s;
    } else if (arg == "-j") {
      auto v = value(arg);
      double n = 0;
      if (!v || !parse_number(*v, n) || n != static_cast<double>(static_cast<size_t>(n)))
        return usage_error(err, "-j needs a positive whole number");
      request.threads = static_cast<size_t>(n);
    } else if (arg == "--no-cache") {
      use_cache = false;
    } else if (arg == "--cache") {
      auto v = value(arg);
      if (!v || v->empty()) return usage_error(err, "--cache needs a file");
      cache_path = std::string(*v);
    } else if (arg == "--whole") {
      request.by_layers = false;
    } else if (arg.size() > 1 && arg.front() == '-') {
      return usage_error(err, "unknown option '" + std::string(arg) + "'");
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.size() != 2)
    return usage_error(err,
                       "expected REF and DIST, got " + std::to_string(files.size()) + " file(s)");
  std::vector<Expected<ir::Module>> modules = hlo::read_module_files(files);
  for (const Expected<ir::Module>& m : modules) {
    if (!m) {
      err << m.error().format();
      return 2;
    }
  }
  const ir::Module& ref = *modules[0];
  const ir::Module& dist = *modules[1];
  std::optional<verify::Spec> spec;
  if (spec_path) {
    // Layouts in a spec without a mesh are read against --mesh, else the inferred mesh.
    std::optional<verify::Mesh> mesh = request.mesh;
    if (!mesh) {
      auto inferred = verify::infer_mesh(ref, dist, files[1]);
      if (!inferred) {
        err << inferred.error().format();
        return 2;
      }
      mesh = *inferred;
    }
    auto s = verify::read_spec(*spec_path, &*mesh);
    if (!s) {
      err << s.error().format();
      return 2;
    }
    spec = std::move(*s);
    request.spec = &*spec;
  }
  request.dist_file = files[1];
  // The text shows no derivation or node matches (their proofs only with --explain): a large
  // model's parts then need not be joined into one.
  request.evidence = as_json || report_path || proof_path || request.options.explain;
  // The cache only makes a check faster: when it cannot be used, say so and check without it.
  std::unique_ptr<store::MemoStore> cache;
  if (use_cache && !cache_path.empty()) {
    auto opened = store::MemoStore::open(cache_path);
    if (!opened) {
      err << "scalify: warning: " << opened.error().message << " (" << cache_path
          << "); checking without the cache\n";
    } else {
      cache = std::move(*opened);
      if (!cache->note().empty()) err << "scalify: warning: " << cache->note() << '\n';
    }
  }
  verify::PartMemo memo(cache.get());
  request.memo = &memo;
  auto result = verify::check(ref, dist, request);
  if (!result) {
    err << result.error().format();
    return 2;
  }
  if (report_path) {
    auto written = report::write_report(*report_path, {*result, ref, dist, files[0], files[1]});
    if (!written) {
      err << "scalify: error: " << written.error().message << " (" << *report_path << ")\n";
      return 2;
    }
  }
  if (proof_path) {
    const proofcheck::ProofFile proof{files[0], hlo::print_module(ref), files[1],
                                      hlo::print_module(dist), *result};
    auto written =
        write_file_atomically(*proof_path, proofcheck::proof_to_json(proof).dump(1), "the proof");
    if (!written) {
      err << "scalify: error: " << written.error().message << " (" << *proof_path << ")\n";
      return 2;
    }
  }
  if (as_json) {
    out << verify::to_json(*result).dump(2) << '\n';
  } else {
    print_text(out, *result, files[0], files[1], request.options.explain);
  }
  cache.reset();  // the cache is closed before the process may end
  switch (result->verdict) {
    case verify::Verdict::kEquivalent:
      return finish(0, out, err);
    case verify::Verdict::kDivergent:
      return finish(1, out, err);
    case verify::Verdict::kInconclusive:
      break;
  }
  return finish(3, out, err);
}

}  // namespace scalify::cli
