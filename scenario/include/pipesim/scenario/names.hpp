#pragma once
// Enum ↔ name tables, declared once: options parse names with them, reports print with them.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/sim/network.hpp"

namespace pipesim::scenario {

template <typename E, size_t Size>
using NameTable = std::array<std::pair<std::string_view, E>, Size>;

inline constexpr NameTable<models::Recompute, 3> kRecomputeNames{{
    {"none", models::Recompute::None},
    {"selective", models::Recompute::Selective},
    {"full", models::Recompute::Full},
}};
inline constexpr NameTable<models::PartitionMode, 5> kPartitionNames{{
    {"uniform", models::PartitionMode::Uniform},
    {"balanced", models::PartitionMode::Balanced},
    {"account-ends", models::PartitionMode::AccountEnds},
    {"account-embedding", models::PartitionMode::AccountEmbedding},
    {"account-loss", models::PartitionMode::AccountLoss},
}};
inline constexpr NameTable<hardware::PlacementMode, 2> kPlacementNames{{
    {"pipeline-major", hardware::PlacementMode::PipelineMajor},
    {"data-major", hardware::PlacementMode::DataMajor},
}};
//! Gradient all-reduce: eager (after a stage's last backward), flush (after all compute),
//! eager-opt (Chimera's eager-sync-opt) or blocking (asynchronous schedules: eager, and the
//! worker waits for it), sim/network.hpp; Scenario::perf.grad_sync.
inline constexpr NameTable<sim::GradSync, 4> kGradSyncNames{{
    {"eager", sim::GradSync::Eager},
    {"flush", sim::GradSync::Flush},
    {"eager-opt", sim::GradSync::EagerOpt},
    {"blocking", sim::GradSync::Blocking},
}};
//! The optimizer step of a split-backward schedule: post-validation (each worker steps once its
//! stages are reduced) or all-reduce (a synchronous global check first);
//! PerfSpec::optimizer_sync_all_reduce.
inline constexpr NameTable<bool, 2> kOptimizerSyncNames{
    {{"post-validation", false}, {"all-reduce", true}}};
//! What recomputation restores at once: one layer or the whole stage;
//! TrainingSetup::recompute_stage.
inline constexpr NameTable<bool, 2> kRecomputeScopeNames{{{"layer", false}, {"stage", true}}};
//! p2p transfers overlap compute (on) or block the sender (off); PerfSpec::overlap_p2p.
inline constexpr NameTable<bool, 2> kOnOffNames{{{"on", true}, {"off", false}}};

//! How MoE tokens travel to the experts (cost/expert_parallel.hpp TokenExchange):
//! TrainingSetup::moe_dispatcher.
inline constexpr NameTable<cost::MoeDispatcher, 3> kMoeDispatcherNames{{
    {"alltoall", cost::MoeDispatcher::AllToAll},
    {"deepep", cost::MoeDispatcher::DeepEP},
    {"hybridep", cost::MoeDispatcher::HybridEP},
}};

//! What the data-parallel ranks shard (cost/training_setup.hpp):
//! TrainingSetup::data_parallel_sharding.
inline constexpr NameTable<cost::DataParallelSharding, 4> kDataParallelShardingNames{{
    {"none", cost::DataParallelSharding::None},
    {"optimizer", cost::DataParallelSharding::Optimizer},
    {"gradients", cost::DataParallelSharding::Gradients},
    {"params", cost::DataParallelSharding::Params},
}};

inline constexpr NameTable<cost::MoeTokenDispatcher, 3> kMoeTokenDispatcherNames{{
    {"alltoall", cost::MoeTokenDispatcher::AllToAll},
    {"flex", cost::MoeTokenDispatcher::Flex},
    {"allgather", cost::MoeTokenDispatcher::AllGather},
}};

inline constexpr NameTable<models::Attention, 2> kAttentionNames{{
    {"standard", models::Attention::Standard},
    {"flash", models::Attention::Flash},
}};
inline constexpr NameTable<models::Precision, 6> kPrecisionNames{{
    {"fp32", models::Precision::FP32},
    {"fp16", models::Precision::FP16},
    {"bf16", models::Precision::BF16},
    {"fp8", models::Precision::FP8},
    {"mxfp8", models::Precision::MXFP8},
    {"nvfp4", models::Precision::NVFP4},
}};

//! The name of `value` in `table` (every enumerator has one).
template <typename E, size_t Size>
constexpr std::string_view name_of(const NameTable<E, Size>& table, E value) {
  for (const auto& [name, v] : table) {
    if (v == value) return name;
  }
  return {};
}

//! What the data-parallel ranks shard in `setup`, by name: the option, or what
//! distributed_optimizer implies (cost::sharding_of), for the reports.
inline std::string_view data_parallel_sharding_name(const cost::TrainingSetup& setup) {
  return name_of(kDataParallelShardingNames, cost::sharding_of(setup));
}

//! The value named `name`, if any.
template <typename E, size_t Size>
constexpr std::optional<E> value_of(const NameTable<E, Size>& table, std::string_view name) {
  for (const auto& [n, v] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

//! The names of `table`, in order, as "a|b|c" (for messages).
template <typename E, size_t Size>
std::string names_of(const NameTable<E, Size>& table) {
  std::string out;
  for (const auto& [name, _] : table) {
    if (!out.empty()) out += '|';
    out += name;
  }
  return out;
}

}  // namespace pipesim::scenario
