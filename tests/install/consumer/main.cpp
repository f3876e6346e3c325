// Simulates 1F1B with D = 4 stages, N = 8 micro-batches and unit costs t_F = 1, t_B = 2 through
// the installed embedding API, in one call, and checks the closed form: iteration time
// (N + D − 1)(t_F + t_B) = 33 and bubble ratio (D − 1)/(N + D − 1) = 3/11
// (docs/architecture.md §3). With a model name as argument it also runs that model in real-cost
// mode on p100-daint (D = 4, N = 8) and prints the iteration time: the model is looked up in the
// shipped data of the installation find_package found (install_test.sh gives one that only the
// moved prefix has).

#include <cmath>
#include <cstdio>
#include <pipesim/pipesim.hpp>

int main(int argc, char** argv) {
  const pipesim::Result r = pipesim::simulate(pipesim::Options{
      {"schedule", "1f1b"}, {"stages", "4"}, {"micro_batches", "8"}, {"t_backward", "2"}});
  const auto& m = r.metrics;
  std::printf("consumer: pipesim %.*s, 1f1b D=4 N=8: iteration_time %g, bubble_ratio %g\n",
              static_cast<int>(pipesim::core::version.size()), pipesim::core::version.data(),
              m.iteration_time, m.bubble_ratio);
  const bool ok = m.iteration_time == 33.0 && std::abs(m.bubble_ratio - 3.0 / 11.0) < 1e-12 &&
                  m.workers.size() == 4;
  if (!ok) std::fprintf(stderr, "consumer: expected iteration_time 33, bubble_ratio 3/11\n");
  // A bad option is a ConfigError naming it, not a crash.
  try {
    (void)pipesim::simulate(pipesim::Options{{"stages", "0"}});
    std::fprintf(stderr, "consumer: stages 0 was accepted\n");
    return 1;
  } catch (const pipesim::ConfigError& e) {
    if (e.field() != "stages") return 1;
  }
  if (ok && argc > 1) {
    try {
      const pipesim::Result real = pipesim::simulate(pipesim::Options{
          {"model", argv[1]}, {"hardware", "p100-daint"}, {"stages", "4"}, {"micro_batches", "8"}});
      std::printf("real-cost iteration_time %.17g\n", real.metrics.iteration_time);
    } catch (const pipesim::ConfigError& e) {
      std::fprintf(stderr, "consumer: %s\n", e.what());
      return 1;
    }
  }
  return ok ? 0 : 1;
}
