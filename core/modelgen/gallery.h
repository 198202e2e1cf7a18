// The teaching gallery (`scalify gen example NAME`): small Llama pairs that each show one way of
// sharding, in a correct variant and a variant with one realistic bug, with a short explanation
// of the sharding, of the bug, and of where the checker stops.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "modelgen/llama_config.h"
#include "modelgen/llama_generator.h"
#include "support/expected.h"

namespace scalify::modelgen {

/// One example of the gallery.
struct GalleryExample {
  std::string_view name;    ///< as written after `gen example`
  std::string_view title;   ///< one line
  std::string_view lesson;  ///< how the example shards, a paragraph
  std::string_view bug;     ///< what the buggy variant gets wrong, and what the checker says
  /// The `op_name` scope of the node the checker names in the buggy variant (its prefix, up to
  /// the `/` before the op).
  std::string_view divergent_scope;
  int64_t tp = 2;
  bool sp = false;
  BugKind bug_kind = BugKind::kMissingAllReduce;
  int64_t experts = 0;  ///< > 0: a mixture of this many experts in place of the MLP

  /// The generator's options of the correct variant (the buggy one adds `bug_kind`): the tiny
  /// preset with one decoder layer and 8 tokens, so that the window shows every node.
  GenOptions options(bool buggy) const;
};

/// Every example, in teaching order.
const std::vector<GalleryExample>& gallery();

/// The example called `name`; an error listing the names for an unknown one.
Expected<const GalleryExample*> find_example(std::string_view name);

/// The example's README (Markdown): the lesson, the bug, the commands and what they print.
std::string example_readme(const GalleryExample& example);

/// Both variants of an example and its README.
struct GalleryPair {
  GeneratedPair correct, buggy;
  std::string readme;  ///< Markdown: the lesson, the bug, the commands and what they print
};

///   auto e = find_example("mlp-column-row");
///   auto p = generate_example(**e);
///   // p->correct checks equivalent; p->buggy divergent at a node of e->divergent_scope
Expected<GalleryPair> generate_example(const GalleryExample& example);

}  // namespace scalify::modelgen
