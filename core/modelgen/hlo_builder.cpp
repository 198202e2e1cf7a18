#include "modelgen/hlo_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace scalify::modelgen {

namespace {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kF32:
      return "f32";
    case DType::kS32:
      return "s32";
    case DType::kU32:
      return "u32";
    case DType::kPred:
      return "pred";
  }
  return "f32";
}

std::string number_text(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + '}';
}

/// torch-xla's op_type for the operations a Llama forward pass emits.
std::string_view default_op_type(std::string_view opcode, std::string_view detail) {
  struct Entry {
    std::string_view opcode, op_type;
  };
  static constexpr Entry kTable[] = {
      {"dot", "aten__matmul"},
      {"add", "aten__add"},
      {"subtract", "aten__sub"},
      {"multiply", "aten__mul"},
      {"divide", "aten__div"},
      {"negate", "aten__neg"},
      {"exponential", "aten__exp"},
      {"rsqrt", "aten__rsqrt"},
      {"logistic", "aten__silu"},
      {"cosine", "aten__cos"},
      {"sine", "aten__sin"},
      {"maximum", "aten__max"},
      {"reshape", "aten__view"},
      {"transpose", "aten__permute"},
      {"broadcast", "aten__expand"},
      {"convert", "xla__cast"},
      {"slice", "aten__slice"},
      {"concatenate", "aten__cat"},
      {"select", "aten__masked_fill"},
      {"iota", "aten__arange"},
      {"constant", "prim__Constant"},
      {"dynamic-slice", "xla__dynamic_slice"},
      {"partition-id", "xla__partition_id"},
      {"all-reduce", "xla__cross_replica_sum"},
      {"all-gather", "xla__all_gather"},
      {"reduce-scatter", "xla__reduce_scatter"},
      {"all-to-all", "xla__all_to_all"},
  };
  if (opcode == "compare") {
    if (detail == "EQ") return "aten__eq";
    if (detail == "GE") return "aten__ge";
    return "aten__lt";
  }
  if (opcode == "reduce") return detail == "maximum" ? "aten__amax" : "aten__sum";
  for (const Entry& e : kTable) {
    if (e.opcode == opcode) return e.op_type;
  }
  return opcode;
}

}  // namespace

std::string type_text(DType dtype, const std::vector<int64_t>& dims) {
  std::string s(dtype_name(dtype));
  s += '[';
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  s += ']';
  if (!dims.empty()) {  // the default (row-major) layout, minor-to-major
    s += '{';
    for (size_t i = dims.size(); i-- > 0;) s += std::to_string(i) + (i ? "," : "");
    s += '}';
  }
  return s;
}

HloBuilder::HloBuilder(std::string module_name, int64_t num_partitions)
    : module_name_(std::move(module_name)), num_partitions_(num_partitions) {
  body_.reserve(1 << 16);
}

HloValue HloBuilder::emit(std::string_view opcode, DType dtype, std::vector<int64_t> dims,
                          const std::vector<HloValue>& operands, std::string_view attributes,
                          std::string_view detail, std::string_view literal) {
  HloValue v;
  v.name = std::string(opcode) + '.' + std::to_string(++next_id_);
  v.dtype = dtype;
  v.dims = std::move(dims);
  write(v, opcode, operands, attributes, literal);
  const std::string_view op_type =
      site_.op_type.empty() ? default_op_type(opcode, detail) : std::string_view(site_.op_type);
  write_metadata(op_type, site_.scope.empty() ? std::string(op_type)
                                              : site_.scope + '/' + std::string(op_type));
  return v;
}

void HloBuilder::write(const HloValue& v, std::string_view opcode,
                       const std::vector<HloValue>& operands, std::string_view attributes,
                       std::string_view literal) {
  ++count_;
  body_ += "  %";
  body_ += v.name;
  body_ += " = ";
  body_ += type_text(v.dtype, v.dims);
  body_ += ' ';
  body_ += opcode;
  body_ += '(';
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i) body_ += ", ";
    body_ += type_text(operands[i].dtype, operands[i].dims);
    body_ += " %";
    body_ += operands[i].name;
  }
  body_ += literal;
  body_ += ')';
  if (!attributes.empty()) {
    body_ += ", ";
    body_ += attributes;
  }
}

