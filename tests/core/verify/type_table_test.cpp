// The type table's oracle: a node's type from its operator, attributes and operands' types, and
// for a number operand whether it is an integer (x * 0.5 is no s32 value; x * 2 is).
#include "verify/type_table.h"

#include <catch2/catch.hpp>

using namespace scalify;

TEST_CASE("the type oracle tells integer numbers from fractions in either order",
          "[verify][types]") {
  // The oracle remembers its answers: what it remembers them by must include the number's
  // integrality, or the first answer would stand for both.
  for (const bool fraction_first : {true, false}) {
    egraph::EGraph g;
    egraph::Vocabulary vocab;
    verify::TypeTable types;
    const egraph::TypeId s32 = types.intern(ir::Type::array(ir::DType::kS32, {4}));
    const egraph::ClassId x = g.add({vocab.symbol("x"), 0, {}}, s32);
    auto number = [&](double v) {
      return g.add({vocab.constant_symbol(), vocab.constant_payload(v), {}},
                   verify::TypeTable::kNumber);
    };
    const egraph::ClassId two = number(2), half = number(0.5);
    g.rebuild();
    const egraph::Symbol multiply = vocab.symbol("multiply");
    auto by_half = [&] { return types.type_of({multiply, 0, {x, half}}, g, vocab); };
    auto by_two = [&] { return types.type_of({multiply, 0, {x, two}}, g, vocab); };
    if (fraction_first) CHECK(by_half() == verify::TypeTable::kUntyped);
    CHECK(by_two() == s32);
    CHECK(by_half() == verify::TypeTable::kUntyped);
    CHECK(by_two() == s32);
  }
}
