#include "pipesim/report/plot_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "pipesim/core/config_error.hpp"

namespace pipesim::report {
namespace {

std::optional<double> parse_number(const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string label(const std::string& column) {
  std::string out = column;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

struct Point2 {
  double x;
  double y;
  std::string x_text;
};

}  // namespace

GnuplotFigure line_plot(const CsvTable& table, std::string_view source, const LinePlotSpec& spec) {
  const size_t xc = table.column(source, spec.x);
  const size_t yc = table.column(source, spec.y);
  constexpr size_t kNone = static_cast<size_t>(-1);
  const size_t gc = spec.group.empty() ? kNone : table.column(source, spec.group);
  const bool grouped = gc != kNone;
  size_t status = kNone;
  for (size_t i = 0; i < table.header.size(); ++i) {
    if (table.header[i] == "status") status = i;
  }
  if (spec.reduce != "none" && spec.reduce != "min" && spec.reduce != "max") {
    throw core::ConfigError("command line", "--reduce",
                            fmt::format("must be one of none|min|max, got '{}'", spec.reduce));
  }
  // Rows to draw, and whether x is numeric.
  std::vector<const std::vector<std::string>*> rows;
  bool x_numeric = true;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (status != kNone && row[status] != "ok") continue;
    if (row[yc].empty()) continue;
    if (!parse_number(row[yc])) {
      throw core::ConfigError(source, spec.y,
                              fmt::format("row {}: '{}' is not a number", r + 2, row[yc]));
    }
    x_numeric = x_numeric && parse_number(row[xc]).has_value();
    rows.push_back(&row);
  }
  if (rows.empty()) {
    throw core::ConfigError(source, spec.y, "no row with status ok and a value to plot");
  }
  std::vector<std::string> categories;  // x values in order of appearance
  std::vector<std::string> groups;      // group values in order of appearance
  std::map<std::string, std::vector<Point2>> by_group;
  for (const auto* row : rows) {
    const std::string& xt = (*row)[xc];
    if (std::find(categories.begin(), categories.end(), xt) == categories.end()) {
      categories.push_back(xt);
    }
    const std::string g = grouped ? (*row)[gc] : spec.y;
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    const double x = x_numeric
                         ? *parse_number(xt)
                         : static_cast<double>(std::find(categories.begin(), categories.end(), xt) -
                                               categories.begin());
    by_group[g].push_back({x, *parse_number((*row)[yc]), xt});
  }
  GnuplotFigure fig;
  std::string plots;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    auto& points = by_group[groups[gi]];
    std::stable_sort(points.begin(), points.end(),
                     [](const Point2& a, const Point2& b) { return a.x < b.x; });
    if (spec.reduce != "none") {
      std::vector<Point2> kept;
      for (const Point2& p : points) {
        if (!kept.empty() && kept.back().x == p.x) {
          const bool better = spec.reduce == "max" ? p.y > kept.back().y : p.y < kept.back().y;
          if (better) kept.back() = p;
        } else {
          kept.push_back(p);
        }
      }
      points = std::move(kept);
    }
    fig.data += fmt::format("# {} = {}\n", grouped ? spec.group : "series", groups[gi]);
    for (const Point2& p : points) {
      fig.data += fmt::format("{} {} {}\n", p.x, p.y, gnuplot_string(p.x_text));
    }
    fig.data += "\n\n";  // gnuplot: two blank lines end a data block (an `index`)
    plots += fmt::format("{}datafile index {} using 1:2{} with linespoints ls {} title {}",
                         gi == 0 ? "plot " : ", \\\n     ", gi, x_numeric ? "" : ":xtic(3)", gi + 1,
                         gnuplot_string(groups[gi]));
  }
  bool log_x = x_numeric;
  double lo = 0, hi = 0;
  for (const auto* row : rows) {
    if (!x_numeric) break;
    const double x = *parse_number((*row)[xc]);
    if (x <= 0) log_x = false;
    lo = lo == 0 ? x : std::min(lo, x);
    hi = std::max(hi, x);
  }
  log_x = log_x && hi >= 16 * lo;
  fig.body += fmt::format(
      "set title {}\n",
      gnuplot_string(spec.title.empty() ? label(spec.y) + " vs " + label(spec.x) : spec.title));
  fig.body += fmt::format("set xlabel {}\nset ylabel {}\n", gnuplot_string(label(spec.x)),
                          gnuplot_string(label(spec.y)));
  if (log_x) fig.body += "set logscale x 2\n";
  if (!x_numeric)
    fig.body += fmt::format("set xrange [-0.5:{}]\n", static_cast<double>(categories.size()) - 0.5);
  fig.body += "set grid\nset key outside right top";
  if (grouped) fig.body += fmt::format(" title {}", gnuplot_string(label(spec.group)));
  fig.body += "\n";
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    fig.body += fmt::format("set style line {} linewidth 2 pointtype {} pointsize 1\n", gi + 1,
                            gi % 13 + 1);
  }
  fig.body += plots + "\n";
  return fig;
}

