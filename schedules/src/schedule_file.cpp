#include "pipesim/schedules/schedule_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::schedules {
namespace {

using sim::Op;
using sim::OpKind;

constexpr int kMaxWorkers = kMaxStages;
// The end of PyTorch's overlapped forward-and-backward action, "(0F3;3B1)OVERLAP_F_B".
constexpr std::string_view kOverlapCell = ")OVERLAP_F_B";
constexpr int kMaxOpsPerFile = 1 << 24;
// Declared sizes whose (micro-batch, stage) tables stay this small need no up-front check.
constexpr double kSmallTable = 1 << 16;

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    out.push_back(
        s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
      ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// A whole-string non-negative integer no larger than `max`.
bool parse_int(std::string_view s, int max, int& value) {
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < 0 || v > max) return false;
  value = v;
  return true;
}

// Fills the fields every schedule needs from what was declared, then validates. The validator
// sizes a table of stages × micro-batches × kinds: before it is built, the ops listed must be
// able to cover what was declared (every (micro-batch, stage) needs a forward and a backward),
// so a few bytes declaring 4096 stages × 2^20 micro-batches are refused, not allocated.
sim::Schedule finish(sim::Schedule s, std::string_view source, std::size_t listed_ops,
                     const core::Budget& budget) {
  s.micro_batches = s.total_micro_batches();
  const double needed = 2.0 * static_cast<double>(s.micro_batches) * s.virtual_stages;
  // Small tables are left to the validator, whose messages name the missing op.
  if (static_cast<double>(listed_ops) < needed && needed > kSmallTable) {
    throw core::ConfigError(
        source, "schedule",
        fmt::format("declares {} micro-batches x {} stages, which needs at least {:.0f} compute "
                    "ops (a forward and a backward each), but lists {}",
                    s.micro_batches, s.virtual_stages, needed, listed_ops));
  }
  // Each compute op is one task, and at most one transfer follows it.
  core::check_task_budget(source, "schedule", 2.0 * static_cast<double>(listed_ops), budget);
  sim::check_structure(s, source, "schedule").require();
  return s;
}

[[noreturn]] void fail(std::string_view source, std::string_view where, std::string_view problem) {
  throw core::ConfigError(source, where, problem);
}

}  // namespace