void HloBuilder::write_metadata(std::string_view op_type, std::string_view op_name) {
  body_ += ", metadata={op_type=\"";
  body_ += op_type;
  body_ += "\" op_name=\"";
  body_ += op_name;
  body_ += '"';
  if (site_.line > 0) {
    body_ += " source_file=\"model.py\" source_line=";
    body_ += std::to_string(site_.line);
  }
  body_ += "}\n";
}

HloValue HloBuilder::parameter(DType dtype, std::vector<int64_t> dims, std::string_view torch_name,
                               std::string_view sharding) {
  const int64_t number = parameters_++;
  HloValue v;
  v.name = "p" + std::to_string(number) + '.' + std::to_string(number + 1);
  v.dtype = dtype;
  v.dims = std::move(dims);
  if (!params_.empty()) params_ += ", ";
  params_ += v.name + ": " + type_text(v.dtype, v.dims);
  std::string attributes;
  if (!sharding.empty()) attributes = "sharding=" + std::string(sharding);
  write(v, "parameter", {}, attributes, std::to_string(number));
  write_metadata("xla__device_data", torch_name);
  return v;
}

HloValue HloBuilder::constant(DType dtype, double value) {
  const std::string literal = dtype == DType::kPred  ? (value != 0 ? "true" : "false")
                              : dtype == DType::kF32 ? number_text(value)
                                                     : std::to_string(static_cast<int64_t>(value));
  return emit("constant", dtype, {}, {}, {}, {}, literal);
}

HloValue HloBuilder::constant_vector(const std::vector<double>& values) {
  std::string literal = "{";
  for (size_t i = 0; i < values.size(); ++i) literal += (i ? ", " : "") + number_text(values[i]);
  literal += '}';
  return emit("constant", DType::kF32, {static_cast<int64_t>(values.size())}, {}, {}, {}, literal);
}

HloValue HloBuilder::iota(DType dtype, std::vector<int64_t> dims, int64_t iota_dim) {
  return emit("iota", dtype, std::move(dims), {}, "iota_dimension=" + std::to_string(iota_dim));
}

HloValue HloBuilder::partition_id() { return emit("partition-id", DType::kU32, {}, {}, {}); }

HloValue HloBuilder::broadcast(const HloValue& x, std::vector<int64_t> dims,
                               const std::vector<int64_t>& kept) {
  return emit("broadcast", x.dtype, std::move(dims), {x}, "dimensions=" + list_text(kept));
}

HloValue HloBuilder::splat(double value, const HloValue& like) {
  return broadcast(constant(like.dtype, value), like.dims, {});
}

HloValue HloBuilder::reshape(const HloValue& x, std::vector<int64_t> dims) {
  return emit("reshape", x.dtype, std::move(dims), {x}, {});
}

HloValue HloBuilder::transpose(const HloValue& x, const std::vector<int64_t>& permutation) {
  std::vector<int64_t> dims;
  for (int64_t p : permutation) dims.push_back(x.dims[static_cast<size_t>(p)]);
  return emit("transpose", x.dtype, std::move(dims), {x}, "dimensions=" + list_text(permutation));
}

HloValue HloBuilder::convert(const HloValue& x, DType to) {
  return emit("convert", to, x.dims, {x}, {});
}

HloValue HloBuilder::slice(const HloValue& x, int64_t dim, int64_t start, int64_t limit) {
  std::vector<int64_t> dims = x.dims;
  dims[static_cast<size_t>(dim)] = limit - start;
  std::string window = "slice={";
  for (size_t d = 0; d < x.dims.size(); ++d) {
    const bool cut = static_cast<int64_t>(d) == dim;
    window += (d ? ", [" : "[") + std::to_string(cut ? start : 0) + ':' +
              std::to_string(cut ? limit : x.dims[d]) + ']';
  }
  return emit("slice", x.dtype, std::move(dims), {x}, window + '}');
}

