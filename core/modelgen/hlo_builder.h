// A small emitter of HLO text in the style torch-xla and JAX dump: `%dot.42 = f32[16,64]{1,0}
// dot(f32[16,64]{1,0} %x, …), …, metadata={op_type=… op_name=… source_file=… source_line=…}`.
// It computes each result shape from the operands, so the writer states only the operation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scalify::modelgen {

enum class DType : uint8_t { kF32, kS32, kU32, kPred };

/// A value the builder has emitted: its instruction name and type.
struct HloValue {
  std::string name;  ///< without '%'
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
  int64_t dim(size_t i) const { return dims[i]; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
};

/// Where the next instructions come from: an `op_name` scope ("model.layers.3.mlp") and the
/// model.py line. The op_type (`aten__mm`) follows from the opcode unless given.
struct SourceSite {
  std::string scope;
  int64_t line = 0;
  std::string op_type;  ///< empty: derived from the opcode
};

/// Builds one module with an ENTRY computation and the scalar reducers it needs.
///
///   HloBuilder b("SyncTensorsGraph", 2);    // num_partitions=2
///   b.at({"model.layers.0.mlp", 7});
///   HloValue x = b.parameter(DType::kF32, {16, 64}, "x", "{replicated}");
///   HloValue w = b.parameter(DType::kF32, {32, 64}, "w", "{devices=[2,1]<=[2]}");
///   HloValue y = b.dot(x, w, {}, {}, {1}, {1});       // f32[16,32]
///   std::string text = b.finish({b.all_gather(y, 1)});
class HloBuilder {
 public:
  /// `num_partitions` > 1 writes it in the module header.
  HloBuilder(std::string module_name, int64_t num_partitions);

  void at(SourceSite site) { site_ = std::move(site); }
  const SourceSite& site() const { return site_; }

  /// The next ENTRY parameter. Parameters are named `p<number>.<number + 1>` whatever else was
  /// emitted, so that two programs declaring them in the same order name them alike.
  /// `sharding` is the annotation's braces ("{replicated}") or empty for none.
  HloValue parameter(DType dtype, std::vector<int64_t> dims, std::string_view torch_name,
                     std::string_view sharding = {});
  HloValue constant(DType dtype, double value);
  /// A rank-1 f32 literal.
  HloValue constant_vector(const std::vector<double>& values);
  HloValue iota(DType dtype, std::vector<int64_t> dims, int64_t iota_dim);
  HloValue partition_id();

  HloValue broadcast(const HloValue& x, std::vector<int64_t> dims,
                     const std::vector<int64_t>& kept);
  /// A scalar broadcast to `like`'s shape.
  HloValue splat(double value, const HloValue& like);
  HloValue reshape(const HloValue& x, std::vector<int64_t> dims);
  HloValue transpose(const HloValue& x, const std::vector<int64_t>& permutation);
  HloValue convert(const HloValue& x, DType to);
  HloValue slice(const HloValue& x, int64_t dim, int64_t start, int64_t limit);
  HloValue concatenate(const std::vector<HloValue>& parts, int64_t dim);
  /// `offsets` one s32[] per dim of x.
  HloValue dynamic_slice(const HloValue& x, const std::vector<HloValue>& offsets,
                         std::vector<int64_t> sizes);
  HloValue dot(const HloValue& lhs, const HloValue& rhs, const std::vector<int64_t>& lhs_batch,
               const std::vector<int64_t>& rhs_batch, const std::vector<int64_t>& lhs_contract,
               const std::vector<int64_t>& rhs_contract);

  /// Elementwise: add, subtract, multiply, divide, maximum (binary); negate, exponential, rsqrt,
  /// logistic, cosine, sine (unary).
  HloValue binary(std::string_view opcode, const HloValue& a, const HloValue& b);
  HloValue unary(std::string_view opcode, const HloValue& x);
  HloValue compare(const HloValue& a, const HloValue& b, std::string_view direction);
  HloValue select(const HloValue& predicate, const HloValue& on_true, const HloValue& on_false);
  /// Sum ("add") or "maximum" over `dims`, starting from `init`.
  HloValue reduce(const HloValue& x, double init, const std::vector<int64_t>& dims,
                  std::string_view reducer);

  /// Collectives over all `num_partitions` devices (one replica group).
  HloValue all_reduce(const HloValue& x);
  HloValue all_gather(const HloValue& x, int64_t dim);
  HloValue reduce_scatter(const HloValue& x, int64_t dim);
  /// Splits `dim` into num_partitions blocks, sends block j to rank j, and concatenates what
  /// arrives along `dim` in rank order (XLA's array all-to-all: one dim split and joined).
  HloValue all_to_all(const HloValue& x, int64_t dim);

  /// The module text, with `outputs` as the ROOT tuple.
  std::string finish(const std::vector<HloValue>& outputs);

  /// Instructions emitted so far (parameters included).
  int64_t instruction_count() const { return count_; }

 private:
  /// Writes one instruction with the site's metadata; `detail` refines the op_type (a compare's
  /// direction, a reduce's op); `literal` goes inside the parentheses of operand-less ops.
  HloValue emit(std::string_view opcode, DType dtype, std::vector<int64_t> dims,
                const std::vector<HloValue>& operands, std::string_view attributes,
                std::string_view detail = {}, std::string_view literal = {});
  void write(const HloValue& v, std::string_view opcode, const std::vector<HloValue>& operands,
             std::string_view attributes, std::string_view literal);
  void write_metadata(std::string_view op_type, std::string_view op_name);
  std::string reducer(std::string_view op);
  std::string replica_groups() const;

  std::string module_name_;
  int64_t num_partitions_ = 1;
  SourceSite site_;
  std::string params_;  ///< the ENTRY signature's parameter list
  std::string body_;
  std::vector<std::string> reducers_;  ///< "add", "maximum": which reducer computations to emit
  int64_t next_id_ = 0;
  int64_t parameters_ = 0;
  int64_t channel_ = 0;
  int64_t count_ = 0;
};

/// "f32[2,16]{1,0}"
std::string type_text(DType dtype, const std::vector<int64_t>& dims);

}  // namespace scalify::modelgen
