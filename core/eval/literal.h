// The values of HLO constants: the literal text of `constant(…)` read as a Value.
#pragma once

#include <string_view>

#include "eval/value.h"
#include "ir/type.h"
#include "support/expected.h"

namespace scalify::eval {

/// Reads `text` (Instruction::literal, what lies between `constant(` and `)`) as a value of
/// `type`: a scalar (`2.5`, `-inf`, `nan`, `true`, `0x1F`), braces nested once per dimension
/// (`{{1, 2}, {3, 4}}`), one scalar for a whole array (a splat: `f32[4] constant(0)`), or a tuple
/// `({1, 2}, 3)`. Comments such as `/*index=5*/` are skipped. The error (position unknown) says
/// what is wrong, e.g. for a literal that XLA's printer elided as `{...}`.
///
///   parse_literal("{{1, 2}, {3, 4}}", Type::array(DType::kF32, {2, 2}))->tensor().data
///       == std::vector<double>{1, 2, 3, 4};
///   parse_literal("true", Type::array(DType::kPred, {}))->tensor().data[0] == 1;
Expected<Value> parse_literal(std::string_view text, const ir::Type& type);

}  // namespace scalify::eval
