#pragma once
// Layers → pipeline stages. Stage 0 also holds the embedding, the last stage the final norm and
// LM head. With several model chunks per worker, the stages here are the virtual stages.

#include <vector>

#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

enum class PartitionMode {
  Uniform,   //!< stage s gets layers [s·L/D, (s+1)·L/D)
  Balanced,  //!< contiguous layers minimising the largest stage cost (F + B FLOPs, head included)
  //! Uniform over L + 2 slots, the embedding taking the first and the loss (final norm, LM head)
  //! the last: the first and last stages hold one layer fewer, or none when L + 2 = D
  //! (Megatron-LM's --account-for-embedding/loss-in-pipeline-split; Zero Bubble's split).
  AccountEnds,
  //! Uniform over L + 1 slots, the embedding taking the first (Megatron-LM's
  //! --account-for-embedding-in-pipeline-split alone).
  AccountEmbedding,
  //! Uniform over L + 1 slots, the loss taking the last (Megatron-LM's
  //! --account-for-loss-in-pipeline-split alone).
  AccountLoss,
};

struct StageLayers {
  int first_layer = 0;
  //! Transformer layers: at least one, except an end stage of an Account* mode (embedding or
  //! head only) and any stage of a layout (layout.hpp), where stages may be empty.
  int layers = 0;
  bool embedding = false;
  bool head = false;
  int mtp_layers = 0;  //!< multi-token-prediction layers (a layout's `m`), after the last layer
};

//! The most stages `mode` can split m's layers into: L, + 1 for each end an Account* mode counts.
int max_partition_stages(const ModelSpec& m, PartitionMode mode);

//! Throws core::ConfigError on option `stages` when stages > max_partition_stages(m, mode).
std::vector<StageLayers> partition_layers(const ModelSpec& m, int stages, PartitionMode mode,
                                          int micro_batch_size);

}  // namespace pipesim::models
