#include "ir/attributes.h"

#include <algorithm>
#include <array>

namespace scalify::ir {
namespace {

struct KeyKind {
  std::string_view key;
  AttrKind kind;
};

// Every attribute key whose value this reader interprets; any other key is kept as Raw.
constexpr std::array kKnownKeys = {
    KeyKind{"algorithm", AttrKind::kWord},
    KeyKind{"api_version", AttrKind::kWord},
    KeyKind{"async_execution_thread", AttrKind::kString},
    KeyKind{"backend_config", AttrKind::kStringOrRaw},
    KeyKind{"batch_group_count", AttrKind::kInt},
    KeyKind{"body", AttrKind::kComputations},
    KeyKind{"branch_computations", AttrKind::kComputations},
    KeyKind{"called_computations", AttrKind::kComputations},
    KeyKind{"calls", AttrKind::kComputations},
    KeyKind{"channel_id", AttrKind::kInt},
    KeyKind{"collapsed_slice_dims", AttrKind::kDimList},
    KeyKind{"comparison_direction", AttrKind::kWord},
    KeyKind{"condition", AttrKind::kComputations},
    KeyKind{"constrain_layout", AttrKind::kBool},
    KeyKind{"custom_call_has_side_effect", AttrKind::kBool},
    KeyKind{"custom_call_schedule", AttrKind::kWord},
    KeyKind{"custom_call_target", AttrKind::kString},
    KeyKind{"dim_labels", AttrKind::kConvDimLabels},
    KeyKind{"dimensions", AttrKind::kDimList},
    KeyKind{"direction", AttrKind::kWord},
    KeyKind{"distribution", AttrKind::kWord},
    KeyKind{"dynamic_slice_sizes", AttrKind::kDimList},
    KeyKind{"epsilon", AttrKind::kWord},
    KeyKind{"execution_thread", AttrKind::kString},
    KeyKind{"exponent_bits", AttrKind::kInt},
    KeyKind{"false_computation", AttrKind::kComputations},
    KeyKind{"feature_group_count", AttrKind::kInt},
    KeyKind{"feature_index", AttrKind::kInt},
    KeyKind{"fft_length", AttrKind::kDimList},
    KeyKind{"fft_type", AttrKind::kWord},
    KeyKind{"frontend_attributes", AttrKind::kFrontendAttributes},
    KeyKind{"index", AttrKind::kInt},
    KeyKind{"index_vector_dim", AttrKind::kInt},
    KeyKind{"indices_are_sorted", AttrKind::kBool},
    KeyKind{"input_batching_dims", AttrKind::kDimList},
    KeyKind{"inserted_window_dims", AttrKind::kDimList},
    KeyKind{"iota_dimension", AttrKind::kInt},
    KeyKind{"is_host_transfer", AttrKind::kBool},
    KeyKind{"is_stable", AttrKind::kBool},
    KeyKind{"kind", AttrKind::kWord},
    KeyKind{"largest", AttrKind::kBool},
    KeyKind{"left_side", AttrKind::kBool},
    KeyKind{"lhs_batch_dims", AttrKind::kDimList},
    KeyKind{"lhs_contracting_dims", AttrKind::kDimList},
    KeyKind{"lhs_ragged_dims", AttrKind::kDimList},
    KeyKind{"lower", AttrKind::kBool},
    KeyKind{"mantissa_bits", AttrKind::kInt},
    KeyKind{"num_partitions", AttrKind::kInt},
    KeyKind{"offset_dims", AttrKind::kDimList},
    KeyKind{"operand_batching_dims", AttrKind::kDimList},
    KeyKind{"padding", AttrKind::kPadding},
    KeyKind{"replica_count", AttrKind::kInt},
    KeyKind{"replica_groups", AttrKind::kReplicaGroups},
    KeyKind{"rhs_batch_dims", AttrKind::kDimList},
    KeyKind{"rhs_contracting_dims", AttrKind::kDimList},
    KeyKind{"rhs_group_dims", AttrKind::kDimList},
    KeyKind{"scatter", AttrKind::kComputations},
    KeyKind{"scatter_dims_to_operand_dims", AttrKind::kDimList},
    KeyKind{"scatter_indices_batching_dims", AttrKind::kDimList},
    KeyKind{"select", AttrKind::kComputations},
    KeyKind{"sharding", AttrKind::kSharding},
    KeyKind{"slice", AttrKind::kSlice},
    KeyKind{"slice_sizes", AttrKind::kDimList},
    KeyKind{"source_target_pairs", AttrKind::kSourceTargetPairs},
    KeyKind{"start_index_map", AttrKind::kDimList},
    KeyKind{"start_indices_batching_dims", AttrKind::kDimList},
    KeyKind{"to_apply", AttrKind::kComputations},
    KeyKind{"transpose_a", AttrKind::kWord},
    KeyKind{"true_computation", AttrKind::kComputations},
    KeyKind{"type", AttrKind::kWord},
    KeyKind{"unique_indices", AttrKind::kBool},
    KeyKind{"unit_diagonal", AttrKind::kBool},
    KeyKind{"update_window_dims", AttrKind::kDimList},
    KeyKind{"use_global_device_ids", AttrKind::kBool},
    KeyKind{"window", AttrKind::kWindow},
};

constexpr bool keys_sorted() {
  for (size_t i = 1; i < kKnownKeys.size(); ++i) {
    if (!(kKnownKeys[i - 1].key < kKnownKeys[i].key)) return false;
  }
  return true;
}
static_assert(keys_sorted(), "kKnownKeys must stay sorted for the binary search");

void append_ints(std::string& out, const std::vector<int64_t>& v, char sep = ',') {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += std::to_string(v[i]);
  }
}

void append_window(std::string& out, const Window& w) {
  out += '{';
  bool first = true;
  auto field = [&](std::string_view name, auto get, bool (*is_default)(const WindowDim&)) {
    if (std::all_of(w.dims.begin(), w.dims.end(), is_default) && name != "size") return;
    if (!first) out += ' ';
    first = false;
    out += name;
    out += '=';
    for (size_t i = 0; i < w.dims.size(); ++i) {
      if (i) out += 'x';
      out += get(w.dims[i]);
    }
  };
  if (!w.dims.empty()) {
    field(
        "size", [](const WindowDim& d) { return std::to_string(d.size); },
        [](const WindowDim&) { return false; });
    field(
        "stride", [](const WindowDim& d) { return std::to_string(d.stride); },
        [](const WindowDim& d) { return d.stride == 1; });
    field(
        "pad",
        [](const WindowDim& d) {
          return std::to_string(d.pad_low) + '_' + std::to_string(d.pad_high);
        },
        [](const WindowDim& d) { return d.pad_low == 0 && d.pad_high == 0; });
    field(
        "lhs_dilate", [](const WindowDim& d) { return std::to_string(d.lhs_dilate); },
        [](const WindowDim& d) { return d.lhs_dilate == 1; });
    field(
        "rhs_dilate", [](const WindowDim& d) { return std::to_string(d.rhs_dilate); },
        [](const WindowDim& d) { return d.rhs_dilate == 1; });
    field(
        "rhs_reversal", [](const WindowDim& d) { return std::string(d.reversal ? "1" : "0"); },
        [](const WindowDim& d) { return !d.reversal; });
  }
  out += '}';
}

struct ValuePrinter {
  std::string& out;
  void operator()(int64_t v) { out += std::to_string(v); }
  void operator()(bool v) { out += v ? "true" : "false"; }
  void operator()(const std::string& v) { out += quote(v); }
  void operator()(const Word& v) { out += v.text; }
  void operator()(const Raw& v) { out += v.text; }
  void operator()(const DimList& v) {
    out += '{';
    append_ints(out, v);
    out += '}';
  }
  void operator()(const std::vector<SliceRange>& v) {
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      out += '[' + std::to_string(v[i].start) + ':' + std::to_string(v[i].limit);
      if (v[i].stride != 1) out += ':' + std::to_string(v[i].stride);
      out += ']';
    }
    out += '}';
  }
  void operator()(const Window& v) { append_window(out, v); }
  void operator()(const ConvDimLabels& v) { out += v.input + '_' + v.kernel + "->" + v.output; }
  void operator()(const PaddingConfig& v) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += 'x';
      out += std::to_string(v[i].low) + '_' + std::to_string(v[i].high);
      if (v[i].interior != 0) out += '_' + std::to_string(v[i].interior);
    }
  }
  void operator()(const ReplicaGroups& v) {
    if (v.iota) {
      out += v.iota->to_string();
      return;
    }
    out += '{';
    for (size_t i = 0; i < v.groups.size(); ++i) {
      if (i) out += ',';
      out += '{';
      append_ints(out, v.groups[i]);
      out += '}';
    }
    out += '}';
  }
  void operator()(const SourceTargetPairs& v) {
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      out += '{' + std::to_string(v[i].first) + ',' + std::to_string(v[i].second) + '}';
    }
    out += '}';
  }
  void operator()(const Boxed<Sharding>& v) { out += v->to_string(); }
  void operator()(const FrontendAttributes& v) {
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      out += v[i].first + '=' + quote(v[i].second);
    }
    out += '}';
  }
  void operator()(const ComputationRefs& v) {
    const bool braced = v.names.size() != 1;
    if (braced) out += '{';
    for (size_t i = 0; i < v.names.size(); ++i) {
      if (i) out += ", ";
      out += '%' + v.names[i];
    }
    if (braced) out += '}';
  }
};

}  // namespace

AttrKind attr_kind_of(std::string_view key) {
  auto it = std::lower_bound(kKnownKeys.begin(), kKnownKeys.end(), key,
                             [](const KeyKind& k, std::string_view name) { return k.key < name; });
  if (it != kKnownKeys.end() && it->key == key) return it->kind;
  return AttrKind::kRaw;
}

std::string attr_value_to_string(const AttrValue& value) {
  std::string out;
  std::visit(ValuePrinter{out}, value);
  return out;
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace scalify::ir
