#pragma once
// A sweep split over machines without MPI: shard i of K evaluates the grid indices j with
// j % K == i. Interleaved rather than in blocks, because neighbouring indices differ only in the
// fastest option (micro-batches, say), so every shard gets the same mix of cheap and expensive
// points and the shards take about as long.

#include <cstddef>
#include <string_view>

namespace pipesim::sweep {

//! Most shards one sweep may be split into (as many as the grid may have points).
inline constexpr size_t kMaxShards = 10'000'000;

struct Shard {
  size_t index = 0;  //!< i, in [0, count)
  size_t count = 1;  //!< K, in [1, kMaxShards]

  bool operator==(const Shard&) const = default;

  //! How many of a grid's `points` indices the shard holds: ⌈(points − i) / K⌉, 0 when i ≥ points.
  size_t size(size_t points) const {
    return index < points ? (points - index + count - 1) / count : 0;
  }
  //! The grid index of the shard's `position`-th point: i + position · K.
  size_t grid_index(size_t position) const { return index + position * count; }
};

//! `i/K` as written (decimal digits only) → a Shard. Throws core::ConfigError(source, field,
//! ...) for another syntax, K outside [1, kMaxShards] or i outside [0, K − 1].
Shard parse_shard(std::string_view source, std::string_view field, std::string_view text);

}  // namespace pipesim::sweep
