#include "gen_command.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>

#include "modelgen/gallery.h"
#include "modelgen/llama_generator.h"

namespace scalify::cli {

namespace {

int usage_error(std::ostream& err, const std::string& message) {
  err << "scalify gen: " << message << "\nusage: scalify " << kGenUsage << '\n';
  return 2;
}

void print_help(std::ostream& out) {
  out << "usage: scalify " << kGenUsage << "\n\n"
      << "Writes a Llama-family decoder (RMSNorm, RoPE, SwiGLU, grouped-query attention) as two\n"
      << "HLO modules: DIR/ref.hlo, the single-device program, and DIR/dist.hlo, the program\n"
      << "every tensor-parallel rank runs; and DIR/model.py, the source their metadata names.\n\n"
      << "  --preset P        tiny (2 layers, hidden 64), 8b, 70b or 405b (Llama 3.1's shapes)\n"
      << "  --layers N        override the preset's layer count\n"
      << "  --seq S           prompt length (decode: KV-cache length); default 16\n"
      << "  --batch B         default 1\n"
      << "  --decode          one new token at a position parameter instead of a prefill\n"
      << "  --tp N            tensor-parallel ranks; default 2\n"
      << "  --sp              sequence parallelism: reduce-scatter / all-gather around the norms\n"
      << "  --experts E       a top-1 mixture of E experts in place of every MLP, the experts\n"
      << "                    split over the ranks (expert parallel, two all-to-alls)\n"
      << "  --bug KIND[@L]    plant a bug in dist.hlo, in layer L (default 0)\n"
      << "  --out DIR         where to write (created if needed)\n\n"
      << "bug kinds:\n";
  for (const modelgen::BugInfo& b : modelgen::bug_catalogue()) {
    out << "  " << b.name;
    if (!b.needs.empty()) out << " (needs " << b.needs << ")";
    out << "\n      " << b.mimics << '\n';
  }
  out << "\nscalify gen example NAME --out DIR writes a teaching example: DIR/correct/ and "
         "DIR/bug/\n"
      << "(each ref.hlo, dist.hlo, model.py) and DIR/README.md, which explains the sharding, the\n"
      << "bug and where the checker stops. --list prints the examples:\n";
  for (const modelgen::GalleryExample& e : modelgen::gallery()) {
    out << "  " << e.name << "\n      " << e.title << '\n';
  }
}

std::optional<int64_t> parse_count(std::string_view text) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

bool write_file(const std::filesystem::path& path, const std::string& text, std::ostream& err) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) {
    err << "scalify gen: cannot write " << path.string() << '\n';
    return false;
  }
  return true;
}

std::string size_text(size_t bytes) {
  char buf[32];
  if (bytes >= (1u << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / (1 << 10));
  }
  return buf;
}

/// `gen example NAME --out DIR` and `gen example --list`.
int run_example(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  std::string name, dir;
  bool list = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--list") {
      list = true;
    } else if (args[i] == "--out") {
      if (i + 1 >= args.size()) return usage_error(err, "--out needs a value");
      dir = args[++i];
    } else if (name.empty() && !args[i].starts_with("-")) {
      name = args[i];
    } else {
      return usage_error(err, "unknown argument '" + std::string(args[i]) + "'");
    }
  }
  if (list) {
    for (const modelgen::GalleryExample& e : modelgen::gallery()) {
      out << e.name << "  " << e.title << '\n';
    }
    return 0;
  }
  if (name.empty()) return usage_error(err, "missing the example's name (--list lists them)");
  if (dir.empty()) return usage_error(err, "missing --out DIR");
  auto example = modelgen::find_example(name);
  if (!example) return usage_error(err, example.error().message);
  auto pair = modelgen::generate_example(**example);
  if (!pair) return usage_error(err, pair.error().message);
  const std::filesystem::path root(dir);
  for (const char* sub : {"correct", "bug"}) {
    std::error_code ec;
    std::filesystem::create_directories(root / sub, ec);
    if (ec) {
      err << "scalify gen: cannot create " << (root / sub).string() << ": " << ec.message() << '\n';
      return 2;
    }
    const modelgen::GeneratedPair& p = std::string_view(sub) == "bug" ? pair->buggy : pair->correct;
    if (!write_file(root / sub / "ref.hlo", p.ref_hlo, err) ||
        !write_file(root / sub / "dist.hlo", p.dist_hlo, err) ||
        !write_file(root / sub / "model.py", p.model_py, err)) {
      return 2;
    }
  }
  if (!write_file(root / "README.md", pair->readme, err)) return 2;
  out << (*example)->title << '\n'
      << "  " << (root / "correct").string() << "/   ref.hlo, dist.hlo, model.py (equivalent)\n"
      << "  " << (root / "bug").string() << "/       ref.hlo, dist.hlo, model.py (divergent in "
      << (*example)->divergent_scope << ")\n"
      << "  " << (root / "README.md").string() << "  the sharding, the bug, what to run\n";
  return 0;
}

}  // namespace

