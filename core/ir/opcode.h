// HLO opcodes (every opcode XLA's text format knows), their names and families.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace scalify::ir {

// X(enumerator, text name, family). Families drive shape checking and summaries.
// clang-format off
#define SCALIFY_OPCODES(X)                                            \
  X(kAbs, "abs", kUnary)                                              \
  X(kAdd, "add", kBinary)                                             \
  X(kAddDependency, "add-dependency", kOther)                         \
  X(kAfterAll, "after-all", kOther)                                   \
  X(kAllGather, "all-gather", kCollective)                            \
  X(kAllGatherDone, "all-gather-done", kCollective)                   \
  X(kAllGatherStart, "all-gather-start", kCollective)                 \
  X(kAllReduce, "all-reduce", kCollective)                            \
  X(kAllReduceDone, "all-reduce-done", kCollective)                   \
  X(kAllReduceStart, "all-reduce-start", kCollective)                 \
  X(kAllToAll, "all-to-all", kCollective)                             \
  X(kAnd, "and", kBinary)                                             \
  X(kAsyncDone, "async-done", kOther)                                 \
  X(kAsyncStart, "async-start", kOther)                               \
  X(kAsyncUpdate, "async-update", kOther)                             \
  X(kAtan2, "atan2", kBinary)                                         \
  X(kBatchNormGrad, "batch-norm-grad", kOther)                        \
  X(kBatchNormInference, "batch-norm-inference", kOther)              \
  X(kBatchNormTraining, "batch-norm-training", kOther)                \
  X(kBitcast, "bitcast", kOther)                                      \
  X(kBitcastConvert, "bitcast-convert", kOther)                       \
  X(kBroadcast, "broadcast", kOther)                                  \
  X(kCall, "call", kOther)                                            \
  X(kCbrt, "cbrt", kUnary)                                            \
  X(kCeil, "ceil", kUnary)                                            \
  X(kCholesky, "cholesky", kOther)                                    \
  X(kClamp, "clamp", kOther)                                          \
  X(kClz, "count-leading-zeros", kUnary)                              \
  X(kCollectiveBroadcast, "collective-broadcast", kCollective)        \
  X(kCollectivePermute, "collective-permute", kCollective)            \
  X(kCollectivePermuteDone, "collective-permute-done", kCollective)   \
  X(kCollectivePermuteStart, "collective-permute-start", kCollective) \
  X(kCompare, "compare", kOther)                                      \
  X(kComplex, "complex", kOther)                                      \
  X(kConcatenate, "concatenate", kOther)                              \
  X(kConditional, "conditional", kOther)                              \
  X(kConstant, "constant", kOther)                                    \
  X(kConvert, "convert", kOther)                                      \
  X(kConvolution, "convolution", kOther)                              \
  X(kCopy, "copy", kUnary)                                            \
  X(kCopyDone, "copy-done", kOther)                                   \
  X(kCopyStart, "copy-start", kOther)                                 \
  X(kCos, "cosine", kUnary)                                           \
  X(kCustomCall, "custom-call", kOther)                               \
  X(kDivide, "divide", kBinary)                                       \
  X(kDomain, "domain", kOther)                                        \
  X(kDot, "dot", kOther)                                              \
  X(kDynamicReshape, "dynamic-reshape", kOther)                       \
  X(kDynamicSlice, "dynamic-slice", kOther)                           \
  X(kDynamicUpdateSlice, "dynamic-update-slice", kOther)              \
  X(kErf, "erf", kUnary)                                              \
  X(kExp, "exponential", kUnary)                                      \
  X(kExpm1, "exponential-minus-one", kUnary)                          \
  X(kFft, "fft", kOther)                                              \
  X(kFloor, "floor", kUnary)                                          \
  X(kFusion, "fusion", kOther)                                        \
  X(kGather, "gather", kOther)                                        \
  X(kGetDimensionSize, "get-dimension-size", kOther)                  \
  X(kGetTupleElement, "get-tuple-element", kOther)                    \
  X(kImag, "imag", kOther)                                            \
  X(kInfeed, "infeed", kOther)                                        \
  X(kIota, "iota", kOther)                                            \
  X(kIsFinite, "is-finite", kOther)                                   \
  X(kLog, "log", kUnary)                                              \
  X(kLog1p, "log-plus-one", kUnary)                                   \
  X(kLogistic, "logistic", kUnary)                                    \
  X(kMap, "map", kOther)                                              \
  X(kMaximum, "maximum", kBinary)                                     \
  X(kMinimum, "minimum", kBinary)                                     \
  X(kMultiply, "multiply", kBinary)                                   \
  X(kNegate, "negate", kUnary)                                        \
  X(kNot, "not", kUnary)                                              \
  X(kOptimizationBarrier, "opt-barrier", kOther)                      \
  X(kOr, "or", kBinary)                                               \
  X(kOutfeed, "outfeed", kOther)                                      \
  X(kPad, "pad", kOther)                                              \
  X(kParameter, "parameter", kOther)                                  \
  X(kPartitionId, "partition-id", kOther)                             \
  X(kPopulationCount, "popcnt", kUnary)                               \
  X(kPower, "power", kBinary)                                         \
  X(kRaggedAllToAll, "ragged-all-to-all", kCollective)                \
  X(kRaggedDot, "ragged-dot", kOther)                                 \
  X(kReal, "real", kOther)                                            \
  X(kRecv, "recv", kOther)                                            \
  X(kRecvDone, "recv-done", kOther)                                   \
  X(kReduce, "reduce", kOther)                                        \
  X(kReducePrecision, "reduce-precision", kUnary)                     \
  X(kReduceScatter, "reduce-scatter", kCollective)                    \
  X(kReduceWindow, "reduce-window", kOther)                           \
  X(kRemainder, "remainder", kBinary)                                 \
  X(kReplicaId, "replica-id", kOther)                                 \
  X(kReshape, "reshape", kOther)                                      \
  X(kReverse, "reverse", kOther)                                      \
  X(kRng, "rng", kOther)                                              \
  X(kRngBitGenerator, "rng-bit-generator", kOther)                    \
  X(kRngGetAndUpdateState, "rng-get-and-update-state", kOther)        \
  X(kRoundNearestAfz, "round-nearest-afz", kUnary)                    \
  X(kRoundNearestEven, "round-nearest-even", kUnary)                  \
  X(kRsqrt, "rsqrt", kUnary)                                          \
  X(kScatter, "scatter", kOther)                                      \
  X(kSelect, "select", kOther)                                        \
  X(kSelectAndScatter, "select-and-scatter", kOther)                  \
  X(kSend, "send", kOther)                                            \
  X(kSendDone, "send-done", kOther)                                   \
  X(kSetDimensionSize, "set-dimension-size", kOther)                  \
  X(kShiftLeft, "shift-left", kBinary)                                \
  X(kShiftRightArithmetic, "shift-right-arithmetic", kBinary)         \
  X(kShiftRightLogical, "shift-right-logical", kBinary)               \
  X(kSign, "sign", kUnary)                                            \
  X(kSin, "sine", kUnary)                                             \
  X(kSlice, "slice", kOther)                                          \
  X(kSort, "sort", kOther)                                            \
  X(kSqrt, "sqrt", kUnary)                                            \
  X(kStochasticConvert, "stochastic-convert", kOther)                 \
  X(kSubtract, "subtract", kBinary)                                   \
  X(kTan, "tan", kUnary)                                              \
  X(kTanh, "tanh", kUnary)                                            \
  X(kTopK, "topk", kOther)                                            \
  X(kTranspose, "transpose", kOther)                                  \
  X(kTriangularSolve, "triangular-solve", kOther)                     \
  X(kTuple, "tuple", kOther)                                          \
  X(kWhile, "while", kOther)                                          \
  X(kXor, "xor", kBinary)
// clang-format on

enum class Opcode : uint8_t {
#define SCALIFY_OPCODE_ENUM(e, s, f) e,
  SCALIFY_OPCODES(SCALIFY_OPCODE_ENUM)
#undef SCALIFY_OPCODE_ENUM
};

/// How an opcode's result type relates to its operands, coarsely.
enum class OpcodeFamily : uint8_t {
  kUnary,       ///< elementwise, one operand, result has the operand's dims
  kBinary,      ///< elementwise, two operands of equal dims
  kCollective,  ///< communicates between ranks
  kOther,
};

/// "dynamic-slice" for Opcode::kDynamicSlice.
std::string_view opcode_name(Opcode op);
/// parse_opcode("all-reduce") == Opcode::kAllReduce; nullopt for an unknown name.
std::optional<Opcode> parse_opcode(std::string_view name);
OpcodeFamily opcode_family(Opcode op);
inline bool is_collective(Opcode op) { return opcode_family(op) == OpcodeFamily::kCollective; }
inline bool is_elementwise(Opcode op) {
  OpcodeFamily f = opcode_family(op);
  return f == OpcodeFamily::kUnary || f == OpcodeFamily::kBinary;
}

}  // namespace scalify::ir
