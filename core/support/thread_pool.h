// Running independent jobs on a few threads: no queue to own, no threads left behind.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scalify {

/// Runs job(i) for every i in [0, n) on at most `threads` threads (the caller's included) and
/// returns when all have run. After `stop()` returns true no further job starts. The first
/// exception a job throws is rethrown here once every thread has finished.
///
///   std::vector<int> squares(8);
///   parallel_for(8, 4, [&](size_t i) { squares[i] = int(i * i); });
inline void parallel_for(size_t n, size_t threads, const std::function<void(size_t)>& job,
                         const std::function<bool()>& stop = {}) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      if (stop && stop()) return;
      try {
        job(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next = n;  // no further jobs
      }
    }
  };
  const size_t helpers = std::min(n, std::max<size_t>(threads, 1)) - (n > 0 ? 1 : 0);
  std::vector<std::jthread> pool;
  pool.reserve(helpers);
  for (size_t t = 0; t < helpers; ++t) pool.emplace_back(work);
  work();
  pool.clear();  // joins
  if (error) std::rethrow_exception(error);
}

}  // namespace scalify
