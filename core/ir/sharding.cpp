#include "ir/sharding.h"

namespace scalify::ir {
namespace {

void append_list(std::string& out, const std::vector<int64_t>& v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(v[i]);
  }
}

void append_body(std::string& out, const Sharding& s) {
  switch (s.kind) {
    case Sharding::Kind::kReplicated:
      out += "replicated";
      break;
    case Sharding::Kind::kManual:
      out += "manual";
      break;
    case Sharding::Kind::kUnknown:
      out += "unknown";
      break;
    case Sharding::Kind::kUnreduced:
      out += "unreduced";
      break;
    case Sharding::Kind::kMaximal:
      out += "maximal device=" + std::to_string(s.device);
      break;
    case Sharding::Kind::kTiled:
      if (s.iota) {
        out += "devices=" + s.iota->to_string();
      } else {
        out += "devices=[";
        append_list(out, s.tile_dims);
        out += ']';
        append_list(out, s.devices);
      }
      if (s.last_tile_dim_replicate) out += " last_tile_dim_replicate";
      if (!s.last_tile_dims.empty()) {
        out += " last_tile_dims={";
        for (size_t i = 0; i < s.last_tile_dims.size(); ++i) {
          if (i) out += ", ";
          out += s.last_tile_dims[i];
        }
        out += '}';
      }
      break;
    case Sharding::Kind::kTuple:
      break;
  }
  if (!s.shard_group.empty()) out += ' ' + s.shard_group;
  if (!s.metadata.empty()) out += " metadata=" + s.metadata;
}

}  // namespace

std::vector<int64_t> Sharding::device_list() const { return iota ? iota->materialize() : devices; }

std::string Sharding::to_string() const {
  std::string out = "{";
  if (kind == Kind::kTuple) {
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i) out += ", ";
      out += elements[i].to_string();
    }
  } else {
    append_body(out, *this);
  }
  out += '}';
  return out;
}

}  // namespace scalify::ir