sim::Schedule parse_schedule_text(std::string_view text, std::string_view source,
                                  const core::Budget& budget) {
  text = core::strip_bom(text);
  int workers = -1, micro = -1, stages = -1, pipelines = 1;
  std::map<int, std::vector<int>> maps;
  std::vector<int> assign;
  struct Token {
    int line;
    std::string_view text;
  };
  std::map<int, std::vector<Token>> worker_ops;
  int line_no = 0, total_ops = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++line_no;
    std::string_view line = raw.substr(0, raw.find('#'));
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = fmt::format("line {}", line_no);
    const auto w = words(line);
    const std::string_view key = w[0];
    auto number = [&](std::string_view word, int max, std::string_view what) {
      int v = 0;
      if (!parse_int(word, max, v)) {
        fail(source, where,
             fmt::format("{} must be an integer in [0, {}], got '{}'", what, max, word));
      }
      return v;
    };
    if (key == "workers" || key == "micro-batches" || key == "stages" || key == "pipelines") {
      if (w.size() != 2) fail(source, where, fmt::format("'{}' takes one integer", key));
      const int max = key == "micro-batches" ? kMaxMicroBatches : kMaxWorkers;
      const int v = number(w[1], max, key);
      if (v < 1) fail(source, where, fmt::format("{} must be at least 1", key));
      (key == "workers"         ? workers
       : key == "micro-batches" ? micro
       : key == "stages"        ? stages
                                : pipelines) = v;
    } else if (key == "map") {
      if (w.size() < 3) fail(source, where, "'map' takes a pipeline and one worker per stage");
      const int p = number(w[1], kMaxWorkers, "pipeline");
      auto& m = maps[p];
      m.clear();
      for (size_t i = 2; i < w.size(); ++i)
        m.push_back(number(w[i], kMaxWorkers, "worker"));
    } else if (key == "assign") {
      assign.clear();
      for (size_t i = 1; i < w.size(); ++i)
        assign.push_back(number(w[i], kMaxWorkers, "pipeline"));
    } else if (key == "worker") {
      if (w.size() < 2 || w[1].empty() || w[1].back() != ':') {
        fail(source, where, "expected 'worker <index>: <ops>', e.g. 'worker 0: F0 F1 B0 B1'");
      }
      const int id = number(w[1].substr(0, w[1].size() - 1), kMaxWorkers, "worker");
      if (worker_ops.count(id) != 0) fail(source, where, fmt::format("worker {} listed twice", id));
      auto& ops = worker_ops[id];
      for (size_t i = 2; i < w.size(); ++i) {
        if (++total_ops > kMaxOpsPerFile) fail(source, where, "too many ops");
        ops.push_back({line_no, w[i]});
      }
    } else {
      fail(source, where,
           fmt::format("unknown keyword '{}' (allowed: workers, micro-batches, stages, pipelines, "
                       "map, assign, worker)",
                       key));
    }
  }
  if (workers < 1) fail(source, "workers", "missing: declare 'workers <D>'");
  if (micro < 1) fail(source, "micro-batches", "missing: declare 'micro-batches <N>'");
  if (stages < 0) stages = workers;
  sim::Schedule s;
  s.name = "file";
  s.workers = workers;
  s.virtual_stages = stages;
  s.pipelines = pipelines;
  s.stage_worker.assign(static_cast<size_t>(pipelines),
                        std::vector<int>(static_cast<size_t>(stages)));
  for (int p = 0; p < pipelines; ++p) {
    for (int k = 0; k < stages; ++k)
      s.stage_worker[static_cast<size_t>(p)][static_cast<size_t>(k)] = k % workers;
  }
  for (const auto& [p, m] : maps) {
    if (p >= pipelines)
      fail(source, "map", fmt::format("pipeline {} outside [0, {}]", p, pipelines - 1));
    if (static_cast<int>(m.size()) != stages) {
      fail(source, "map",
           fmt::format("pipeline {} maps {} stages, expected {}", p, m.size(), stages));
    }
    s.stage_worker[static_cast<size_t>(p)] = m;
  }
  if (!assign.empty() && static_cast<int>(assign.size()) != micro) {
    fail(source, "assign",
         fmt::format("lists {} micro-batches, expected {}", assign.size(), micro));
  }
  s.micro_batch_pipeline =
      assign.empty() ? std::vector<int>(static_cast<size_t>(micro), 0) : assign;
  s.program.assign(static_cast<size_t>(workers), {});
  for (const auto& [id, tokens] : worker_ops) {
    if (id >= workers) {
      fail(source, fmt::format("line {}", tokens.empty() ? 0 : tokens.front().line),
           fmt::format("worker {} outside [0, {}]", id, workers - 1));
    }
    for (const Token& t : tokens) {
      const std::string where = fmt::format("line {}", t.line);
      auto bad = [&] {
        fail(source, where,
             fmt::format("op '{}': expected <F|B|I|W|R><micro-batch>[@<stage>], e.g. F3 or B2@5",
                         t.text));
      };
      OpKind kind{};
      if (t.text.size() < 2 || !sim::parse_compute_letter(t.text[0], kind)) bad();
      const auto at = t.text.find('@');
      int mb = 0, stage = -1;
      if (!parse_int(
              t.text.substr(1, at == std::string_view::npos ? std::string_view::npos : at - 1),
              kMaxMicroBatches, mb)) {
        bad();
      }
      if (at != std::string_view::npos && !parse_int(t.text.substr(at + 1), kMaxWorkers, stage))
        bad();
      if (mb >= micro) {
        fail(source, where, fmt::format("op '{}': micro-batch outside [0, {}]", t.text, micro - 1));
      }
      const int p = s.micro_batch_pipeline[static_cast<size_t>(mb)];
      if (p < 0 || p >= pipelines) {
        fail(source, "assign",
             fmt::format("micro-batch {} in pipeline {}, outside [0, {}]", mb, p, pipelines - 1));
      }
      if (stage < 0) {  // the worker's only stage in that pipeline
        const auto& map = s.stage_worker[static_cast<size_t>(p)];
        const auto n_here = std::count(map.begin(), map.end(), id);
        if (n_here != 1) {
          fail(source, where,
               fmt::format("op '{}': worker {} holds {} stages of pipeline {}; write {}@<stage>",
                           t.text, id, n_here, p, t.text));
        }
        stage = static_cast<int>(std::find(map.begin(), map.end(), id) - map.begin());
      }
      if (stage >= stages) {
        fail(source, where, fmt::format("op '{}': stage outside [0, {}]", t.text, stages - 1));
      }
      if (kind == OpKind::BackwardInput || kind == OpKind::BackwardWeight) s.split_backward = true;
      if (kind == OpKind::Recompute) s.recompute = true;
      s.program[static_cast<size_t>(id)].push_back(
          Op{kind, p, stage, stages > workers ? stage / workers : 0, mb});
    }
  }
  return finish(std::move(s), source, static_cast<std::size_t>(total_ops), budget);
}

