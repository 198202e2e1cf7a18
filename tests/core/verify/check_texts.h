// Helpers for checker tests written as HLO text: check two programs, look for a note.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "test_support.h"
#include "verify/check.h"

namespace scalify::test {

/// `check(ref, dist)` with everything inferred, the texts labelled ref.hlo and dist.hlo.
inline verify::CheckResult check_texts(const std::string& dist, const std::string& ref) {
  auto r = verify::check(parse_module(ref, "ref.hlo"), parse_module(dist, "dist.hlo"), {});
  REQUIRE(r);
  return *r;
}

/// Whether some note of `r` contains `words`.
inline bool noted(const verify::CheckResult& r, const std::string& words) {
  for (const std::string& n : r.notes) {
    if (n.find(words) != std::string::npos) return true;
  }
  return false;
}

}  // namespace scalify::test
