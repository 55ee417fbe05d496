#include "pipeline/batch.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace cookgraph::pipeline {

void RunInOrder(size_t n, const BatchOptions& options, const std::function<bool(size_t)>& work,
                const std::function<void(size_t)>& take) {
  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(n, 1)));
  if (jobs <= 1) {
    for (size_t i = 0; i < n; ++i) {
      const bool failed = work(i);
      take(i);
      if (failed && options.stop_at_failure) return;
    }
    return;
  }
  std::mutex mutex;
  std::condition_variable ready;
  std::vector<char> done(n, 0);
  std::atomic<size_t> next{0};
  std::atomic<size_t> stop{n};  // no item after this one is started or taken
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      const bool skipped = i > stop.load();
      const bool failed = !skipped && work(i);
      if (failed && options.stop_at_failure) {
        for (size_t s = stop.load(); i < s && !stop.compare_exchange_weak(s, i);) {
        }
      }
      std::lock_guard lock(mutex);
      done[i] = 1;
      ready.notify_all();
    }
  };
  std::vector<std::thread> workers;
  for (unsigned j = 0; j < jobs; ++j) workers.emplace_back(worker);
  for (size_t i = 0; i < n; ++i) {
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return done[i] != 0; });
    }
    if (i > stop.load()) break;
    take(i);
  }
  for (std::thread& t : workers) t.join();
}

}  // namespace cookgraph::pipeline