namespace {

// One compute action of a PyTorch schedule CSV: its rank (row), kind, stage, micro-batch and
// place in an overlapped pair.
struct CsvCell {
  int rank;
  OpKind kind;
  int stage;
  int mb;
  sim::Join join;
};

// One action of cell text `a` on rank `rank` into `cell`; false for communication and sharding,
// which pipesim derives from the data edges. `bad` reports the cell (it throws).
template <class Bad>
bool csv_action(std::string_view a, int rank, CsvCell& cell, const Bad& bad) {
  size_t i = 0;
  while (i < a.size() && a[i] >= '0' && a[i] <= '9')
    ++i;
  size_t j = i;
  while (j < a.size() && ((a[j] >= 'A' && a[j] <= 'Z') || a[j] == '_'))
    ++j;
  const std::string_view stage_s = a.substr(0, i), action = a.substr(i, j - i), mb_s = a.substr(j);
  int stage = 0, mb = 0;
  const bool stage_ok = parse_int(stage_s, kMaxWorkers, stage);
  const bool mb_ok = mb_s.empty() || parse_int(mb_s, kMaxMicroBatches - 1, mb);
  if (!stage_ok || !mb_ok || action.empty()) bad();
  OpKind kind{};
  if (action == "F") {
    kind = OpKind::Forward;
  } else if (action == "B") {
    kind = OpKind::Backward;
  } else if (action == "I") {
    kind = OpKind::BackwardInput;
  } else if (action == "W") {
    kind = OpKind::BackwardWeight;
  } else if (action == "SEND_F" || action == "RECV_F" || action == "SEND_B" || action == "RECV_B" ||
             action == "REDUCE_GRAD" || action == "UNSHARD" || action == "RESHARD") {
    return false;
  } else {
    bad();
  }
  if (mb_s.empty()) bad();
  cell = {rank, kind, stage, mb, sim::Join::None};
  return true;
}

// The compute actions of the non-empty cell `c` at (row, column): one, none (communication),
// or an overlapped pair's.
std::vector<CsvCell> csv_cell_actions(std::string_view c, int row, int column,
                                      std::string_view source) {
  auto bad = [&] {
    fail(source, fmt::format("row {} column {}", row, column),
         fmt::format("cell '{}': expected <stage><F|B|I|W><micro-batch> (e.g. 0F1, 1I0, 0W2), "
                     "an overlapped pair (e.g. (0F3;3B1)OVERLAP_F_B) or a communication "
                     "action (e.g. 0SEND_F0, 1RECV_B2)",
                     c));
  };
  std::vector<CsvCell> actions;
  if (c.front() == '(') {
    // PyTorch's OVERLAP_F_B: forwards, then the backward half they overlap with.
    if (c.size() <= kOverlapCell.size() + 1 || !c.ends_with(kOverlapCell)) bad();
    bool backward_half = false;
    for (std::string_view a : split(c.substr(1, c.size() - 1 - kOverlapCell.size()), ';')) {
      CsvCell cell{};
      if (!csv_action(trim(a), row - 1, cell, bad)) bad();
      if (!actions.empty()) {
        const bool is_backward = cell.kind != OpKind::Forward;
        if (backward_half && !is_backward) bad();
        cell.join = is_backward && !backward_half ? sim::Join::Pair : sim::Join::Half;
        backward_half = backward_half || is_backward;
      } else if (cell.kind != OpKind::Forward) {
        bad();
      }
      actions.push_back(cell);
    }
    if (!backward_half) bad();
  } else {
    CsvCell cell{};
    if (csv_action(c, row - 1, cell, bad)) actions.push_back(cell);
  }
  return actions;
}

// Every compute action of the file's rows (one row per rank), in order; `stages` and `micro`
// the most any reaches.
std::vector<CsvCell> csv_cells(const std::vector<std::string_view>& lines, std::string_view source,
                               int& stages, int& micro) {
  std::vector<CsvCell> cells;
  int row = 0;
  for (std::string_view line : lines) {
    ++row;
    int column = 0;
    for (std::string_view raw : split(line, ',')) {
      ++column;
      const std::string_view c = trim(raw);
      if (c.empty()) continue;
      if (cells.size() >= static_cast<size_t>(kMaxOpsPerFile))
        fail(source, "cells", "too many cells");
      for (const CsvCell& cell : csv_cell_actions(c, row, column, source)) {
        cells.push_back(cell);
        stages = std::max(stages, cell.stage + 1);
        micro = std::max(micro, cell.mb + 1);
      }
    }
  }
  return cells;
}

// The schedule's shape from where each (micro-batch, stage) runs: its workers, stages, and a
// pipeline per distinct placement of the micro-batches.
sim::Schedule csv_placement(const std::vector<CsvCell>& cells, int ranks, int stages, int micro,
                            std::string_view source) {
  std::vector<int> where(static_cast<size_t>(micro) * static_cast<size_t>(stages), -1);
  for (const CsvCell& c : cells) {
    int& w = where[static_cast<size_t>(c.mb) * static_cast<size_t>(stages) +
                   static_cast<size_t>(c.stage)];
    if (w >= 0 && w != c.rank) {
      fail(source, fmt::format("row {}", c.rank + 1),
           fmt::format("stage {} of micro-batch {} also appears on rank {}: a stage's ops for one "
                       "micro-batch must be on one rank",
                       c.stage, c.mb, w));
    }
    w = c.rank;
  }
  sim::Schedule s;
  s.name = "file";
  s.workers = ranks;
  s.virtual_stages = stages;
  std::map<std::vector<int>, int> pipeline_of;
  s.micro_batch_pipeline.resize(static_cast<size_t>(micro));
  for (int m = 0; m < micro; ++m) {
    std::vector<int> map(where.begin() + static_cast<long>(m) * stages,
                         where.begin() + static_cast<long>(m + 1) * stages);
    for (int k = 0; k < stages; ++k) {
      if (map[static_cast<size_t>(k)] < 0) {
        fail(source, "rows", fmt::format("micro-batch {} never runs stage {}", m, k));
      }
    }
    auto [it, inserted] = pipeline_of.emplace(map, static_cast<int>(s.stage_worker.size()));
    if (inserted) s.stage_worker.push_back(map);
    s.micro_batch_pipeline[static_cast<size_t>(m)] = it->second;
  }
  s.pipelines = static_cast<int>(s.stage_worker.size());
  return s;
}

}  // namespace

