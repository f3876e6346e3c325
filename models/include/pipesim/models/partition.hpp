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
};

struct StageLayers {
  int first_layer = 0;
  int layers = 0;  //!< at least one, except an end stage of AccountEnds (embedding or head only)
  bool embedding = false;
  bool head = false;
};

//! Throws core::ConfigError("command line", "--stages", ...) when stages > L (AccountEnds:
//! stages > L + 2).
std::vector<StageLayers> partition_layers(const ModelSpec& m, int stages, PartitionMode mode,
                                          int micro_batch_size);

}  // namespace pipesim::models