int run_gen(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  for (std::string_view a : args) {
    if (a == "-h" || a == "--help") {
      print_help(out);
      return 0;
    }
  }
  if (!args.empty() && args[0] == "example") return run_example(args, out, err);
  if (args.empty() || args[0] != "llama") {
    return usage_error(
        err, args.empty() ? "missing what to generate (llama or example)"
                          : "unknown generator '" + std::string(args[0]) + "' (llama or example)");
  }
  std::string preset, dir;
  std::optional<int64_t> layers;
  modelgen::GenOptions options;
  std::optional<std::string> bug;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&]() -> std::optional<std::string_view> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    auto count = [&](int64_t& into) -> std::optional<std::string> {
      const auto v = value();
      if (!v) return std::string(a) + " needs a value";
      const auto n = parse_count(*v);
      if (!n) return std::string(a) + " expects a whole number, got '" + std::string(*v) + "'";
      into = *n;
      return std::nullopt;
    };
    std::optional<std::string> problem;
    if (a == "--preset" || a == "--out" || a == "--bug") {
      const auto v = value();
      if (!v) return usage_error(err, std::string(a) + " needs a value");
      if (a == "--preset") {
        preset = *v;
      } else if (a == "--out") {
        dir = *v;
      } else {
        bug = std::string(*v);
      }
    } else if (a == "--layers") {
      problem = count(layers.emplace());
    } else if (a == "--seq") {
      problem = count(options.seq);
    } else if (a == "--batch") {
      problem = count(options.batch);
    } else if (a == "--tp") {
      problem = count(options.tp);
    } else if (a == "--experts") {
      problem = count(options.experts);
    } else if (a == "--decode") {
      options.decode = true;
    } else if (a == "--sp") {
      options.sp = true;
    } else {
      problem = "unknown argument '" + std::string(a) + "'";
    }
    if (problem) return usage_error(err, *problem);
  }
  if (preset.empty()) return usage_error(err, "missing --preset");
  if (dir.empty()) return usage_error(err, "missing --out DIR");
  auto model = modelgen::llama_preset(preset);
  if (!model) return usage_error(err, model.error().message);
  options.model = *model;
  if (layers) options.model.layers = *layers;
  if (bug) {
    auto planted = modelgen::parse_bug(*bug);
    if (!planted) return usage_error(err, planted.error().message);
    options.bug = *planted;
  }

  const auto start = std::chrono::steady_clock::now();
  auto pair = modelgen::generate_llama(options);
  if (!pair) return usage_error(err, pair.error().message);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err << "scalify gen: cannot create " << dir << ": " << ec.message() << '\n';
    return 2;
  }
  const std::filesystem::path root(dir);
  if (!write_file(root / "ref.hlo", pair->ref_hlo, err) ||
      !write_file(root / "dist.hlo", pair->dist_hlo, err) ||
      !write_file(root / "model.py", pair->model_py, err)) {
    return 2;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const modelgen::LlamaConfig& m = options.model;
  out << "llama " << m.name << ": " << m.layers << " layers, hidden " << m.hidden << ", " << m.heads
      << " heads (" << m.kv_heads << " KV), head dim " << m.head_dim << ", FFN " << m.ffn
      << ", vocab " << m.vocab << '\n';
  out << (options.decode ? "decode" : "prefill") << ", batch " << options.batch << ", "
      << (options.decode ? "cache " : "seq ") << options.seq << ", tp " << options.tp
      << (options.sp ? ", sequence parallel" : "");
  if (options.bug) {
    out << ", bug " << modelgen::bug_info(options.bug->kind).name << " in layer "
        << options.bug->layer;
  }
  out << '\n';
  out << "  " << (root / "ref.hlo").string() << "   " << pair->ref_instructions << " instructions, "
      << size_text(pair->ref_hlo.size()) << '\n';
  out << "  " << (root / "dist.hlo").string() << "  " << pair->dist_instructions
      << " instructions, " << size_text(pair->dist_hlo.size()) << '\n';
  out << "  " << (root / "model.py").string() << "  " << size_text(pair->model_py.size()) << '\n';
  char took[32];
  std::snprintf(took, sizeof took, "%.2f s", seconds);
  out << "written in " << took << '\n';
  return 0;
}

}  // namespace scalify::cli