sim::Schedule parse_pytorch_csv(std::string_view text, std::string_view source,
                                const core::Budget& budget) {
  text = core::strip_bom(text);
  std::vector<std::string_view> lines = split(text, '\n');
  while (!lines.empty() && trim(lines.back()).empty())
    lines.pop_back();
  if (lines.empty()) fail(source, "row 1", "empty file: expected one row of actions per rank");
  if (static_cast<int>(lines.size()) > kMaxWorkers) {
    fail(source, "rows", fmt::format("{} rows, at most {} ranks", lines.size(), kMaxWorkers));
  }
  int stages = 0, micro = 0;
  const std::vector<CsvCell> cells = csv_cells(lines, source, stages, micro);
  const int ranks = static_cast<int>(lines.size());
  if (cells.empty()) fail(source, "rows", "no compute actions (F, B, I, W) found");
  // The placement table is micro-batches × stages: refuse before sizing it when the cells
  // cannot cover it (one cell `4095F1048574` would otherwise ask for 17 GB).
  if (static_cast<double>(cells.size()) < 2.0 * micro * stages &&
      2.0 * micro * stages > kSmallTable) {
    fail(source, "rows",
         fmt::format("actions reach stage {} and micro-batch {}, which needs at least {:.0f} "
                     "compute cells (a forward and a backward each), but the file has {}",
                     stages - 1, micro - 1, 2.0 * micro * stages, cells.size()));
  }
  sim::Schedule s = csv_placement(cells, ranks, stages, micro, source);
  s.program.assign(static_cast<size_t>(ranks), {});
  for (const CsvCell& c : cells) {
    if (c.kind == OpKind::BackwardInput || c.kind == OpKind::BackwardWeight)
      s.split_backward = true;
    s.program[static_cast<size_t>(c.rank)].push_back(
        Op{c.kind, s.micro_batch_pipeline[static_cast<size_t>(c.mb)], c.stage,
           stages > ranks ? c.stage / ranks : 0, c.mb, c.join});
  }
  return finish(std::move(s), source, cells.size(), budget);
}

