#include "modelgen/llama_generator.h"

#include "modelgen/llama_writer.h"
#include "modelgen/model_source.h"

namespace scalify::modelgen {

Expected<GeneratedPair> generate_llama(const GenOptions& options) {
  if (auto error = validate(options)) return *error;
  GeneratedPair pair;
  LlamaWriter ref(options, true);
  pair.ref_hlo = ref.write();
  pair.ref_instructions = ref.instruction_count();
  LlamaWriter dist(options, false);
  pair.dist_hlo = dist.write();
  pair.dist_instructions = dist.instruction_count();
  pair.parameters = dist.parameters();
  pair.model_py = std::string(model_source());
  return pair;
}

}  // namespace scalify::modelgen
