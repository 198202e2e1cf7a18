#include "process_exit.h"

#include <cstdio>
#include <cstdlib>
#include <ostream>

namespace scalify::cli {

namespace {
bool exit_enabled = false;
}  // namespace

void exit_when_done(bool enabled) { exit_enabled = enabled; }

int finish(int code, std::ostream& out, std::ostream& err) {
  if (!exit_enabled) return code;
  out.flush();
  err.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace scalify::cli