HloValue HloBuilder::concatenate(const std::vector<HloValue>& parts, int64_t dim) {
  std::vector<int64_t> dims = parts.front().dims;
  dims[static_cast<size_t>(dim)] = 0;
  for (const HloValue& p : parts)
    dims[static_cast<size_t>(dim)] += p.dims[static_cast<size_t>(dim)];
  return emit("concatenate", parts.front().dtype, std::move(dims), parts,
              "dimensions={" + std::to_string(dim) + '}');
}

HloValue HloBuilder::dynamic_slice(const HloValue& x, const std::vector<HloValue>& offsets,
                                   std::vector<int64_t> sizes) {
  std::vector<HloValue> operands{x};
  operands.insert(operands.end(), offsets.begin(), offsets.end());
  const std::string attributes = "dynamic_slice_sizes=" + list_text(sizes);
  return emit("dynamic-slice", x.dtype, std::move(sizes), operands, attributes);
}

HloValue HloBuilder::dot(const HloValue& lhs, const HloValue& rhs,
                         const std::vector<int64_t>& lhs_batch,
                         const std::vector<int64_t>& rhs_batch,
                         const std::vector<int64_t>& lhs_contract,
                         const std::vector<int64_t>& rhs_contract) {
  // Result: batch dims, then lhs free dims, then rhs free dims (XLA's order).
  std::vector<int64_t> dims;
  for (int64_t d : lhs_batch) dims.push_back(lhs.dims[static_cast<size_t>(d)]);
  auto free_dims = [&](const HloValue& x, const std::vector<int64_t>& batch,
                       const std::vector<int64_t>& contract) {
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contract.begin(), contract.end(), d) == contract.end()) {
        dims.push_back(x.dims[static_cast<size_t>(d)]);
      }
    }
  };
  free_dims(lhs, lhs_batch, lhs_contract);
  free_dims(rhs, rhs_batch, rhs_contract);
  std::string attributes;
  if (!lhs_batch.empty()) {
    attributes += "lhs_batch_dims=" + list_text(lhs_batch) + ", ";
  }
  attributes += "lhs_contracting_dims=" + list_text(lhs_contract);
  if (!rhs_batch.empty()) attributes += ", rhs_batch_dims=" + list_text(rhs_batch);
  attributes += ", rhs_contracting_dims=" + list_text(rhs_contract);
  return emit("dot", lhs.dtype, std::move(dims), {lhs, rhs}, attributes);
}

HloValue HloBuilder::binary(std::string_view opcode, const HloValue& a, const HloValue& b) {
  return emit(opcode, a.dtype, a.dims, {a, b}, {});
}

HloValue HloBuilder::unary(std::string_view opcode, const HloValue& x) {
  return emit(opcode, x.dtype, x.dims, {x}, {});
}

HloValue HloBuilder::compare(const HloValue& a, const HloValue& b, std::string_view direction) {
  return emit("compare", DType::kPred, a.dims, {a, b}, "direction=" + std::string(direction),
              direction);
}

HloValue HloBuilder::select(const HloValue& predicate, const HloValue& on_true,
                            const HloValue& on_false) {
  return emit("select", on_true.dtype, on_true.dims, {predicate, on_true, on_false}, {});
}

HloValue HloBuilder::reduce(const HloValue& x, double init, const std::vector<int64_t>& dims,
                            std::string_view reducer_op) {
  const HloValue zero = constant(x.dtype, init);
  std::vector<int64_t> out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      out.push_back(x.dims[static_cast<size_t>(d)]);
    }
  }
  const std::string attributes =
      "dimensions=" + list_text(dims) + ", to_apply=%" + reducer(reducer_op);
  return emit("reduce", x.dtype, std::move(out), {x, zero}, attributes, reducer_op);
}