GnuplotFigure worker_bar_plot(const nlohmann::json& run, std::string_view source, std::string field,
                              const std::string& title) {
  if (!run.is_object() || !run.contains("per_worker") || !run.at("per_worker").is_array() ||
      run.at("per_worker").empty()) {
    throw core::ConfigError(source, "per_worker",
                            "expected a `pipesim simulate --format json` result");
  }
  const auto& workers = run.at("per_worker");
  if (field.empty()) {
    field = workers.front().contains("peak_memory") ? "peak_memory" : "peak_activations";
  }
  // Bytes are drawn in GiB, with the GPU's capacity as a line when the run names it.
  const bool bytes = field == "peak_memory" || field == "static_memory";
  const double scale = bytes ? 1.0 / (1024.0 * 1024.0 * 1024.0) : 1.0;
  GnuplotFigure fig;
  fig.data = fmt::format("# worker {}{}\n", field, bytes ? " (GiB)" : "");
  for (size_t i = 0; i < workers.size(); ++i) {
    const auto& w = workers[i];
    if (!w.contains(field) || !w.at(field).is_number()) {
      throw core::ConfigError(source, field,
                              fmt::format("per_worker[{}] has no number '{}'", i, field));
    }
    fig.data += fmt::format("{} {}\n", w.value("worker", static_cast<int>(i)),
                            w.at(field).get<double>() * scale);
  }
  const std::string what = field == "peak_memory" ? "peak memory (GiB)"
                           : field == "peak_activations"
                               ? "peak activations (micro-batch-stage units)"
                               : label(field);
  const std::string schedule = run.value("schedule", std::string());
  fig.body += fmt::format(
      "set title {}\n",
      gnuplot_string(!title.empty()     ? title
                     : schedule.empty() ? what + " per worker"
                                        : fmt::format("{}: {} per worker", schedule, what)));
  fig.body += fmt::format("set xlabel \"worker\"\nset ylabel {}\n", gnuplot_string(what));
  fig.body += "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset grid ytics\n";
  fig.body += "set yrange [0:*]\nunset key\n";
  if (workers.size() <= 32) fig.body += "set xtics 1\n";
  std::string capacity;
  if (bytes && run.contains("memory_capacity") && run.at("memory_capacity").is_number()) {
    capacity = fmt::format(
        ", {} with lines linewidth 2 dashtype 2 linecolor rgb '#cc3311' title \"GPU memory\"",
        run.at("memory_capacity").get<double>() * scale);
    fig.body += fmt::format("set key top right\nset yrange [0:{}]\n",
                            run.at("memory_capacity").get<double>() * scale * 1.15);
  }
  fig.body +=
      "plot datafile using 1:2 with boxes linecolor rgb '#4477aa' notitle" + capacity + "\n";
  return fig;
}

GnuplotFigure memory_plot(const nlohmann::json& run, std::string_view source,
                          const std::string& title) {
  if (!run.is_object() || !run.contains("per_worker") || !run.at("per_worker").is_array() ||
      run.at("per_worker").empty()) {
    throw core::ConfigError(source, "per_worker",
                            "expected a `pipesim simulate --format json` result");
  }
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const auto& workers = run.at("per_worker");
  // Each line runs on to the end of the run, so the last level shows as a step too.
  const double end = run.contains("total_time") && run.at("total_time").is_number()
                         ? run.at("total_time").get<double>()
                         : 0.0;
  GnuplotFigure fig;
  std::string plots;
  for (size_t i = 0; i < workers.size(); ++i) {
    const auto& w = workers[i];
    const int worker = w.value("worker", static_cast<int>(i));
    if (!w.contains("memory_timeline") || !w.at("memory_timeline").is_array() ||
        w.at("memory_timeline").empty()) {
      throw core::ConfigError(
          source, "memory_timeline",
          fmt::format("per_worker[{}] has none; run `pipesim simulate --model M --hardware H "
                      "--memory-timeline --format json`",
                      i));
    }
    fig.data += fmt::format("# worker {}: time, memory (GiB)\n", worker);
    double last_t = 0.0, last_b = 0.0;
    for (const auto& sample : w.at("memory_timeline")) {
      if (!sample.is_array() || sample.size() != 2 || !sample[0].is_number() ||
          !sample[1].is_number()) {
        throw core::ConfigError(source, "memory_timeline",
                                fmt::format("per_worker[{}]: expected [time, bytes] pairs", i));
      }
      last_t = sample[0].get<double>();
      last_b = sample[1].get<double>();
      fig.data += fmt::format("{} {}\n", last_t, last_b / kGiB);
    }
    if (end > last_t) fig.data += fmt::format("{} {}\n", end, last_b / kGiB);
    fig.data += "\n\n";
    plots += fmt::format("{}datafile index {} using 1:2 with steps linewidth 2 title \"worker {}\"",
                         i == 0 ? "plot " : ", \\\n     ", i, worker);
  }
  const std::string schedule = run.value("schedule", std::string());
  const std::string model = run.value("model", std::string());
  const std::string hw = run.value("hardware", std::string());
  std::string what = schedule.empty() ? "memory per worker" : schedule + ": memory per worker";
  if (!model.empty()) what += fmt::format(" ({} on {})", model, hw);
  fig.body += fmt::format("set title {}\n", gnuplot_string(title.empty() ? what : title));
  const bool real = run.value("mode", std::string()) == "real-cost";
  fig.body += fmt::format("set xlabel {}\nset ylabel \"memory (GiB)\"\n",
                          gnuplot_string(real ? "time (s)" : "time"));
  fig.body += "set grid\nset key outside right top\nset yrange [0:*]\n";
  if (run.contains("memory_capacity") && run.at("memory_capacity").is_number()) {
    const double capacity = run.at("memory_capacity").get<double>() / kGiB;
    plots += fmt::format(
        ", \\\n     {} with lines linewidth 2 dashtype 2 linecolor rgb '#cc3311' "
        "title \"GPU memory\"",
        capacity);
    fig.body += fmt::format("set yrange [0:{}]\n", capacity * 1.15);
  }
  fig.body += plots + "\n";
  return fig;
}

}  // namespace pipesim::report
