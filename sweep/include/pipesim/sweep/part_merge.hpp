#pragma once
// `pipesim merge`: part files (part_file.hpp) back into the one sweep CSV. Row j of the grid
// is in the part of shard j % K, and each part lists its rows by ascending index, so the merge
// takes one row from each part in turn: a K-way merge of streams holding one row per part,
// whatever the grid's size.

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "pipesim/sweep/part_file.hpp"

namespace pipesim::sweep {

//! Where merged text goes, in order (an core::AtomicFileWriter, stdout).
using TextSink = std::function<void(std::string_view)>;

//! Writes through `write` the CSV the single-process sweep writes for the parts' grid: its
//! header, then the row of every grid index in order. `parts` (in any order) must be every
//! shard of one sweep exactly once, written by this pipesim version, each complete with every
//! index of its shard once. Throws core::ConfigError naming the file (or the missing shard) and
//! the problem. The headers are all checked before anything is written; a problem in the rows
//! can come after some text went to `write`, so write to an AtomicFileWriter, which leaves no
//! file unless committed.
void merge_parts(const std::vector<std::filesystem::path>& parts, const TextSink& write);

//! Copies part `path` through `write`, checking that its header is `expected` and that it holds
//! every index of its shard once, in order (a finished journal becoming a part file). Throws
//! core::ConfigError naming the file.
void copy_part(const std::filesystem::path& path, const PartHeader& expected,
               const TextSink& write);

}  // namespace pipesim::sweep
