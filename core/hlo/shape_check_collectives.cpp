// Result types of collectives and of the -done halves of asynchronous pairs.
//
// all-gather and reduce-scatter multiply or divide one dimension by the number of ranks in a
// group, all-to-all needs it to divide the split dimension. That number follows XLA's group modes
// (cross-replica, cross-partition, cross-replica-and-partition, flattened ids): from the listed
// `replica_groups`, or from `replica_count=` / `num_partitions=` when the header states them.
// When it cannot be known from the text, as XLA's verifier does when the counts are unset, the
// factor is read off the declared result and only divisibility and the other dimensions are
// checked.
#include <algorithm>
#include <variant>

#include "hlo/shape_check_internal.h"

namespace scalify::hlo::shape_check {
namespace {

using ir::Opcode;

/// `replica_count=` / `num_partitions=` when the module header states it; nullopt otherwise (XLA
/// would assume 1, but a test or a runtime may supply the real count outside the text).
std::optional<int64_t> header_count(const Op& op, std::string_view key) {
  const ir::Attribute* a = op.module.attr(key);
  const int64_t* v = a ? std::get_if<int64_t>(&a->value) : nullptr;
  if (!v || *v <= 0) return std::nullopt;
  return *v;
}

/// The number of ranks in each group, as XLA's verifier derives it from the group mode: nullopt
/// when it depends on a count the header does not state, or is 1 (XLA then skips the check).
/// A message if the groups differ in size, which XLA forbids for every collective but all-reduce.
std::variant<std::optional<int64_t>, std::string> group_size(const Op& op) {
  const ir::ReplicaGroups* rg = op.instr.replica_groups();
  std::optional<int64_t> listed;  // the size of the listed groups, if any
  if (rg && !rg->groups.empty()) {
    listed = static_cast<int64_t>(rg->groups[0].size());
    for (const auto& g : rg->groups) {
      if (static_cast<int64_t>(g.size()) != *listed) {
        return say(op, "replica_groups must all have the same size, but has groups of " +
                           std::to_string(*listed) + " and " + std::to_string(g.size()));
      }
    }
  }
  const bool channel = op.instr.attr("channel_id") != nullptr;
  const bool* global_ids = op.instr.get<bool>("use_global_device_ids");
  const bool global = global_ids && *global_ids;
  // all-to-all has no use_global_device_ids field: with a channel, its groups list partitions.
  const bool has_global_field = op.instr.opcode != Opcode::kAllToAll;
  std::optional<int64_t> size;
  if (!channel) {  // cross-replica: groups of replica ids
    size = listed ? listed : header_count(op, "replica_count");
  } else if (!has_global_field) {  // cross-partition: groups of partition ids
    size = listed ? listed : header_count(op, "num_partitions");
  } else if (global) {  // flattened ids: the groups list every participant
    size = listed;
  } else {  // cross-replica-and-partition: every partition of the listed replicas takes part
    std::optional<int64_t> replicas = listed ? listed : header_count(op, "replica_count");
    std::optional<int64_t> partitions = header_count(op, "num_partitions");
    if (replicas && partitions) size = checked_mul(*replicas, *partitions);
  }
  if (size && *size <= 1) size.reset();
  return size;
}

/// The operands' types as one value: the array itself for one operand, else a tuple.
ir::Type value_of(const std::vector<ir::Type>& types) {
  return types.size() == 1 ? types.front() : ir::Type::tuple(types);
}

std::vector<ir::Type> operand_types(const Op& op) {
  std::vector<ir::Type> out;
  for (size_t i = 0; i < op.arity(); ++i) out.push_back(op.operand(i));
  return out;
}

/// Whether every listed replica group has one member: the collective then moves nothing.
bool singleton_groups(const Op& op) {
  const ir::ReplicaGroups* rg = op.instr.replica_groups();
  return rg && !rg->groups.empty() &&
         std::all_of(rg->groups.begin(), rg->groups.end(),
                     [](const auto& g) { return g.size() == 1; });
}

/// The single `dimensions={d}` of all-gather / reduce-scatter / all-to-all, checked against every
/// operand's rank. torch-xla threads a scalar (its ordering token) through its tuple
/// collectives, after the arrays, and it comes back as it went in (Neuron's pipeline-parallel
/// dumps: `(f32[2,3], f32[]) all-gather(f32[1,3] %x, f32[] %token), replica_groups={{0,1}}`);
/// over groups of one, any scalar does.
std::variant<int64_t, std::string> collective_dim(const Op& op) {
  const ir::DimList& d = op.instr.dims_attr("dimensions");
  if (d.size() != 1) return say(op, "dimensions=" + show(d) + " must name exactly one dimension");
  const bool gathers = op.instr.opcode != Opcode::kAllToAll;
  const bool one_member = singleton_groups(op);
  for (size_t i = 0; i < op.arity(); ++i) {
    const bool token = i > 0 && op.operand(0).rank() > 0;
    if (gathers && op.operand(i).rank() == 0 && (one_member || token)) continue;
    if (d[0] < 0 || d[0] >= op.operand(i).rank()) {
      return say(op, "dimensions={" + std::to_string(d[0]) + "} is outside operand " +
                         std::to_string(i) + " " + show(op.operand(i)));
    }
  }
  return d[0];
}

/// The declared array that corresponds to operand 0 (`path` navigates tuples), or nullptr.
const ir::Type* declared_part(const ir::Type& t, std::initializer_list<size_t> path) {
  const ir::Type* cur = &t;
  for (size_t i : path) {
    if (!cur->is_tuple() || i >= cur->elements().size()) return nullptr;
    cur = &cur->elements()[i];
  }
  return cur->is_array() ? cur : nullptr;
}

/// Shared by all-gather and reduce-scatter: operands with dimension `dim` scaled by `shards`.
/// `gather` multiplies, otherwise divides (a message if it does not divide).
std::variant<std::vector<ir::Type>, std::string> scaled(const Op& op, int64_t dim, int64_t shards,
                                                        bool gather) {
  std::vector<ir::Type> out;
  for (size_t i = 0; i < op.arity(); ++i) {
    ir::Type t = op.operand(i);
    if (t.rank() == 0) {  // a token, or a scalar over groups of one (collective_dim)
      out.push_back(std::move(t));
      continue;
    }
    std::vector<int64_t> dims = t.dims();
    int64_t& d = dims[static_cast<size_t>(dim)];
    if (gather) {
      std::optional<int64_t> m = checked_mul(d, shards);
      if (!m) return say(op, "the gathered size overflows");
      d = *m;
    } else {
      if (d % shards != 0) {
        return say(op, "dimension " + std::to_string(dim) + " of operand " + std::to_string(i) +
                           " " + show(t) + " is not divisible by the group size " +
                           std::to_string(shards));
      }
      d /= shards;
    }
    t.set_dims(std::move(dims));
    out.push_back(std::move(t));
  }
  return out;
}

Msg expect_scaled(const Op& op, const ir::Type& expected, std::optional<int64_t> group) {
  Msg m = expect_result(op, expected);
  if (m && group) {
    *m += " (dimension " + std::to_string(op.instr.dims_attr("dimensions")[0]) +
          " over groups of " + std::to_string(*group) + ")";
  }
  return m;
}

/// The dimension an all-gather or reduce-scatter works along, and its group size when known.
struct GatherGeometry {
  int64_t dim;
  std::optional<int64_t> group;
};

std::variant<GatherGeometry, std::string> gather_geometry(const Op& op) {
  if (Msg m = expect_min_arity(op, 1)) return *m;
  if (Msg m = expect_array_operands(op)) return *m;
  auto d = collective_dim(op);
  if (auto* msg = std::get_if<std::string>(&d)) return *msg;
  auto g = group_size(op);
  if (auto* msg = std::get_if<std::string>(&g)) return *msg;
  return GatherGeometry{std::get<int64_t>(d), std::get<std::optional<int64_t>>(g)};
}

}  // namespace

Msg check_all_reduce(const Op& op) {
  if (Msg m = expect_min_arity(op, 1)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  return expect_result(op, value_of(operand_types(op)));
}

Msg check_all_gather(const Op& op) {
  auto geometry = gather_geometry(op);
  if (auto* msg = std::get_if<std::string>(&geometry)) return *msg;
  const auto [dim, group] = std::get<GatherGeometry>(geometry);

  const bool start = op.instr.opcode == Opcode::kAllGatherStart;
  const bool many = op.arity() > 1;
  const ir::Type* out0 =
      start ? (many ? declared_part(op.result(), {1, 0}) : declared_part(op.result(), {1}))
            : (many ? declared_part(op.result(), {0}) : declared_part(op.result(), {}));
  std::optional<int64_t> shards = group;
  if (!shards && singleton_groups(op)) shards = 1;
  const int64_t in = shards ? 1 : op.operand(0).dim(dim);  // (read only when shards is not)
  if (!shards && in == 0) shards = 1;  // any factor leaves a 0-sized dimension at 0
  if (!shards && out0 && out0->rank() == op.operand(0).rank()) {
    const int64_t out = out0->dim(dim);
    if (out % in != 0 || out / in < 1) {
      return say(op, "result dimension " + std::to_string(dim) + " (size " + std::to_string(out) +
                         ") must be a positive multiple of the operand's (size " +
                         std::to_string(in) + ")");
    }
    shards = out / in;
  }
  if (!shards) {
    return say(op, "result " + show(op.result()) + " is not " +
                       (start ? "a tuple (operands, gathered operands)" : "the gathered operands"));
  }
  auto parts = scaled(op, dim, *shards, /*gather=*/true);
  if (auto* msg = std::get_if<std::string>(&parts)) return *msg;
  ir::Type gathered = value_of(std::get<std::vector<ir::Type>>(parts));
  if (!start) return expect_scaled(op, gathered, group);
  return expect_scaled(op, ir::Type::tuple({value_of(operand_types(op)), gathered}), group);
}

Msg check_reduce_scatter(const Op& op) {
  auto geometry = gather_geometry(op);
  if (auto* msg = std::get_if<std::string>(&geometry)) return *msg;
  const auto [dim, group] = std::get<GatherGeometry>(geometry);

  const ir::Type* out0 =
      op.arity() > 1 ? declared_part(op.result(), {0}) : declared_part(op.result(), {});
  std::optional<int64_t> shards = group;
  if (!shards && singleton_groups(op)) shards = 1;
  const int64_t in = shards ? 1 : op.operand(0).dim(dim);  // (read only when shards is not)
  if (!shards && out0 && out0->rank() == op.operand(0).rank()) {
    const int64_t out = out0->dim(dim);
    if (out <= 0 || in % out != 0) {
      return say(op, "result dimension " + std::to_string(dim) + " (size " + std::to_string(out) +
                         ") must divide the operand's (size " + std::to_string(in) + ")");
    }
    shards = in / out;
  }
  if (!shards || *shards <= 0) {
    return say(op, "result " + show(op.result()) + " is not the scattered operands");
  }
  auto parts = scaled(op, dim, *shards, /*gather=*/false);
  if (auto* msg = std::get_if<std::string>(&parts)) return *msg;
  return expect_scaled(op, value_of(std::get<std::vector<ir::Type>>(parts)), group);
}

Msg check_all_to_all(const Op& op) {
  if (Msg m = expect_min_arity(op, 1)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  if (op.instr.attr("dimensions")) {
    // Array form: split and concatenate along one dimension, so the shape is unchanged.
    if (Msg m = expect_arity(op, 1)) return m;
    auto d = collective_dim(op);
    if (auto* msg = std::get_if<std::string>(&d)) return *msg;
    const int64_t dim = std::get<int64_t>(d);
    auto g = group_size(op);
    if (auto* msg = std::get_if<std::string>(&g)) return *msg;
    const std::optional<int64_t> group = std::get<std::optional<int64_t>>(g);
    if (group && op.operand(0).dim(dim) % *group != 0) {
      return say(op, "dimension " + std::to_string(dim) + " of " + show(op.operand(0)) +
                         " is not divisible by the group size " + std::to_string(*group));
    }
    return expect_result(op, op.operand(0));
  }
  // Tuple form: N operands of one shape, exchanged whole.
  for (size_t i = 1; i < op.arity(); ++i) {
    if (!same_type(op.operand(i), op.operand(0))) {
      return say(op, "operand " + std::to_string(i) + " " + show(op.operand(i)) +
                         " differs from operand 0 " + show(op.operand(0)));
    }
  }
  if (op.arity() == 1 && same_type(op.result(), op.operand(0))) return std::nullopt;
  return expect_result(op, ir::Type::tuple(operand_types(op)));
}

Msg check_collective_permute(const Op& op) {
  const bool start = op.instr.opcode == Opcode::kCollectivePermuteStart;
  if (Msg m = expect_min_arity(op, 1)) return m;
  if (op.arity() == 1) {
    if (Msg m = expect_array_operand(op, 0)) return m;
    if (!start) return expect_result(op, op.operand(0));
  } else {
    // In-place form: (input, output, input offsets, output offsets), offsets being tuples.
    // Any other operand list is the combined form (one result per operand), or newer.
    const bool in_place = op.arity() == 4 && op.operand(2).is_tuple();
    if (!in_place) {
      if (start) return std::nullopt;
      for (size_t i = 0; i < op.arity(); ++i) {
        if (!op.operand(i).is_array()) return std::nullopt;
      }
      return expect_result(op, value_of(operand_types(op)));
    }
  }
  // The in-place form yields the output buffer.
  const ir::Type& sent = op.operand(0);
  const ir::Type& received = op.operand(op.arity() == 4 ? 1 : 0);
  if (!start) return expect_result(op, received);
  // -start: (sent, received, context…); the context values are the backend's.
  const ir::Type& r = op.result();
  if (r.is_tuple() && r.elements().size() >= 2 && same_type(r.elements()[0], sent) &&
      same_type(r.elements()[1], received)) {
    return std::nullopt;
  }
  return std::string(op.name()) + " result should be a tuple starting with " + show(sent) + ", " +
         show(received) + " but is declared " + show(r);
}

Msg check_done(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  const ir::Type& start = op.operand(0);
  if (op.instr.opcode == Opcode::kAllReduceDone) return expect_result(op, start);
  const size_t index = op.instr.opcode == Opcode::kCopyDone ? 0 : 1;
  if (!start.is_tuple() || start.elements().size() <= index) {
    return say(op,
               "operand must be the tuple made by the matching -start op but is " + show(start));
  }
  return expect_result(op, start.elements()[index]);
}

}  // namespace scalify::hlo::shape_check
