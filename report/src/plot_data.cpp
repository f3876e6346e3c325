#include "pipesim/report/plot_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/row.hpp"

namespace pipesim::report {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr size_t kNone = static_cast<size_t>(-1);

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

// How a column is drawn on an axis: its words with the unit, and the factor from the CSV's
// unit to the axis's (bytes are drawn in GiB). Unit-cost times are slots, not seconds.
struct Axis {
  std::string text;
  double scale = 1.0;
};

Axis axis_of(const std::string& column, bool unit_cost) {
  const std::string time_unit = unit_cost ? "slots" : "s";
  static const std::map<std::string, std::string> kWords{
      {"stages", "pipeline depth D (stages)"},
      {"micro_batches", "micro-batches per iteration N"},
      {"micro_batch_size", "micro-batch size B (samples)"},
      {"data_parallel", "data-parallel width W (pipeline replicas)"},
      {"pipelines", "pipelines"},
      {"chunks", "model chunks per worker"},
      {"iterations", "iterations"},
      {"workers", "GPUs per pipeline replica"},
      {"gpus", "GPUs"},
      {"mini_batch", "mini-batch (samples)"},
      {"throughput", "throughput (samples/s)"},
      {"tokens_per_second", "throughput (tokens/s)"},
      {"mfu", "model FLOPs utilisation (fraction of peak)"},
      {"bubble_ratio", "bubble ratio (fraction of worker time)"},
      {"exposed_comm_ratio", "exposed communication (fraction of iteration)"},
      {"memory_headroom", "memory headroom (fraction of GPU memory)"},
      {"peak_activations_max", "peak activations, fullest worker (micro-batch-stage units)"},
      {"peak_activations_min", "peak activations, emptiest worker (micro-batch-stage units)"},
      {"peak_activations", "peak activations (micro-batch-stage units)"},
  };
  if (const auto it = kWords.find(column); it != kWords.end()) return {it->second, 1.0};
  if (column == "iteration_time" || column == "span" || column == "total_time" ||
      column.rfind("t_", 0) == 0) {
    return {fmt::format("{} ({})", label(column), time_unit), 1.0};
  }
  if (column == "peak_memory_max") return {"peak memory, fullest worker (GiB)", 1.0 / kGiB};
  if (column == "peak_memory_min") return {"peak memory, emptiest worker (GiB)", 1.0 / kGiB};
  // Columns named with their unit (`_s`, `_bytes`, `_gib`, `_percent`).
  auto ends_with = [&](std::string_view suffix) {
    return column.size() > suffix.size() &&
           column.compare(column.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  auto stem = [&](size_t n) { return label(column.substr(0, column.size() - n)); };
  if (ends_with("_bytes")) return {stem(6) + " (GiB)", 1.0 / kGiB};
  if (ends_with("_gib")) return {stem(4) + " (GiB)", 1.0};
  if (ends_with("_percent") || ends_with("_pct")) return {stem(ends_with("_pct") ? 4 : 8) + " (%)"};
  if (ends_with("_s")) return {fmt::format("{} ({})", stem(2), time_unit), 1.0};
  return {label(column), 1.0};
}

// Lines of at most `width` characters from words separated by `sep`.
std::string wrap(const std::vector<std::string>& words, const std::string& sep, size_t width) {
  std::string out, line;
  for (const std::string& w : words) {
    if (!line.empty() && line.size() + sep.size() + w.size() > width) {
      out += (out.empty() ? "" : "\n") + line;
      line.clear();
    }
    line += (line.empty() ? "" : sep) + w;
  }
  if (!line.empty()) out += (out.empty() ? "" : "\n") + line;
  return out;
}

// Paul Tol's bright scheme (colour-blind safe) then black: one colour, dash pattern and point
// type per series, so series stay apart in colour, in grey print and where they overlap.
constexpr std::array<const char*, 8> kColours{"#4477aa", "#ee6677", "#228833", "#ccbb44",
                                              "#66ccee", "#aa3377", "#bbbbbb", "#000000"};
constexpr std::array<int, 10> kPointTypes{7, 5, 9, 11, 13, 4, 6, 8, 10, 12};

std::string series_style(size_t i) {
  return fmt::format(
      "set style line {} linecolor rgb '{}' dashtype {} linewidth 2 pointtype {} pointsize {}\n",
      i + 1, kColours[i % kColours.size()], i % 5 + 1, kPointTypes[i % kPointTypes.size()],
      1.4 - 0.05 * static_cast<double>(i % 6));
}

// "chimera, D=8 N=8 B=1 W=1, gpt2-1.3b on p100-daint" from a simulate JSON.
std::string run_caption(const nlohmann::json& run) {
  std::vector<std::string> parts;
  const std::string schedule = run.value("schedule", std::string());
  if (!schedule.empty()) parts.push_back(schedule);
  std::string shape;
  for (const auto& [key, letter] :
       {std::pair{"stages", "D"}, std::pair{"micro_batches", "N"},
        std::pair{"micro_batch_size", "B"}, std::pair{"data_parallel", "W"}}) {
    if (run.contains(key) && run.at(key).is_number_integer()) {
      shape += fmt::format("{}{}={}", shape.empty() ? "" : " ", letter, run.at(key).get<long>());
    }
  }
  if (!shape.empty()) parts.push_back(shape);
  const std::string model = run.value("model", std::string());
  const std::string hw = run.value("hardware", std::string());
  if (!model.empty()) parts.push_back(hw.empty() ? model : model + " on " + hw);
  if (model.empty() && run.value("mode", std::string()) != "real-cost") {
    parts.push_back("unit-cost mode");
  }
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string title_line(const std::string& title, const std::string& fallback,
                       const std::string& caption) {
  const std::string head = title.empty() ? fallback : title;
  return fmt::format("set title {}\n",
                     gnuplot_string(caption.empty() ? head : head + "\n" + caption));
}

// The GPU's memory as a dashed line (GiB) when the run names it, the y range over both it and
// the highest `peak` drawn (GiB), and for a run that does not fit a label saying so.
std::string gpu_memory_line(const nlohmann::json& run, double peak, GnuplotFigure& fig) {
  const bool has_capacity =
      run.contains("memory_capacity") && run.at("memory_capacity").is_number();
  const double capacity = has_capacity ? run.at("memory_capacity").get<double>() / kGiB : 0.0;
  const double top = std::max(peak, capacity);
  if (top > 0) fig.body += fmt::format("set yrange [0:{}]\n", top * 1.15);
  const bool fits = !run.contains("fits_memory") || !run.at("fits_memory").is_boolean() ||
                    run.at("fits_memory").get<bool>();
  if (!fits) {
    fig.body += fmt::format(
        "set label 1 {} at graph 0.02, graph 0.95 left front textcolor rgb '#cc3311'\n",
        gnuplot_string(
            has_capacity
                ? fmt::format("does not fit: peak {:.3g} GiB > {:.3g} GiB per GPU", peak, capacity)
                : std::string("does not fit in GPU memory")));
  }
  if (!has_capacity) return {};
  return fmt::format(
      ", \\\n     {} with lines linewidth 2 dashtype 2 linecolor rgb '#cc3311' "
      "title \"GPU memory\"",
      capacity);
}

// The base of a logarithmic x axis for these x values, or 0 for a linear one: log when they grow
// geometrically (a constant ratio r > 1 from each distinct value to the next, as a range
// 2:64:x2 gives; base 10 for r = 10, else 2), linear when evenly spaced, and otherwise log 2
// when they span 16x or more.
int log_x_base(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (xs.size() < 2 || xs.front() <= 0) return 0;
  auto all_equal = [&](auto step) {
    const double first = step(0);
    for (size_t i = 1; i + 1 < xs.size(); ++i) {
      if (std::abs(step(i) - first) > 1e-9 * std::abs(first)) return false;
    }
    return true;
  };
  if (xs.size() >= 3) {
    if (all_equal([&](size_t i) { return xs[i + 1] - xs[i]; })) return 0;
    if (all_equal([&](size_t i) { return xs[i + 1] / xs[i]; })) {
      return std::abs(xs[1] / xs[0] - 10.0) < 1e-9 ? 10 : 2;
    }
  }
  return xs.back() >= 16 * xs.front() ? 2 : 0;
}

struct Point2 {
  double x;
  double y;
  std::string x_text;
};

struct Series {
  std::string name;
  std::vector<Point2> points;
};

// The index of column `name`, kNone when the table lacks it.
size_t find_column(const CsvTable& table, const std::string& name) {
  const auto it = std::find(table.header.begin(), table.header.end(), name);
  return it == table.header.end() ? kNone : static_cast<size_t>(it - table.header.begin());
}

// The columns a line plot reads (kNone: not there, or no group asked for).
struct Columns {
  size_t x = kNone;
  size_t y = kNone;
  size_t group = kNone;
  size_t status = kNone;
};

// Inputs other than x and the group: constant ones go into the caption; varied ones either
// split the series (no reduction) or are what the reduction picks the best of.
struct OtherInputs {
  std::vector<std::string> fixed;  // name=value, for the caption
  std::vector<size_t> varied;      // columns
  std::string model, hardware;
};

// The caption names only options that apply in the run's mode and differ from their defaults
// (a scheme option: from what a schedule without it behaves as).
OtherInputs other_inputs(const CsvTable& table, const Columns& col, bool unit_cost) {
  OtherInputs in;
  for (const scenario::Option& option : scenario::options()) {
    const std::string& name = option.name();
    const size_t c = find_column(table, name);
    if (c == kNone || c == col.x || c == col.group || table.rows.empty()) continue;
    // An empty cell has no value (not applicable, or a run that never ran): it varies nothing.
    std::string first;
    for (const auto& row : table.rows) {
      if (first.empty()) first = row[c];
    }
    const bool constant = std::all_of(table.rows.begin(), table.rows.end(), [&](const auto& row) {
      return row[c].empty() || row[c] == first;
    });
    if (!constant) {
      // An input fixed by the series itself (chimera's pipelines, interleaved's chunks) names
      // nothing new: it splits no series.
      std::map<std::string, std::string> per_group;
      const size_t gc = col.group;
      const bool follows_group =
          gc != kNone && std::all_of(table.rows.begin(), table.rows.end(), [&](const auto& row) {
            return row[c].empty() || per_group.try_emplace(row[gc], row[c]).first->second == row[c];
          });
      if (!follows_group) in.varied.push_back(c);
      continue;
    }
    if (name == "model") {
      in.model = first;
      continue;
    }
    if (name == "hardware") {
      in.hardware = first;
      continue;
    }
    const bool applies = option.scope == scenario::Scope::UnitCost   ? unit_cost
                         : option.scope == scenario::Scope::RealCost ? !unit_cost
                                                                     : true;
    const std::string& neutral = option.scope == scenario::Scope::Scheme ? option.spec.unused_text
                                                                         : option.spec.default_text;
    if (applies && !first.empty() && first != neutral) {
      in.fixed.push_back(fmt::format("{}={}", name, first));
    }
  }
  return in;
}

// A (series, x) cell whose rows could not be drawn.
struct Missing {
  size_t series;
  std::string x_text;
  std::string why;  // oom, invalid, pruned or another status
};

// Points to draw, and the (series, x) cells whose rows could not be drawn, by status.
struct Collected {
  bool x_numeric = true;
  std::vector<std::string> categories;  // x values in order of appearance
  std::vector<Series> series;
  std::vector<Missing> missing;

  // Where x text `xt` (a value, or one of the categories) is drawn.
  double x_of(const std::string& xt) const {
    return x_numeric ? *parse_number(xt)
                     : static_cast<double>(std::find(categories.begin(), categories.end(), xt) -
                                           categories.begin());
  }
};

Collected collect_points(const CsvTable& table, std::string_view source, const LinePlotSpec& spec,
                         const Columns& col, const OtherInputs& in, double y_scale) {
  const bool split = spec.reduce == "none";
  auto series_of = [&](const std::vector<std::string>& row) {
    std::string name = col.group == kNone ? std::string() : row[col.group];
    if (split) {
      for (size_t c : in.varied) {
        name += fmt::format("{}{}={}", name.empty() ? "" : ", ", table.header[c], row[c]);
      }
    }
    return name.empty() ? label(spec.y) : name;
  };
  Collected out;
  for (const auto& row : table.rows) {
    out.x_numeric = out.x_numeric && parse_number(row[col.x]).has_value();
  }
  auto series_index = [&](const std::string& name) {
    for (size_t i = 0; i < out.series.size(); ++i)
      if (out.series[i].name == name) return i;
    out.series.push_back({name, {}});
    return out.series.size() - 1;
  };
  size_t drawn = 0;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    const std::string& xt = row[col.x];
    if (std::find(out.categories.begin(), out.categories.end(), xt) == out.categories.end()) {
      out.categories.push_back(xt);
    }
    const size_t si = series_index(series_of(row));
    const bool ok = col.status == kNone || row[col.status] == "ok";
    if (!ok || row[col.y].empty()) {
      std::string why = col.status == kNone || ok ? "no value" : row[col.status];
      why = why.substr(0, why.find(':'));
      out.missing.push_back({si, xt, why});
      continue;
    }
    const auto y = parse_number(row[col.y]);
    if (!y) {
      throw core::ConfigError(source, spec.y,
                              fmt::format("row {}: '{}' is not a number", r + 2, row[col.y]));
    }
    out.series[si].points.push_back({out.x_of(xt), *y * y_scale, xt});
    ++drawn;
  }
  if (drawn == 0) {
    throw core::ConfigError(source, spec.y, "no row with status ok and a value to plot");
  }
  constexpr size_t kMaxSeries = 24;
  if (out.series.size() > kMaxSeries) {
    throw core::ConfigError(
        source, spec.x,
        fmt::format("{} lines to draw (other columns vary too); choose a group or reduce to the "
                    "best row per point (min or max)",
                    out.series.size()));
  }
  return out;
}

// Each series' points by x; with a reduction, the best point per x.
void sort_and_reduce(std::vector<Series>& series, const std::string& reduce) {
  for (Series& s : series) {
    std::stable_sort(s.points.begin(), s.points.end(),
                     [](const Point2& a, const Point2& b) { return a.x < b.x; });
    if (reduce == "none") continue;
    std::vector<Point2> kept;
    for (const Point2& p : s.points) {
      if (!kept.empty() && kept.back().x == p.x) {
        const bool better = reduce == "max" ? p.y > kept.back().y : p.y < kept.back().y;
        if (better) kept.back() = p;
      } else {
        kept.push_back(p);
      }
    }
    s.points = std::move(kept);
  }
}

// A cell is missing only when its series has no point there at all; each once.
std::vector<Missing> missing_marks(const std::vector<Missing>& missing,
                                   const std::vector<Series>& series) {
  std::vector<Missing> marks;
  for (const Missing& m : missing) {
    const auto& pts = series[m.series].points;
    const bool has =
        std::any_of(pts.begin(), pts.end(), [&](const Point2& p) { return p.x_text == m.x_text; });
    const bool seen = std::any_of(marks.begin(), marks.end(), [&](const Missing& k) {
      return k.series == m.series && k.x_text == m.x_text;
    });
    if (!has && !seen) marks.push_back(m);
  }
  return marks;
}

// The series as drawn: `lines` with points, then those with marks only.
struct Shown {
  std::vector<Series> series;
  std::vector<size_t> of;  // of[i]: where series i is drawn (kNone: not at all)
  size_t lines = 0;
};

Shown shown_series(const std::vector<Series>& series, const std::vector<Missing>& marks) {
  // Identical series are drawn once, named together, so none hides under another.
  Shown shown;
  shown.of.assign(series.size(), kNone);
  for (size_t i = 0; i < series.size(); ++i) {
    if (series[i].points.empty()) continue;
    size_t j = 0;
    for (; j < shown.series.size(); ++j) {
      const auto& a = shown.series[j].points;
      const auto& b = series[i].points;
      const bool same = a.size() == b.size() &&
                        std::equal(a.begin(), a.end(), b.begin(), [](const auto& p, const auto& q) {
                          return p.x == q.x && p.y == q.y;
                        });
      if (same) break;
    }
    if (j == shown.series.size()) {
      shown.series.push_back(series[i]);
    } else {
      shown.series[j].name += " = " + series[i].name;
    }
    shown.of[i] = j;
  }
  // A series with no point at all (every row oom or invalid) has no line, only its marks: it
  // keeps a style and a key entry of its own, so the marks say whose they are.
  shown.lines = shown.series.size();
  for (const Missing& m : marks) {
    if (shown.of[m.series] != kNone) continue;
    shown.of[m.series] = shown.series.size();
    shown.series.push_back({series[m.series].name + " (nothing drawn)", {}});
  }
  return shown;
}

// Where series si's point at x is drawn: side by side within a category's box for bars.
struct BarGeometry {
  bool bars = false;
  double width = 0.0;
  size_t lines = 0;
  double x(size_t si, double at) const {
    return bars ? at - 0.4 + (static_cast<double>(std::min(si, lines - 1)) + 0.5) * width : at;
  }
};

// Each shown series' data block and plot clause (a key entry only for one with no line).
std::string plot_lines(const Shown& shown, const LinePlotSpec& spec, const Axis& y_axis,
                       const BarGeometry& geo, GnuplotFigure& fig) {
  std::string plots;
  for (size_t si = 0; si < shown.series.size(); ++si) {
    const std::string head = si == 0 ? "plot " : ", \\\n     ";
    if (si >= shown.lines) {
      plots += fmt::format("{}keyentry with points ls {} title {}", head, si + 1,
                           gnuplot_string(shown.series[si].name));
      continue;
    }
    fig.data += fmt::format("# {} = {}: {}, {}\n", spec.group.empty() ? "series" : spec.group,
                            shown.series[si].name, spec.x, y_axis.text);
    for (const Point2& p : shown.series[si].points) {
      fig.data += fmt::format("{} {} {}\n", geo.x(si, p.x), p.y, gnuplot_string(p.x_text));
    }
    fig.data += "\n\n";  // gnuplot: two blank lines end a data block (an `index`)
    plots += fmt::format("{}datafile index {} using 1:2 with {} ls {} title {}", head, si,
                         geo.bars ? "boxes fill solid 0.85 border lc rgb 'black'" : "linespoints",
                         si + 1, gnuplot_string(shown.series[si].name));
  }
  return plots;
}

// Missing cells: a mark at the bottom of the plot (second y axis, 0..1) in its series' colour,
// one point type per reason (a black key entry each); "N why" per reason, for the caption.
std::vector<std::string> plot_marks(const Collected& c, const Shown& shown,
                                    const std::vector<Missing>& marks,
                                    const std::vector<std::string>& reasons,
                                    const LinePlotSpec& spec, const BarGeometry& geo,
                                    GnuplotFigure& fig, std::string& plots) {
  std::vector<std::string> not_drawn;
  size_t block = shown.lines;
  for (size_t ri = 0; ri < reasons.size(); ++ri) {
    const int point_type = ri == 0 ? 2 : ri == 1 ? 1 : 3;
    size_t count = 0;
    for (size_t si = 0; si < shown.series.size(); ++si) {
      std::string points;
      for (const Missing& m : marks) {
        if (m.why != reasons[ri] || shown.of[m.series] != si) continue;
        ++count;
        points +=
            fmt::format("{} {} {}\n", geo.x(si, c.x_of(m.x_text)),
                        0.03 + 0.025 * static_cast<double>(m.series % 6), gnuplot_string(m.x_text));
      }
      if (points.empty()) continue;
      fig.data += fmt::format("# not drawn ({}): {}, position at the bottom\n{}\n\n", reasons[ri],
                              spec.x, points);
      plots += fmt::format(
          ", \\\n     datafile index {} using 1:2 axes x1y2 with points pointtype {} pointsize "
          "1.5 linewidth 2 linecolor rgb '{}' notitle",
          block++, point_type, kColours[si % kColours.size()]);
    }
    const std::string what = reasons[ri] == "oom" ? "out of memory" : reasons[ri];
    not_drawn.push_back(fmt::format("{} {}", count, what));
    plots += fmt::format(
        ", \\\n     keyentry with points pointtype {} pointsize 1.5 linewidth 2 linecolor "
        "rgb 'black' title {}",
        point_type, gnuplot_string(what + " (not drawn)"));
  }
  return not_drawn;
}

// Caption: model and hardware, the fixed inputs, what the reduction chose among, what was not
// drawn.
std::vector<std::string> caption_of(const OtherInputs& in, bool unit_cost, const CsvTable& table,
                                    const LinePlotSpec& spec,
                                    const std::vector<std::string>& not_drawn) {
  std::vector<std::string> caption;
  if (!in.model.empty()) {
    caption.push_back(in.hardware.empty() ? in.model : in.model + " on " + in.hardware);
  }
  if (in.model.empty() && unit_cost) caption.push_back("unit-cost mode");
  for (const auto& f : in.fixed)
    caption.push_back(f);
  if (spec.reduce != "none" && !in.varied.empty()) {
    std::string among;
    for (size_t c : in.varied)
      among += (among.empty() ? "" : ", ") + table.header[c];
    caption.push_back(fmt::format("{} of {} per point",
                                  spec.reduce == "max" ? "best (max)" : "best (min)", among));
  }
  if (!not_drawn.empty()) {
    std::string nd;
    for (const auto& n : not_drawn)
      nd += (nd.empty() ? "" : ", ") + n;
    caption.push_back("not drawn: " + nd + " (x at the bottom)");
  }
  return caption;
}

// Bars: one box per category, named on the x axis (turned when the names are long).
void bar_axis(const std::vector<std::string>& categories, double width, GnuplotFigure& fig) {
  fig.body += fmt::format("set xrange [-0.5:{}]\nset boxwidth {} absolute\nset yrange [0:*]\n",
                          static_cast<double>(categories.size()) - 0.5, width * 0.9);
  std::string tics;
  size_t longest = 0;
  for (size_t i = 0; i < categories.size(); ++i) {
    tics += fmt::format("{}{} {}", i == 0 ? "" : ", ", gnuplot_string(categories[i]), i);
    longest = std::max(longest, categories[i].size());
  }
  const bool rotate = static_cast<double>(longest * categories.size()) > 70.0;
  fig.body += fmt::format("set xtics ({}){}\n", tics, rotate ? " rotate by -35 left" : "");
  fig.body += "set grid ytics\n";
}

}  // namespace

GnuplotFigure line_plot(const CsvTable& table, std::string_view source, const LinePlotSpec& spec) {
  Columns col;
  col.x = table.column(source, spec.x);
  col.y = table.column(source, spec.y);
  col.group = spec.group.empty() ? kNone : table.column(source, spec.group);
  col.status = find_column(table, "status");
  if (spec.reduce != "none" && spec.reduce != "min" && spec.reduce != "max") {
    throw core::ConfigError::option(
        "reduce", fmt::format("must be one of none|min|max, got '{}'", spec.reduce));
  }
  // Real-cost rows name a model; unit-cost times are slots.
  const size_t model_c = find_column(table, "model");
  bool unit_cost = true;
  for (const auto& row : table.rows) {
    if (model_c != kNone && !row[model_c].empty()) unit_cost = false;
  }
  const Axis x_axis = axis_of(spec.x, unit_cost);
  const Axis y_axis = axis_of(spec.y, unit_cost);
  const OtherInputs in = other_inputs(table, col, unit_cost);
  Collected c = collect_points(table, source, spec, col, in, y_axis.scale);
  sort_and_reduce(c.series, spec.reduce);
  const std::vector<Missing> marks = missing_marks(c.missing, c.series);
  const Shown shown = shown_series(c.series, marks);

  GnuplotFigure fig;
  const BarGeometry geo{!c.x_numeric, 0.8 / static_cast<double>(std::max<size_t>(shown.lines, 1)),
                        shown.lines};
  std::string plots = plot_lines(shown, spec, y_axis, geo, fig);
  std::vector<std::string> reasons;
  for (const Missing& m : marks) {
    if (std::find(reasons.begin(), reasons.end(), m.why) == reasons.end()) {
      reasons.push_back(m.why);
    }
  }
  const std::vector<std::string> not_drawn =
      plot_marks(c, shown, marks, reasons, spec, geo, fig, plots);

  std::vector<double> xs;
  for (const auto& sr : c.series) {
    for (const Point2& p : sr.points)
      xs.push_back(p.x);
  }
  const int log_base = c.x_numeric ? log_x_base(std::move(xs)) : 0;
  fig.body += title_line(spec.title, fmt::format("{} vs {}", label(spec.y), label(spec.x)),
                         wrap(caption_of(in, unit_cost, table, spec, not_drawn), "; ", 100));
  fig.body += fmt::format("set xlabel {}\nset ylabel {}\n", gnuplot_string(x_axis.text),
                          gnuplot_string(y_axis.text));
  if (log_base > 0) fig.body += fmt::format("set logscale x {}\n", log_base);
  if (geo.bars) {
    bar_axis(c.categories, geo.width, fig);
  } else {
    fig.body += "set grid\n";
  }
  if (!marks.empty()) fig.body += "set y2range [0:1]\nunset y2tics\n";
  fig.body += shown.series.size() + reasons.size() > 12 ? "set key outside below maxcols 4"
                                                        : "set key outside right top";
  if (!spec.group.empty()) fig.body += fmt::format(" title {}", gnuplot_string(label(spec.group)));
  fig.body += "\n";
  for (size_t si = 0; si < shown.series.size(); ++si)
    fig.body += series_style(si);
  fig.body += plots + "\n";
  return fig;
}

GnuplotFigure worker_bar_plot(const nlohmann::json& run, std::string_view source, std::string field,
                              const std::string& title) {
  if (!run.is_object() || !run.contains("per_worker") || !run.at("per_worker").is_array() ||
      run.at("per_worker").empty()) {
    throw core::ConfigError(source, "per_worker", "expected the JSON result of `pipesim simulate`");
  }
  const auto& workers = run.at("per_worker");
  if (field.empty()) {
    field = workers.front().contains("peak_memory") ? "peak_memory" : "peak_activations";
  }
  // Bytes are drawn in GiB, with the GPU's capacity as a line when the run names it. Peak
  // memory is stacked by what holds it at the peak when the run has that split.
  const bool bytes = field == "peak_memory" || field == "static_memory";
  const double scale = bytes ? 1.0 / kGiB : 1.0;
  static constexpr std::array<const char*, 5> kParts{"weights", "gradients", "optimizer",
                                                     "activations", "other"};
  static constexpr std::array<const char*, 5> kPartColours{"#4477aa", "#66ccee", "#228833",
                                                           "#ee6677", "#bbbbbb"};
  const bool stacked =
      field == "peak_memory" && std::all_of(workers.begin(), workers.end(), [](const auto& w) {
        return w.contains("memory") && w.at("memory").is_object() &&
               std::all_of(kParts.begin(), kParts.end(), [&](const char* part) {
                 return w.at("memory").contains(part) && w.at("memory").at(part).is_number();
               });
      });
  GnuplotFigure fig;
  fig.data = fmt::format("# worker {}{}", field, bytes ? " (GiB)" : "");
  if (stacked) {
    fig.data += "; cumulative at the peak:";
    for (const char* part : kParts)
      fig.data += fmt::format(" +{}", part);
  }
  fig.data += "\n";
  double highest = 0.0;
  for (size_t i = 0; i < workers.size(); ++i) {
    const auto& w = workers[i];
    if (!w.contains(field) || !w.at(field).is_number()) {
      throw core::ConfigError(source, field,
                              fmt::format("per_worker[{}] has no number '{}'", i, field));
    }
    highest = std::max(highest, w.at(field).get<double>() * scale);
    fig.data += fmt::format("{} {}", w.value("worker", static_cast<int>(i)),
                            w.at(field).get<double>() * scale);
    double sum = 0.0;
    for (const char* part : stacked ? kParts : std::array<const char*, 5>{}) {
      if (part == nullptr) break;
      sum += w.at("memory").at(part).get<double>();
      fig.data += fmt::format(" {}", sum * scale);
    }
    fig.data += "\n";
  }
  const std::string what = field == "peak_memory" ? "peak memory (GiB)"
                           : field == "peak_activations"
                               ? "peak activations (micro-batch-stage units)"
                               : axis_of(field, false).text;
  fig.body += title_line(
      title, (stacked ? "peak memory per worker, split at its peak" : what + " per worker"),
      run_caption(run));
  fig.body += fmt::format("set xlabel \"worker (GPU of pipeline replica 0)\"\nset ylabel {}\n",
                          gnuplot_string(what));
  fig.body += "set style fill solid 0.85 border lc rgb 'black'\nset boxwidth 0.7\n";
  fig.body += "set grid ytics\nset yrange [0:*]\n";
  fig.body += fmt::format("set xrange [-0.6:{}]\n", static_cast<double>(workers.size()) - 0.4);
  if (workers.size() <= 16) {
    fig.body += "set xtics 1\n";
  } else if (workers.size() <= 64) {
    fig.body += "set xtics 4\nset mxtics 4\n";
  }
  std::string plots;
  if (stacked) {
    // Tallest first, each drawn over the one before: the visible bands stack.
    for (size_t k = kParts.size(); k-- > 0;) {
      plots +=
          fmt::format("{}datafile using 1:{} with boxes linecolor rgb '{}' title \"{}\"",
                      plots.empty() ? "plot " : ", \\\n     ", k + 3, kPartColours[k], kParts[k]);
    }
  } else {
    plots = "plot datafile using 1:2 with boxes linecolor rgb '#4477aa' notitle";
  }
  fig.body += "set key outside right top\n";
  if (bytes) plots += gpu_memory_line(run, highest, fig);
  fig.body += plots + "\n";
  return fig;
}

GnuplotFigure memory_plot(const nlohmann::json& run, std::string_view source,
                          const std::string& title) {
  if (!run.is_object() || !run.contains("per_worker") || !run.at("per_worker").is_array() ||
      run.at("per_worker").empty()) {
    throw core::ConfigError(source, "per_worker", "expected the JSON result of `pipesim simulate`");
  }
  const auto& workers = run.at("per_worker");
  // Each line runs on to the end of the run, so the last level shows as a step too.
  const double end = run.contains("total_time") && run.at("total_time").is_number()
                         ? run.at("total_time").get<double>()
                         : 0.0;
  // Up to 8 workers get a key entry each; more are coloured along a scale with a colour bar,
  // so the legend stays one bar however many workers there are.
  constexpr size_t kKeyed = 8;
  const bool keyed = workers.size() <= kKeyed;
  GnuplotFigure fig;
  std::string plots;
  double highest = 0.0, last_time = end;
  for (size_t i = 0; i < workers.size(); ++i) {
    const auto& w = workers[i];
    const int worker = w.value("worker", static_cast<int>(i));
    if (!w.contains("memory_timeline") || !w.at("memory_timeline").is_array() ||
        w.at("memory_timeline").empty()) {
      throw core::ConfigError(
          source, "memory_timeline",
          fmt::format("per_worker[{}] has none; simulate in real-cost mode with the "
                      "memory_timeline option and JSON output",
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
      highest = std::max(highest, last_b / kGiB);
      fig.data += fmt::format("{} {}\n", last_t, last_b / kGiB);
    }
    if (end > last_t) fig.data += fmt::format("{} {}\n", end, last_b / kGiB);
    last_time = std::max(last_time, last_t);
    fig.data += "\n\n";
    // A palette colour is fixed per line (`palette cb`): a third using column would be read as
    // data by `steps`, which takes two.
    plots += keyed
                 ? fmt::format("{}datafile index {} using 1:2 with steps ls {} title \"worker {}\"",
                               i == 0 ? "plot " : ", \\\n     ", i, i + 1, worker)
                 : fmt::format(
                       "{}datafile index {} using 1:2 with steps linewidth 1.5 "
                       "linecolor palette cb {} notitle",
                       i == 0 ? "plot " : ", \\\n     ", i, worker);
  }
  const bool real = run.value("mode", std::string()) == "real-cost";
  fig.body += title_line(title, "memory per worker over time", run_caption(run));
  fig.body += fmt::format("set xlabel {}\nset ylabel \"memory held (GiB)\"\n",
                          gnuplot_string(real ? "time (s)" : "time (slots)"));
  // The x axis is the run, not rounded out to the next tic.
  if (last_time > 0) fig.body += fmt::format("set xrange [0:{}]\n", last_time);
  fig.body += "set grid\nset yrange [0:*]\n";
  if (keyed) {
    fig.body += "set key outside right top\n";
    for (size_t i = 0; i < workers.size(); ++i)
      fig.body += series_style(i);
  } else {
    // The colour bar takes the right margin; the key (the GPU memory line) goes below.
    fig.body += fmt::format(
        "set key outside center bottom horizontal\n"
        "set palette defined (0 '#4477aa', 1 '#228833', 2 '#ccbb44', 3 '#ee6677')\n"
        "set cbrange [0:{}]\nset cblabel \"worker\"\nset colorbox vertical user origin "
        "screen 0.9, screen 0.2 size screen 0.02, screen 0.5\nset rmargin at screen 0.85\n",
        workers.size() - 1);
  }
  plots += gpu_memory_line(run, highest, fig);
  fig.body += plots + "\n";
  return fig;
}

}  // namespace pipesim::report
