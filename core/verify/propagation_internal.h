// Shared by the propagation files: the collectives' semantics and the message helpers.
#pragma once

#include <string>
#include <variant>

#include "verify/propagation.h"

namespace scalify::verify::detail {

/// `opcode_text` in backquotes, for messages.
std::string quoted(const ir::Instruction& instr);
/// The collectives (all-reduce, all-gather, reduce-scatter, collective-permute, all-to-all and
/// their start/done forms): nullopt when `instr` is not one.
std::optional<std::variant<Lift, NoLift>> lift_collective(const ir::Module& module,
                                                          const ir::Instruction& instr,
                                                          std::span<const OperandView> operands,
                                                          const Mesh& mesh);

/// A dot whose operands both hold blocks along one mesh axis (evenly, every other axis
/// replicated), both of one contraction or both of free dims, is on each rank the dot of its
/// blocks alone: a dot batched over the blocks, whose result the ranks hold in shards once the
/// blocks are merged into a dim of the result (the next one for a contraction; either block's
/// dim for free dims: one lift each). Empty when `instr` is no such dot.
///
///   // %s = f32[128,128] dot(f32[128,8] %q, f32[8,128] %k), contracting 1 and 0,
///   //   %q shard(1,tp) of Q f32[128,16], %k shard(0,tp) of K f32[16,128], tp=2:
///   //   shard(0,tp) of reshape(dot(Q as [128,2,8], K as [2,8,128], batch 1 and 0), [256,128])
std::vector<Lift> lift_blockwise_dot(const ir::Instruction& instr, std::span<const OperandView> ops,
                                     const Mesh& mesh);

}  // namespace scalify::verify::detail
