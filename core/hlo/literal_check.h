// Checks a constant's literal text against its declared type.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ir/type.h"

namespace scalify::hlo {

struct LiteralError {
  size_t offset;  ///< within the literal text
  std::string message;
};

/// nullopt when `literal` (the text between `constant(` and `)`) is a well-formed value of
/// `type`: nesting depth equal to the rank, element counts equal to the dimensions, numbers of
/// the element type. `{...}` (a literal elided by XLA's printer) and a single scalar for a whole
/// array (a splat, as XLA's reader allows) are accepted.
///
///   check_literal("{1, 2, 3}", Type::array(DType::kF32, {3})) == nullopt
///   check_literal("{1, 2}", Type::array(DType::kF32, {3}))->message ==
///       "dimension 0 has 2 elements, the type says 3"
std::optional<LiteralError> check_literal(std::string_view literal, const ir::Type& type);

}  // namespace scalify::hlo