sim::Schedule load_schedule_file(const std::filesystem::path& path, const core::Budget& budget) {
  const std::string source = path.string();
  const std::string text = core::read_text_file(path);
  sim::Schedule s = path.extension() == ".csv" ? parse_pytorch_csv(text, source, budget)
                                               : parse_schedule_text(text, source, budget);
  sim::check_acyclic(sim::build_task_graph(s), source, "schedule").require();
  return s;
}

std::string to_pytorch_csv(const sim::Schedule& s) {
  if (s.recompute) {
    throw core::ConfigError("PyTorch CSV export", "schedule " + s.name,
                            "has recomputation (R), which PyTorch's action format cannot express");
  }
  std::string out;
  for (const auto& ops : s.program) {
    bool backward_half = false;  // in an overlapped unit's second half
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const char kind = op.kind == OpKind::Forward         ? 'F'
                        : op.kind == OpKind::Backward      ? 'B'
                        : op.kind == OpKind::BackwardInput ? 'I'
                                                           : 'W';
      const bool opens = i + 1 < ops.size() && ops[i + 1].join != sim::Join::None;
      const bool closes = op.join != sim::Join::None && !opens;
      // An overlapped unit is one OVERLAP_F_B cell, which reads back as forwards, then the
      // backward half: a unit of another shape has no such cell.
      if (op.join == sim::Join::Pair) backward_half = true;
      if (op.join == sim::Join::None) backward_half = false;
      if ((opens || op.join != sim::Join::None) && (op.kind == OpKind::Forward) == backward_half) {
        throw core::ConfigError(
            "PyTorch CSV export", "schedule " + s.name,
            fmt::format("overlaps {} in a unit that is not forwards then backwards, which "
                        "PyTorch's OVERLAP_F_B cannot express",
                        sim::describe(op)));
      }
      out += i == 0 ? "" : (op.join != sim::Join::None ? ";" : ",");
      if (opens && op.join == sim::Join::None) out += '(';
      out += fmt::format("{}{}{}", op.stage, kind, op.micro_batch);
      if (closes) out += kOverlapCell;
    }
    out += '\n';
  }
  return out;
}

}  // namespace pipesim::schedules
