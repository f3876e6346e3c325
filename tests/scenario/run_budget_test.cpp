// A run is estimated before it is built: the estimate refuses runs above the budget, and its
// bytes are within 2× of the peak memory a run really takes (measured in a child process, so
// the test's own heap does not count).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "pipesim/core/budget.hpp"
#include "pipesim/scenario/estimate.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {
namespace {

// A field of /proc/self/status in bytes ("VmHWM:   123 kB"), or -1.
double status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream s(line.substr(field.size() + 1));
      double kb = -1;
      s >> kb;
      return kb * 1024.0;
    }
  }
  return -1;
}

// The peak resident memory `s`'s run adds, measured in a forked child: the peak is reset
// (clear_refs 5), the baseline read, the run simulated, the peak read again. -1 when /proc
// does not allow it.
double measured_run_bytes(const Scenario& s) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    double delta = -1;
    if (std::ofstream("/proc/self/clear_refs") << "5") {
      const double before = status_bytes("VmRSS");
      { const Result r = simulate(s); }
      const double peak = status_bytes("VmHWM");
      if (before >= 0 && peak >= 0) delta = peak - before;
    }
    const ssize_t n = ::write(fds[1], &delta, sizeof delta);
    ::_exit(n == sizeof delta ? 0 : 1);
  }
  ::close(fds[1]);
  double delta = -1;
  if (::read(fds[0], &delta, sizeof delta) != sizeof delta) delta = -1;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? delta : -1;
}

// AddressSanitizer's allocator pads every block with redzones and holds freed ones in a
// quarantine, so a sanitized build's resident set is not the one the estimate describes.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizedAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizedAllocator = true;
#else
constexpr bool kSanitizedAllocator = false;
#endif
#else
constexpr bool kSanitizedAllocator = false;
#endif

TEST(RunBudget, EstimateIsWithinTwiceTheMeasuredPeak) {
  if (kSanitizedAllocator) GTEST_SKIP() << "ASan's allocator: the release suite measures this";
  const std::vector<std::vector<std::pair<std::string, std::string>>> runs = {
      // Unit-cost, about 1e6 tasks.
      {{"schedule", "1f1b"}, {"stages", "16"}, {"micro_batches", "16384"}},
      // A split backward (three compute kinds).
      {{"schedule", "zb-h1"}, {"stages", "16"}, {"micro_batches", "8192"}},
      // Real-cost: flows, memory tracking and per-worker breakdowns on top of the graph.
      {{"schedule", "1f1b"},
       {"stages", "8"},
       {"micro_batches", "8192"},
       {"model", "gpt2-1.3b"},
       {"hardware", "a100-dgx"}},
  };
  for (const auto& values : runs) {
    const Scenario s = make_scenario(values);
    const RunEstimate e = estimate_run(s);
    const double measured = measured_run_bytes(s);
    if (measured < 0) GTEST_SKIP() << "/proc/self/clear_refs is not available";
    const std::string what = values[0].second + " D=" + values[1].second +
                             " N=" + values[2].second + (s.perf.enabled() ? " real" : " unit");
    EXPECT_GT(measured, 20e6) << what << ": too small a run to measure";
    EXPECT_LE(e.bytes, 2.0 * measured)
        << what << ": estimate " << e.bytes << ", measured " << measured;
    EXPECT_GE(2.0 * e.bytes, measured)
        << what << ": estimate " << e.bytes << ", measured " << measured;
  }
}

TEST(RunBudget, SimulateRefusesAboveTheBudgetBeforeBuilding) {
  Scenario s = make_scenario({{"stages", "64"}, {"micro_batches", "1000000"}});
  try {
    (void)simulate(s);
    FAIL() << "a run of ~2.6e8 tasks was not refused";
  } catch (const core::BudgetError& e) {
    EXPECT_DOUBLE_EQ(e.estimate(), estimate_run(s).tasks);
    EXPECT_DOUBLE_EQ(e.limit(), core::kDefaultMaxTasks);
  }
  // The budget is the scenario's: raised, a small run passes; lowered, it is refused.
  s = make_scenario({{"stages", "4"}, {"micro_batches", "8"}});
  EXPECT_NO_THROW((void)simulate(s));
  s.max_tasks = estimate_run(s).tasks - 1;
  EXPECT_THROW((void)simulate(s), core::BudgetError);
  s.max_tasks = estimate_run(s).tasks;
  EXPECT_NO_THROW((void)simulate(s));
}

TEST(RunBudget, BadParametersAreNamedBeforeTheSize) {
  // Chimera with an odd number of stages is invalid whatever its size: the error says why.
  const Scenario s =
      make_scenario({{"schedule", "chimera"}, {"stages", "63"}, {"micro_batches", "1000000"}});
  try {
    (void)simulate(s);
    FAIL();
  } catch (const core::BudgetError&) {
    FAIL() << "an invalid run was reported as too large";
  } catch (const core::ConfigError&) {
  }
}

}  // namespace
}  // namespace pipesim::scenario
