#pragma once
// Schedules written by hand or by another tool, and the way back out.
//
// Two text formats are read (both validated; any problem is a core::ConfigError naming the file,
// the line or row and cell, and what is allowed):
//
//  - pipesim's own format (any extension but .csv):
//        # comments and blank lines are ignored
//        workers 4                 # D, required
//        micro-batches 8           # N, required
//        stages 4                  # optional, default = workers
//        pipelines 2               # optional, default 1
//        map 1 3 2 1 0             # optional: pipeline 1's worker for stages 0..stages-1
//                                  #   (default: stage s on worker s mod workers)
//        assign 0 0 1 1 0 0 1 1    # optional: pipeline of each micro-batch (default 0)
//        worker 0: F0 F1 B0 F2@4 B1
//    A worker line lists its ops in order: kind F|B|I|W|R, micro-batch, and "@stage" when the
//    worker holds more than one stage. I/W ops make the backward split; R ops turn on
//    recomputation.
//
//  - PyTorch's pipelining CSV action format (torch.distributed.pipelining, .csv): one row per
//    rank, one cell per step, cells "<stage><action><micro-batch>" with action F, B (full
//    backward), I (input), W (weight), e.g. 0F1, 1I0, 0W2, 1B2; an empty cell is an idle step.
//    Communication and sharding cells (0SEND_F0, 1RECV_B2, 0REDUCE_GRAD, 0UNSHARD) are accepted
//    and ignored. A stage that appears on several ranks (bidirectional schedules) is resolved
//    per micro-batch: micro-batches whose stages sit on the same ranks form one pipeline. An
//    overlapped pair "(0F3;3I1;3W1)OVERLAP_F_B" (forwards, then the backward half) is one unit
//    (sim::Join), as to_pytorch_csv writes the overlapped units of DualPipe.
//
// to_pytorch_csv writes any schedule without recomputation in PyTorch's format (stages of
// pipeline p > 0 keep their stage index; the rank placement tells the pipelines apart on the
// way back in).

#include <filesystem>
#include <string>
#include <string_view>

#include "pipesim/core/budget.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::schedules {

// Both parsers accept and drop a leading UTF-8 BOM (as every pipesim reader does), and check the
// declared sizes against the ops actually listed before any stages × micro-batches table is
// sized: a schedule that declares more than its ops can cover is a ConfigError, one whose task
// count is above `budget` a core::BudgetError.

//! Parses pipesim's format; `source` names the input in errors.
sim::Schedule parse_schedule_text(std::string_view text, std::string_view source,
                                  const core::Budget& budget = {});

//! Parses PyTorch's CSV action format; `source` names the input in errors.
sim::Schedule parse_pytorch_csv(std::string_view text, std::string_view source,
                                const core::Budget& budget = {});

//! Reads `path` (.csv: PyTorch's format, otherwise pipesim's), then checks the schedule is
//! complete and deadlock-free (sim::validate). Throws core::ConfigError.
sim::Schedule load_schedule_file(const std::filesystem::path& path,
                                 const core::Budget& budget = {});

//! One row per worker, its compute ops in program order. Throws core::ConfigError for a
//! schedule with recomputation (PyTorch's format has no such action).
std::string to_pytorch_csv(const sim::Schedule& schedule);

}  // namespace pipesim::schedules
