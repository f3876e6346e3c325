#include "pipesim/report/svg_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace pipesim::report {
namespace {

using sim::OpKind;

constexpr double kLeft = 56, kTop = 44, kRow = 26, kGap = 6, kRight = 20, kCopyLane = 10;
constexpr const char* kToHost = "#e15759";    // D: device to host
constexpr const char* kFromHost = "#76b7b2";  // H: host to device

// [kind][shade]: shade 1 is the up pipeline (or the second chunk).
const char* colour(OpKind kind, int shade) {
  static constexpr std::array<std::array<const char*, 2>, 5> kColours{{
      {"#4e79a7", "#a0c4e8"},  // F
      {"#59a14f", "#a6d89a"},  // B
      {"#f28e2b", "#ffc48a"},  // I
      {"#b07aa1", "#dcb8d2"},  // W
      {"#9c9c9c", "#cfcfcf"},  // R
  }};
  return kColours[static_cast<size_t>(kind)][static_cast<size_t>(shade)];
}

// Up pipelines of a bidirectional schedule (the second half of the pipeline indices), or the odd
// chunks of a single-pipeline schedule with several chunks per worker.
int shade_of(const sim::Schedule& s, const sim::Task& t) {
  if (s.pipelines >= 2) return t.pipeline >= s.pipelines / 2 ? 1 : 0;
  return t.chunk % 2;
}

double nice_step(double span, int max_ticks) {
  const double raw = span / max_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

std::string num(double x) {
  return fmt::format("{:.2f}", x);
}

// The figure's geometry: time → x, worker → y, and what the legend has to explain.
struct Frame {
  const Result& run;
  double end = 1.0;        // the last task's end
  double scale = 1.0;      // px per unit of time
  bool real_cost = false;  // seconds, not slots
  // With activation offload each worker gets a copy lane under its compute row: device-to-host
  // copies in its upper half, host-to-device in its lower half.
  bool copies = false;
  double lane = 0.0;
  double width = 0.0, height = 0.0, rows_bottom = 0.0;
  bool used[5][2] = {};  // [kind][shade] drawn
  bool any_unit = false, any_reduce = false;

  explicit Frame(const Result& r) : run(r) {
    const sim::TaskGraph& g = run.graph;
    end = 0.0;
    for (sim::TaskId t = 0; t < g.num_tasks(); ++t)
      end = std::max(end, run.trace.timing[t].end);
    if (end <= 0.0) end = 1.0;
    // Unit-cost runs are drawn at 2–48 px per slot, like the papers' figures; real-cost runs
    // (in seconds) are scaled to the figure's width whatever their length.
    real_cost = run.perf.has_value();
    scale = real_cost ? 1400.0 / end : std::clamp(1400.0 / end, 2.0, 48.0);
    width = kLeft + end * scale + kRight;
    for (const sim::Task& task : g.tasks())
      copies = copies || task.kind == OpKind::Offload || task.kind == OpKind::Reload;
    lane = copies ? kCopyLane : 0.0;
    rows_bottom = kTop + g.workers() * (kRow + lane + kGap);
    height = rows_bottom + 70;
  }
  double x(double time) const { return kLeft + time * scale; }
  double y(int worker) const { return kTop + worker * (kRow + lane + kGap); }
};

// The canvas, the title with the run's bubble ratio and iteration time, and each worker's idle
// row.
void draw_header(const Frame& f, const std::string& title, std::string& out) {
  const Result& run = f.run;
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"Helvetica,Arial,sans-serif\" font-size=\"11\">\n",
      num(f.width), num(f.height), num(f.width), num(f.height));
  out += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", num(f.width),
                     num(f.height));
  out += fmt::format(
      "<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n"
      "<text x=\"{}\" y=\"34\" fill=\"#444\">bubble ratio {:.4f}, iteration time {}, grey = "
      "idle</text>\n",
      num(kLeft), title, num(kLeft), run.metrics.bubble_ratio,
      f.real_cost ? fmt::format("{:.4g} s", run.metrics.iteration_time)
                  : fmt::format("{:g} slots", run.metrics.iteration_time));
  for (int w = 0; w < run.graph.workers(); ++w) {
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">P{}</text>\n"
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#e6e6e6\"/>\n",
        num(kLeft - 8), num(f.y(w) + kRow / 2 + 4), w, num(f.x(0)), num(f.y(w)),
        num(f.end * f.scale), num(kRow));
  }
}

