// ChangeLog: the classes each iteration of a run touched, so that a rule whose matches were all
// applied can search again only near what changed since (semi-naive e-matching).
#pragma once

#include <cstdint>
#include <vector>

#include "egraph/egraph.h"

namespace scalify::egraph {

/// Iteration by iteration, the classes that gained a node, a merge or a constant (the
/// e-graph's touch log, see EGraph::log_touches()).
///
///   g.log_touches(true);
///   ChangeLog log;
///   … apply matches, g.rebuild() …
///   log.record(g.take_touched());                      // iteration 0
///   std::vector<ClassId> roots = log.near(g, 0, 3);    // where f(g(?x)) may match anew
class ChangeLog {
 public:
  /// Appends the classes the next iteration touched.
  void record(LargeVector<ClassId> touched) { iterations_.push_back(std::move(touched)); }
  size_t iterations() const { return iterations_.size(); }
  /// The canonical classes at most `height - 1` parent steps above a class touched in
  /// iteration `since` or later, ascending: the only roots where a pattern of that height
  /// (see Query::height()) can match in a way it did not before.
  std::vector<ClassId> near(const EGraph& g, size_t since, uint32_t height) const;
  /// By canonical class id: whether the class was touched in iteration `since` or later.
  std::vector<bool> changed(const EGraph& g, size_t since) const;

 private:
  /// Calls f with the canonical class of every touch in iteration `since` or later.
  template <class F>
  void for_each_touched(const EGraph& g, size_t since, F&& f) const {
    for (size_t i = since; i < iterations_.size(); ++i) {
      for (ClassId c : iterations_[i]) f(g.find(c));
    }
  }

  std::vector<LargeVector<ClassId>> iterations_;
};

}  // namespace scalify::egraph
