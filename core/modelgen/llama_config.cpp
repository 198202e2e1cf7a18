#include "modelgen/llama_config.h"

namespace scalify::modelgen {

namespace {

// Upper bounds that keep the written text within reach of a disk and the arithmetic exact.
constexpr int64_t kMaxLayers = 4096, kMaxTokens = int64_t{1} << 20, kMaxTp = 4096,
                  kMaxExperts = 4096;

Diagnostic error(std::string message) {
  return Diagnostic{"gen llama", {}, std::move(message), {}};
}

std::string names() {
  std::string s;
  for (std::string_view n : llama_preset_names()) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

}  // namespace

const std::vector<std::string_view>& llama_preset_names() {
  static const std::vector<std::string_view> kNames = {"tiny", "8b", "70b", "405b"};
  return kNames;
}

Expected<LlamaConfig> llama_preset(std::string_view name) {
  // Llama 3.1's published shapes; `tiny` keeps their proportions (4 query heads per KV head)
  // at a size the reference interpreter evaluates in milliseconds.
  if (name == "tiny") return LlamaConfig{"tiny", 2, 64, 8, 2, 8, 128, 256};
  if (name == "8b") return LlamaConfig{"8b", 32, 4096, 32, 8, 128, 14336, 128256};
  if (name == "70b") return LlamaConfig{"70b", 80, 8192, 64, 8, 128, 28672, 128256};
  if (name == "405b") return LlamaConfig{"405b", 126, 16384, 128, 8, 128, 53248, 128256};
  return error("unknown preset '" + std::string(name) + "'; presets: " + names());
}

std::optional<Diagnostic> validate(const GenOptions& o) {
  const LlamaConfig& m = o.model;
  auto positive = [](int64_t v, int64_t max) { return v >= 1 && v <= max; };
  if (!positive(m.layers, kMaxLayers)) {
    return error("--layers must be between 1 and " + std::to_string(kMaxLayers));
  }
  if (!positive(o.batch, kMaxTokens) || !positive(o.seq, kMaxTokens) ||
      o.batch * o.seq > kMaxTokens) {
    return error("--batch and --seq must be at least 1, with at most " +
                 std::to_string(kMaxTokens) + " tokens in all");
  }
  if (!positive(o.tp, kMaxTp)) return error("--tp must be between 1 and " + std::to_string(kMaxTp));
  if (m.head_dim % 2 != 0 || m.heads % m.kv_heads != 0) {
    return error("the model needs an even head_dim and query heads a multiple of the KV heads");
  }
  struct Split {
    int64_t size;
    const char* what;
  };
  for (const Split& s : {Split{m.heads, "query heads"}, Split{m.hidden, "hidden size"},
                         Split{m.ffn, "FFN size"}, Split{m.vocab, "vocabulary"}}) {
    if (s.size % o.tp != 0) {
      return error("--tp " + std::to_string(o.tp) + " does not divide the " +
                   std::to_string(s.size) + " " + s.what);
    }
  }
  if (o.tp <= m.kv_heads && m.kv_heads % o.tp != 0) {
    return error("--tp " + std::to_string(o.tp) + " does not divide the " +
                 std::to_string(m.kv_heads) + " KV heads");
  }
  if (o.sp) {
    if (o.decode) return error("--sp splits the sequence; a decode step has one token");
    if (o.tp < 2) return error("--sp needs --tp 2 or more");
    if (o.seq % o.tp != 0) {
      return error("--sp needs --seq divisible by --tp (" + std::to_string(o.seq) + " by " +
                   std::to_string(o.tp) + ")");
    }
  }
  if (o.experts < 0 || o.experts > kMaxExperts) {
    return error("--experts must be between 0 and " + std::to_string(kMaxExperts));
  }
  if (o.experts > 0 && o.experts % o.tp != 0) {
    return error("--tp " + std::to_string(o.tp) + " does not divide the " +
                 std::to_string(o.experts) + " experts");
  }
  if (o.experts > 0 && o.tp > 1 && !o.sp) {
    // Each rank routes its own block of the sequence.
    if (o.decode)
      return error("--experts with --tp splits the sequence; a decode step has one token");
    if (o.seq % o.tp != 0) {
      return error("--experts with --tp needs --seq divisible by --tp (" + std::to_string(o.seq) +
                   " by " + std::to_string(o.tp) + ")");
    }
  }
  if (!o.bug) return std::nullopt;
  const BugInfo& bug = bug_info(o.bug->kind);
  const std::string name(bug.name);
  if (o.tp < 2) return error("--bug " + name + " needs --tp 2 or more");
  if (o.bug->layer >= m.layers) {
    return error("--bug " + name + "@" + std::to_string(o.bug->layer) + ": the model has " +
                 std::to_string(m.layers) + " layers (0 to " + std::to_string(m.layers - 1) + ")");
  }
  switch (o.bug->kind) {
    case BugKind::kRopeOffset:
    case BugKind::kNormLocalStats:
      if (!o.sp) return error("--bug " + name + " needs --sp (it is a sequence-parallel bug)");
      break;
    case BugKind::kReduceScatterForAllReduce:
      if (o.sp) {
        return error("--bug " + name +
                     " replaces an all-reduce; with --sp the layers have none (drop --sp)");
      }
      break;
    case BugKind::kKvSplit:
      if (o.tp <= m.kv_heads) {
        return error("--bug " + name + " needs --tp above the " + std::to_string(m.kv_heads) +
                     " KV heads (below, splitting them is right)");
      }
      break;
    case BugKind::kMoeNoTranspose:
      if (o.experts == 0) return error("--bug " + name + " needs --experts (it is an MoE bug)");
      if (o.experts == o.tp && o.batch == 1) {
        // The permute moves the source rank behind batch and expert, both of size 1: it moves
        // nothing, and leaving it out is no bug.
        return error("--bug " + name +
                     " needs more than one expert per rank or a batch above 1 (with one of "
                     "each the missing permute moves nothing)");
      }
      break;
    case BugKind::kWrongShardDim:
      if (m.hidden != m.heads * m.head_dim) {
        return error("--bug " + name + " needs a square o_proj (hidden = heads × head_dim)");
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace scalify::modelgen