// One box per compute task, its micro-batch written in where it fits.
void draw_compute(Frame& f, std::string& out) {
  const Result& run = f.run;
  const sim::TaskGraph& g = run.graph;
  for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
    const sim::Task& task = g.task(t);
    if (!sim::is_compute(task.kind)) continue;
    const double x0 = f.x(run.trace.timing[t].start), x1 = f.x(run.trace.timing[t].end);
    const int shade = shade_of(run.schedule, task);
    f.used[static_cast<size_t>(task.kind)][shade] = true;
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"white\" "
        "stroke-width=\"0.8\"><title>{} on P{}: {} to {}</title></rect>\n",
        num(x0), num(f.y(task.worker)), num(std::max(x1 - x0, 0.8)), num(kRow),
        colour(task.kind, shade), sim::describe(task.op()), task.worker, run.trace.timing[t].start,
        run.trace.timing[t].end);
    if (x1 - x0 >= 11) {
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\">{}</text>\n",
                         num((x0 + x1) / 2), num(f.y(task.worker) + kRow / 2 + 4),
                         shade == 0 && task.kind != OpKind::Recompute ? "white" : "black",
                         task.micro_batch);
    }
  }
}

// An overlapped unit (sim::Join: DualPipe's F&B chunk) is one outlined box holding its ops,
// drawn in program order: they share the worker's compute, so the order inside is nominal and
// every result leaves at the box's end. Compute tasks are numbered worker by worker in program
// order, so a unit's ops are consecutive ids.
void draw_units(Frame& f, std::string& out) {
  const Result& run = f.run;
  const sim::TaskGraph& g = run.graph;
  for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
    const sim::Task& first = g.task(t);
    if (!sim::is_compute(first.kind) || !first.paired || first.join != sim::Join::None) continue;
    f.any_unit = true;
    sim::TaskId last = t;
    std::string names = sim::describe(first.op());
    while (last + 1 < g.num_tasks() && sim::is_compute(g.task(last + 1).kind) &&
           g.task(last + 1).join != sim::Join::None) {
      ++last;
      names +=
          (g.task(last).join == sim::Join::Pair ? " & " : ", ") + sim::describe(g.task(last).op());
    }
    const double x0 = f.x(run.trace.timing[t].start), x1 = f.x(run.trace.timing[last].end);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\" "
        "stroke-width=\"1.2\"><title>overlapped {} on P{}: {} to {}</title></rect>\n",
        num(x0), num(f.y(first.worker)), num(std::max(x1 - x0, 0.8)), num(kRow), names,
        first.worker, run.trace.timing[t].start, run.trace.timing[last].end);
  }
}

// Offload and reload copies in each worker's copy lane.
void draw_copies(const Frame& f, std::string& out) {
  const Result& run = f.run;
  const sim::TaskGraph& g = run.graph;
  for (sim::TaskId t = 0; f.copies && t < g.num_tasks(); ++t) {
    const sim::Task& task = g.task(t);
    if (task.kind != OpKind::Offload && task.kind != OpKind::Reload) continue;
    const bool to_host = task.kind == OpKind::Offload;
    const double x0 = f.x(run.trace.timing[t].start), x1 = f.x(run.trace.timing[t].end);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} of stage {} "
        "micro-batch {} on P{}: {} to {}</title></rect>\n",
        num(x0), num(f.y(task.worker) + kRow + (to_host ? 0.0 : kCopyLane / 2)),
        num(std::max(x1 - x0, 0.8)), num(kCopyLane / 2), to_host ? kToHost : kFromHost,
        to_host ? "offload" : "reload", task.stage, task.micro_batch, task.worker,
        run.trace.timing[t].start, run.trace.timing[t].end);
  }
}

