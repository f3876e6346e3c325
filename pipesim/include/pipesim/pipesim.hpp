#pragma once
// Everything an embedding program needs, in one include: `#include <pipesim/pipesim.hpp>` and
// link pipesim::pipesim (find_package(pipesim)). One block per module, in dependency order
// (docs/architecture.md §1); each header is listed so that a new public header is a visible
// edit here. Left out on purpose: pipesim/core/yaml_reader.hpp, the YAML parsers' helper,
// whose interface is yaml-cpp's own types.

// core/
#include "pipesim/core/assert.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/shipped_files.hpp"
#include "pipesim/core/units.hpp"
#include "pipesim/core/version.hpp"

// sim/
#include "pipesim/sim/cost_model.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/metrics.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/op.hpp"
#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"
#include "pipesim/sim/time_breakdown.hpp"

// schedules/
#include "pipesim/schedules/generators.hpp"
#include "pipesim/schedules/params_check.hpp"
#include "pipesim/schedules/recompute.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/schedules/schedule_file.hpp"

// models/
#include "pipesim/models/layer_kernels.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"

// hardware/
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"

// cost/
#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/tensor_parallel.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/cost/training_setup.hpp"

// calibrate/
#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/compute_parameters.hpp"
#include "pipesim/calibrate/efficiency_curve.hpp"
#include "pipesim/calibrate/hockney.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/calibrate/profile_yaml.hpp"
#include "pipesim/calibrate/report.hpp"
#include "pipesim/calibrate/samples.hpp"

// scenario/
#include "pipesim/scenario/names.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/scenario/scenario.hpp"

// report/
#include "pipesim/report/chrome_trace.hpp"
#include "pipesim/report/compare_report.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/gnuplot.hpp"
#include "pipesim/report/plot_data.hpp"
#include "pipesim/report/ranked_table.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/report/run_report.hpp"
#include "pipesim/report/search_report.hpp"
#include "pipesim/report/svg_timeline.hpp"
#include "pipesim/report/text_table.hpp"

// explore/
#include "pipesim/explore/part_file.hpp"
#include "pipesim/explore/part_merge.hpp"
#include "pipesim/explore/ranking.hpp"
#include "pipesim/explore/reorder_window.hpp"
#include "pipesim/explore/search.hpp"
#include "pipesim/explore/search_limits.hpp"
#include "pipesim/explore/search_space.hpp"
#include "pipesim/explore/spec_cache.hpp"
#include "pipesim/explore/sweep_file.hpp"
#include "pipesim/explore/sweep_grid.hpp"
#include "pipesim/explore/sweep_journal.hpp"
#include "pipesim/explore/sweep_runner.hpp"
#include "pipesim/explore/sweep_shard.hpp"
#include "pipesim/explore/sweep_stream.hpp"
#include "pipesim/explore/thread_pool.hpp"
#include "pipesim/explore/value_range.hpp"