std::string HloBuilder::reducer(std::string_view op) {
  if (std::find(reducers_.begin(), reducers_.end(), op) == reducers_.end()) {
    reducers_.emplace_back(op);
  }
  return std::string(op) + "_f32";
}

std::string HloBuilder::replica_groups() const {
  std::string g = "replica_groups={{";
  for (int64_t i = 0; i < num_partitions_; ++i) g += (i ? "," : "") + std::to_string(i);
  return g + "}}";
}

HloValue HloBuilder::all_reduce(const HloValue& x) {
  const std::string attributes = "channel_id=" + std::to_string(++channel_) + ", " +
                                 replica_groups() + ", use_global_device_ids=true, to_apply=%" +
                                 reducer("add");
  return emit("all-reduce", x.dtype, x.dims, {x}, attributes);
}

HloValue HloBuilder::all_gather(const HloValue& x, int64_t dim) {
  std::vector<int64_t> dims = x.dims;
  dims[static_cast<size_t>(dim)] *= num_partitions_;
  const std::string attributes = "channel_id=" + std::to_string(++channel_) + ", " +
                                 replica_groups() + ", dimensions={" + std::to_string(dim) +
                                 "}, use_global_device_ids=true";
  return emit("all-gather", x.dtype, std::move(dims), {x}, attributes);
}

HloValue HloBuilder::reduce_scatter(const HloValue& x, int64_t dim) {
  std::vector<int64_t> dims = x.dims;
  dims[static_cast<size_t>(dim)] /= num_partitions_;
  const std::string attributes = "channel_id=" + std::to_string(++channel_) + ", " +
                                 replica_groups() + ", dimensions={" + std::to_string(dim) +
                                 "}, use_global_device_ids=true, to_apply=%" + reducer("add");
  return emit("reduce-scatter", x.dtype, std::move(dims), {x}, attributes);
}

HloValue HloBuilder::all_to_all(const HloValue& x, int64_t dim) {
  const std::string attributes = "channel_id=" + std::to_string(++channel_) + ", " +
                                 replica_groups() + ", dimensions={" + std::to_string(dim) + "}";
  return emit("all-to-all", x.dtype, x.dims, {x}, attributes);
}

std::string HloBuilder::finish(const std::vector<HloValue>& outputs) {
  std::string result_type = "(";
  std::string operands;
  for (size_t i = 0; i < outputs.size(); ++i) {
    result_type += (i ? ", " : "") + type_text(outputs[i].dtype, outputs[i].dims);
    operands +=
        (i ? ", " : "") + type_text(outputs[i].dtype, outputs[i].dims) + " %" + outputs[i].name;
  }
  result_type += ')';
  std::string text = "HloModule " + module_name_;
  if (num_partitions_ > 1) text += ", num_partitions=" + std::to_string(num_partitions_);
  text += "\n\n";
  for (const std::string& op : reducers_) {
    // The scalar computation every reduce and all-reduce of this op applies.
    const std::string name = op + "_f32";
    const std::string lhs = name + ".lhs", rhs = name + ".rhs";
    text += '%' + name + " (" + lhs + ": f32[], " + rhs + ": f32[]) -> f32[] {\n  %" + lhs +
            " = f32[] parameter(0)\n  %" + rhs + " = f32[] parameter(1)\n  ROOT %" + name +
            ".result = f32[] " + op + "(f32[] %" + lhs + ", f32[] %" + rhs + ")\n}\n\n";
  }
  text += "ENTRY %" + module_name_ + " (" + params_ + ") -> " + result_type + " {\n";
  text += body_;
  text += "  ROOT %tuple." + std::to_string(++next_id_) + " = " + result_type + " tuple(" +
          operands + ")\n}\n";
  ++count_;
  return text;
}

}  // namespace scalify::modelgen
