// Figures rendered for real with gnuplot: any warning gnuplot prints is a failure (a warning
// usually means a wrong figure), and what gnuplot actually drew (its GPVAL_ ranges after the
// plot) is checked against the run: the memory plot's time axis is the iteration for any worker
// count, its y range holds every peak and the GPU's capacity, a run that does not fit says so.

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "pipesim/report/csv.hpp"
#include "pipesim/report/gnuplot.hpp"
#include "pipesim/report/plot_data.hpp"
#include "pipesim/report/run_report.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::report {
namespace {

namespace fs = std::filesystem;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

class Scratch {
 public:
  Scratch() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("pipesim-figure-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

// The ranges gnuplot drew: the figure's script rerun in its folder (output discarded), then
// GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_Y_MIN, GPVAL_Y_MAX printed. Everything gnuplot said comes
// back in `said` (the four numbers are the last line).
struct Drawn {
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
  std::string said;
};

Drawn drawn_ranges(const Scratch& scratch, const std::string& script) {
  const std::string command = "cd '" + scratch.dir().string() +
                              "' && gnuplot -e \"outfile='/dev/null'\" " + script +
                              " -e 'print GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_Y_MIN, GPVAL_Y_MAX' 2>&1";
  Drawn d;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return d;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get()) != nullptr)
    d.said += buffer.data();
  std::string last = d.said;
  while (!last.empty() && last.back() == '\n')
    last.pop_back();
  std::istringstream(last.substr(last.find_last_of('\n') + 1)) >> d.x_min >> d.x_max >> d.y_min >>
      d.y_max;
  return d;
}

struct SimulatedRun {
  scenario::Scenario spec;
  scenario::Result result;
  nlohmann::json json;
};

SimulatedRun real_run(int stages, int micro_batches) {
  SimulatedRun r;
  r.spec = scenario::make_scenario({{"schedule", "1f1b"},
                                    {"stages", std::to_string(stages)},
                                    {"micro_batches", std::to_string(micro_batches)},
                                    {"model", "gpt2-1.3b"},
                                    {"hardware", "p100-daint"}});
  r.spec.memory_timeline = true;
  r.result = scenario::simulate(r.spec);
  r.json = nlohmann::json::parse(to_json(r.spec, r.result, false).dump());
  return r;
}

double highest_peak_gib(const nlohmann::json& run) {
  double peak = 0;
  for (const auto& w : run.at("per_worker"))
    peak = std::max(peak, w.at("peak_memory").get<double>() / kGiB);
  return peak;
}

// More workers than the key lists (8): coloured along a scale. The time axis is the run.
TEST(Figure, MemoryOverTimeOfSixteenWorkersSpansTheIteration) {
  const SimulatedRun run = real_run(16, 32);
  ASSERT_EQ(run.json.at("per_worker").size(), 16u);
  const Scratch scratch;
  const std::string svg = scratch.file("memory.svg");
  EXPECT_EQ(render_figure(svg, memory_plot(run.json, "run.json", "")), "");
  const Drawn d = drawn_ranges(scratch, "memory.gp");
  EXPECT_EQ(d.said.find("warning"), std::string::npos) << d.said;
  const double iteration = run.result.metrics.iteration_time;
  EXPECT_DOUBLE_EQ(d.x_min, 0.0) << d.said;
  EXPECT_NEAR(d.x_max, iteration, 1e-9 * iteration) << d.said;
  // Every worker's peak and the 16 GiB of a P100 are inside the y range.
  EXPECT_GE(d.y_max, highest_peak_gib(run.json)) << d.said;
  EXPECT_GE(d.y_max, run.json.at("memory_capacity").get<double>() / kGiB) << d.said;
}

TEST(Figure, MemoryOverTimeOfFourWorkersHasAKeyEntryEach) {
  const SimulatedRun run = real_run(4, 8);
  const Scratch scratch;
  const std::string svg = scratch.file("memory.svg");
  EXPECT_EQ(render_figure(svg, memory_plot(run.json, "run.json", "")), "");
  std::ifstream in(svg);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (int w = 0; w < 4; ++w)
    EXPECT_NE(text.find("worker " + std::to_string(w)), std::string::npos) << w;
  const Drawn d = drawn_ranges(scratch, "memory.gp");
  EXPECT_NEAR(d.x_max, run.result.metrics.iteration_time, 1e-9 * d.x_max) << d.said;
}

// gpt2-1.3b on one 16 GiB P100: its 1.39 B parameters at 16 bytes each exceed the GPU, so the
// peak is above the capacity line and must still be drawn.
TEST(Figure, RunThatDoesNotFitShowsItsPeakAndSaysSo) {
  const SimulatedRun run = real_run(1, 4);
  ASSERT_FALSE(run.json.at("fits_memory").get<bool>());
  const double peak = highest_peak_gib(run.json);
  const double capacity = run.json.at("memory_capacity").get<double>() / kGiB;
  ASSERT_GT(peak, capacity * 1.15) << "the old y range (1.15 x capacity) would clip it";
  const Scratch scratch;
  for (const std::string kind : {"memory", "bars"}) {
    const GnuplotFigure fig = kind == "memory" ? memory_plot(run.json, "run.json", "")
                                               : worker_bar_plot(run.json, "run.json", "", "");
    EXPECT_EQ(render_figure(scratch.file(kind + ".svg"), fig), "") << kind;
    EXPECT_NE(fig.body.find("does not fit"), std::string::npos) << kind;
    const Drawn d = drawn_ranges(scratch, kind + ".gp");
    EXPECT_EQ(d.said.find("warning"), std::string::npos) << d.said;
    EXPECT_GE(d.y_max, peak) << kind << d.said;
    EXPECT_DOUBLE_EQ(d.y_min, 0.0) << kind;
  }
}

TEST(Figure, FittingRunHasNoDoesNotFitLabel) {
  const SimulatedRun run = real_run(8, 8);
  ASSERT_TRUE(run.json.at("fits_memory").get<bool>());
  EXPECT_EQ(memory_plot(run.json, "run.json", "").body.find("does not fit"), std::string::npos);
}

CsvTable table(const std::string& text) {
  return parse_csv("t.csv", text);
}

TEST(Figure, GeometricRangesGetALogAxisEvenlySpacedOnesALinearOne) {
  auto axis = [](const std::string& rows) {
    const GnuplotFigure fig = line_plot(table("stages,bubble_ratio\n" + rows), "t.csv",
                                        {"stages", "bubble_ratio", "", "none", ""});
    const size_t at = fig.body.find("set logscale x ");
    return at == std::string::npos ? std::string("linear")
                                   : fig.body.substr(at + 15, fig.body.find('\n', at) - at - 15);
  };
  EXPECT_EQ(axis("2,0.1\n4,0.2\n8,0.3\n"), "2");
  EXPECT_EQ(axis("1,0.1\n10,0.2\n100,0.3\n1000,0.4\n"), "10");
  // 4:64:+4 spans 16x but is evenly spaced.
  std::string even;
  for (int d = 4; d <= 64; d += 4)
    even += std::to_string(d) + ",0.5\n";
  EXPECT_EQ(axis(even), "linear");
  EXPECT_EQ(axis("3,0.1\n4,0.2\n6,0.3\n"), "linear");
}

// A series whose every row failed has no line; its marks carry its colour and it keeps a key
// entry of its own, so a reader can tell whose marks they are.
TEST(Figure, MissingPointsAreTiedToTheirSeries) {
  const CsvTable t = table(
      "schedule,stages,throughput,status\n"
      "a,2,10,ok\na,4,12,ok\na,8,,oom\n"
      "b,2,,oom\nb,4,,oom\nb,8,,invalid: too deep\n");
  const GnuplotFigure fig = line_plot(t, "t.csv", {"stages", "throughput", "schedule", "none", ""});
  EXPECT_NE(fig.body.find("keyentry with points ls 2 title \"b (nothing drawn)\""),
            std::string::npos)
      << fig.body;
  // a's oom mark in a's colour (the first), b's in b's (the second).
  EXPECT_NE(fig.body.find("linecolor rgb '#4477aa' notitle"), std::string::npos) << fig.body;
  EXPECT_NE(fig.body.find("linecolor rgb '#ee6677' notitle"), std::string::npos) << fig.body;
  EXPECT_NE(fig.body.find("title \"out of memory (not drawn)\""), std::string::npos);
  const Scratch scratch;
  EXPECT_EQ(render_figure(scratch.file("line.svg"), fig), "");
  const Drawn d = drawn_ranges(scratch, "line.gp");
  EXPECT_EQ(d.said.find("warning"), std::string::npos) << d.said;
}

// Options at their defaults, or that do not apply in the run's mode, stay out of the caption.
TEST(Figure, CaptionListsOnlyOptionsThatApplyAndDiffer) {
  std::string header, row;
  for (const scenario::Option& o : scenario::options()) {
    header += (header.empty() ? "" : ",") + o.name();
    std::string v = o.spec.default_text;
    if (o.name() == "t_comm") v = "0.5";  // unit-cost option in a real-cost table
    if (o.name() == "model") v = "gpt2-1.3b";
    if (o.name() == "hardware") v = "p100-daint";
    if (o.name() == "overlap_p2p") v = "off";  // differs, applies
    row += (row.empty() ? "" : ",") + v;
  }
  CsvTable t = table(header + ",throughput,status\n" + row + ",1,ok\n");
  t.rows.push_back(t.rows.front());
  t.rows.back()[t.column("t.csv", "stages")] = "8";
  const GnuplotFigure fig = line_plot(t, "t.csv", {"stages", "throughput", "", "none", ""});
  const std::string title = fig.body.substr(0, fig.body.find('\n'));
  EXPECT_NE(title.find("overlap_p2p=off"), std::string::npos) << title;
  EXPECT_EQ(title.find("t_comm"), std::string::npos) << title;
  EXPECT_EQ(title.find("micro_batches"), std::string::npos) << title;
  EXPECT_NE(title.find("gpt2-1.3b on p100-daint"), std::string::npos) << title;
}

}  // namespace
}  // namespace pipesim::report
