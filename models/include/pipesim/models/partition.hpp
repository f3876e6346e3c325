#pragma once
// Layers → pipeline stages. Stage 0 also holds the embedding, the last stage the final norm and
// LM head. With several model chunks per worker, the stages here are the virtual stages.

#include <vector>

#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

enum class PartitionMode {
  Uniform,   //!< stage s gets layers [s·L/D, (s+1)·L/D)
  Balanced,  //!< contiguous layers minimising the largest stage cost (F + B FLOPs, head included)
};

struct StageLayers {
  int first_layer = 0;
  int layers = 0;  //!< at least one
  bool embedding = false;
  bool head = false;
};

//! Throws core::ConfigError("command line", "--stages", ...) when stages > L.
std::vector<StageLayers> partition_layers(const ModelSpec& m, int stages, PartitionMode mode,
                                          int micro_batch_size);

}  // namespace pipesim::models
