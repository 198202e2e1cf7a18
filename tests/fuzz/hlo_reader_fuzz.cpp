// libFuzzer target for the HLO text reader: read, print, read again, compare.
//
// Any input must either be rejected with a diagnostic or read into a Module that the printer
// turns into text which reads back to an equal Module. A crash, a sanitizer report (ASan, UBSan),
// a timeout, or a failed round trip (`__builtin_trap`) is a finding.
//
// Build (clang only; the sanitizers are added to scalify_core by tests/fuzz/CMakeLists.txt):
//   cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DSCALIFY_FUZZ=ON \
//         -DSCALIFY_BUILD_TESTS=OFF -DSCALIFY_BUILD_BENCHMARKS=OFF
//   cmake --build build-fuzz --target hlo_reader_fuzz
// Short run (what CI does, 60 s, seeded from ../shared/corpus):
//   ctest --test-dir build-fuzz -L fuzz --output-on-failure
// Longer run (as long as you like, both cores; new inputs accumulate in the corpus directory):
//   cd build-fuzz/tests/fuzz
//   ./hlo_reader_fuzz -dict=../../../tests/fuzz/hlo.dict -max_len=32768 -timeout=25 -jobs=2 \
//       -workers=2 -max_total_time=3600 -artifact_prefix=artifacts/ corpus/hlo_reader_fuzz seeds
// Reproduce a finding:  ./hlo_reader_fuzz artifacts/crash-…   (prints the diagnostic or diff)
// Minimise it:          ./hlo_reader_fuzz -minimize_crash=1 -runs=10000 artifacts/crash-…
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "hlo/printer.h"
#include "hlo/reader.h"
#include "ir/module.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail, const std::string& text) {
  std::fprintf(stderr, "hlo_reader_fuzz: %s\n%s\n--- printed text ---\n%s\n", what, detail.c_str(),
               text.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto first = scalify::hlo::read_module(input, "fuzz.hlo");
  if (!first) return 0;  // rejected with a diagnostic: fine

  const std::string printed = scalify::hlo::print_module(*first);
  auto second = scalify::hlo::read_module(printed, "printed.hlo");
  if (!second) fail("the printed module does not read back", second.error().format(), printed);
  if (!(*first == *second)) {
    fail("the printed module reads back different", scalify::ir::first_difference(*first, *second),
         printed);
  }
  return 0;
}