// A red mark on every worker of a group where its all-reduce launches.
void draw_reduces(Frame& f, std::string& out) {
  const Result& run = f.run;
  const sim::TaskGraph& g = run.graph;
  for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
    const sim::Task& task = g.task(t);
    if (task.kind != OpKind::AllReduce || task.group < 0) continue;
    f.any_reduce = true;
    for (int w : g.group_workers()[static_cast<size_t>(task.group)]) {
      const double xs = f.x(run.trace.timing[t].start);
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" stroke-width=\"2\">"
          "<title>all-reduce of stage {} starts at {}</title></line>\n",
          num(xs), num(f.y(w) - 2), num(xs), num(f.y(w) + kRow + 2), task.stage,
          run.trace.timing[t].start);
    }
  }
}

void draw_time_axis(const Frame& f, std::string& out) {
  const double step = nice_step(f.end, 16);
  const double bottom = f.rows_bottom;
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n",
                     num(f.x(0)), num(bottom), num(f.x(f.end)), num(bottom));
  for (int i = 0; i * step <= f.end + 1e-9; ++i) {
    const double tx = f.x(i * step);
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        num(tx), num(bottom), num(tx), num(bottom + 4), num(tx), num(bottom + 16),
        fmt::format("{:g}", i * step));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", num(f.x(f.end)),
                     num(bottom + 30), f.real_cost ? "time (s)" : "time (slots)");
}

// What was drawn: each op kind and shade, the copies, units and all-reduce marks.
void draw_legend(const Frame& f, std::string& out) {
  static constexpr const char* kNames[] = {"F forward", "B backward", "I input grad",
                                           "W weight grad", "R recompute"};
  double lx = kLeft;
  const double ly = f.rows_bottom + 40;
  const bool bidirectional = f.run.schedule.pipelines >= 2;
  for (int k = 0; k < 5; ++k) {
    for (int shade = 0; shade < 2; ++shade) {
      if (!f.used[k][shade]) continue;
      const std::string label =
          std::string(kNames[k]) +
          (shade == 0 ? (f.used[k][1] ? (bidirectional ? " (down)" : " (chunk 0)") : "")
                      : (bidirectional ? " (up)" : " (chunk 1)"));
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
          "<text x=\"{}\" y=\"{}\">{}</text>\n",
          num(lx), num(ly), colour(static_cast<OpKind>(k), shade), num(lx + 16), num(ly + 10),
          label);
      lx += 24 + 6.5 * static_cast<double>(label.size());
    }
  }
  if (f.copies) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"6\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">offload (to host)</text>"
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"6\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">reload</text>\n",
        num(lx), num(ly + 3), kToHost, num(lx + 16), num(ly + 10), num(lx + 130), num(ly + 3),
        kFromHost, num(lx + 146), num(ly + 10));
    lx += 200;
  }
  if (f.any_unit) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"none\" stroke=\"black\"/>"
        "<text x=\"{}\" y=\"{}\">overlapped F&amp;B unit</text>\n",
        num(lx), num(ly), num(lx + 16), num(ly + 10));
    lx += 160;
  }
  if (f.any_reduce) {
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" stroke-width=\"2\"/>"
        "<text x=\"{}\" y=\"{}\">all-reduce launch</text>\n",
        num(lx + 6), num(ly - 1), num(lx + 6), num(ly + 13), num(lx + 14), num(ly + 10));
  }
}

}  // namespace

std::string svg_timeline(const Result& run, const std::string& title) {
  Frame frame(run);
  std::string out;
  draw_header(frame, title, out);
  draw_compute(frame, out);
  draw_units(frame, out);
  draw_copies(frame, out);
  draw_reduces(frame, out);
  draw_time_axis(frame, out);
  draw_legend(frame, out);
  out += "</svg>\n";
  return out;
}

}  // namespace pipesim::report
