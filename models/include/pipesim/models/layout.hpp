#pragma once
// A pipeline layout written out by hand: Megatron-LM's --pipeline-model-parallel-layout
// (megatron/core/transformer/pipeline_parallel_layer_layout.py). The text lists the virtual
// stages in model order, separated by `|`; each stage is a run of symbols: `E` the embedding,
// `t` a transformer layer, `m` a multi-token-prediction layer, `L` the loss (final norm, LM
// head). `x*n` repeats one symbol (or one `|`) n times, `(...)*n` a group; commas are cosmetic.
// Example: "Et*3|(tt|)*29,m|L" is 32 stages: embedding + 3 layers, 29 stages of 2, MTP, loss.

#include <string_view>
#include <vector>

#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"

namespace pipesim::models {

//! What one virtual stage of a layout holds, counted.
struct LayoutStage {
  int embedding = 0;
  int transformer = 0;
  int mtp = 0;
  int loss = 0;
};

//! The layout's stages, repeats expanded. Throws core::ConfigError on option `layout` naming
//! the 1-based character position of a malformed text (unknown symbol, `*` without a count,
//! unbalanced parenthesis, expansion beyond kMaxLayoutSymbols).
std::vector<LayoutStage> parse_layout(std::string_view text);

inline constexpr long kMaxLayoutSymbols = 1'000'000;

//! The stages of `m` as the layout places them, checked as Megatron-LM checks them: `stages`
//! virtual stages (D·v), the embedding exactly once and first, the loss exactly once and last,
//! the model's L transformer layers and its MTP layers, every MTP layer after every transformer
//! layer. Empty stages are allowed. Throws core::ConfigError on option `layout`.
std::vector<StageLayers> layout_partition(const ModelSpec& m, std::string_view text, int stages);

}  // namespace pipesim::models
