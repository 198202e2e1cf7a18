// The Op context of an instruction under evaluation, and small helpers every op family uses.
#include <algorithm>
#include <cmath>

#include "eval/internal.h"

namespace scalify::eval::detail {

Diagnostic Op::error(std::string message) const {
  return Diagnostic{run.options.file_name, inst.pos, "'" + inst.name + "': " + message, ""};
}

Diagnostic Op::unsupported(std::string_view why) const {
  std::string message = "evaluation of '" + inst.opcode_text() + "' is not supported";
  if (!why.empty()) message += ": " + std::string(why);
  return error(std::move(message));
}

std::optional<Diagnostic> Op::expect_arity(size_t n) const {
  if (arity() == n) return std::nullopt;
  return error(std::string(name()) + " takes " + std::to_string(n) + " operand" +
               (n == 1 ? "" : "s") + " but has " + std::to_string(arity()));
}

std::optional<Diagnostic> Op::expect_tensors() const {
  for (size_t i = 0; i < arity(); ++i) {
    if (operands[i].is_tuple()) {
      return error("operand " + std::to_string(i) + " must be an array but is a tuple");
    }
  }
  if (!inst.type.is_array()) {
    return error("the result must be an array but is declared " + inst.type.to_string(false));
  }
  return std::nullopt;
}

std::optional<Diagnostic> Op::expect_result_dims(std::span<const int64_t> dims) const {
  auto same = [&](const ir::Type& t) {
    return t.is_array() && std::equal(dims.begin(), dims.end(), t.dims().begin(), t.dims().end());
  };
  bool ok = same(inst.type);
  if (inst.type.is_tuple()) {
    ok = std::all_of(inst.type.elements().begin(), inst.type.elements().end(), same);
  }
  if (ok) return std::nullopt;
  return error("computes a result of dimensions " + show(dims) + " but is declared " +
               inst.type.to_string(false));
}

std::optional<Diagnostic> Op::charge(double amount) const {
  run.work += amount;
  if (run.work <= run.options.max_work) return std::nullopt;
  return error("the evaluation would exceed its limit of " +
               std::to_string(static_cast<int64_t>(run.options.max_work)) +
               " multiply-adds and window elements (dot, convolution, reduce-window)");
}

std::optional<int64_t> Op::int_attr(std::string_view key) const {
  const int64_t* v = inst.get<int64_t>(key);
  if (!v) return std::nullopt;
  return *v;
}

const ir::Computation* Op::callee(std::string_view key, size_t index) const {
  const auto* refs = inst.get<ir::ComputationRefs>(key);
  if (!refs || index >= refs->names.size()) return nullptr;
  const std::optional<ir::CompId> id = run.module.find_computation(refs->names[index]);
  if (!id) return nullptr;
  return &run.module.computations[static_cast<size_t>(*id)];
}

Result Op::call(const ir::Computation& c, std::span<const Value> args) const {
  return run_computation(run, c, args);
}

bool contains(std::span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string show(std::span<const int64_t> dims) {
  std::string out = "{";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + "}";
}

std::optional<Diagnostic> check_dims(const Op& op, std::string_view key,
                                     std::span<const int64_t> dims, int64_t rank) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank) {
      return op.error(std::string(key) + "=" + show(dims) + " names dimension " +
                      std::to_string(dims[i]) + " of a rank-" + std::to_string(rank) + " array");
    }
    if (std::find(dims.begin(), dims.begin() + static_cast<ptrdiff_t>(i), dims[i]) !=
        dims.begin() + static_cast<ptrdiff_t>(i)) {
      return op.error(std::string(key) + "=" + show(dims) + " repeats dimension " +
                      std::to_string(dims[i]));
    }
  }
  return std::nullopt;
}

int64_t to_index(double x) {
  if (std::isnan(x)) return 0;
  if (x >= 0x1p62) return int64_t{1} << 62;
  if (x <= -0x1p62) return -(int64_t{1} << 62);
  return static_cast<int64_t>(x);
}

}  // namespace scalify::eval::detail
