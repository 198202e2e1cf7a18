// Cutting a program whose metadata names no layers (a torch-xla dump's `op_name` is the aten op
// alone) by its repeated structure: the instructions of a stack of identical layers, in
// topological order, repeat with the layer's length as period.
#pragma once

#include <vector>

#include "ir/module.h"
#include "verify/partition.h"

namespace scalify::verify {

/// The parts of `m`'s ENTRY by repeated structure: the longest run of instructions (in
/// topological order, parameters left out) that repeats a block of at least 8 instructions at
/// least twice, each repetition a part (keys 0, 1, …, labels "block K"), cut where the fewest
/// values cross from one repetition to the next; what comes before is the prologue, what comes
/// after the epilogue. Two instructions look alike when their opcode, type, operand count and
/// operands (a parameter by its type, any other by how far back it is) do. Empty when nothing
/// repeats. Every part has `by_structure` set: such a cut is a guess that two programs then
/// share only if they repeat alike. A program of fewer than 256 instructions is left whole.
///
///   // 3 identical layers between an embedding and a head
///   auto parts = partition_by_repetition(m);   // prologue, block 0, block 1, block 2, epilogue
std::vector<Part> partition_by_repetition(const ir::Module& m);

}  // namespace scalify::verify
