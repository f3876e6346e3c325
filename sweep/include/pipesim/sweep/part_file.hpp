#pragma once
// Part files: the rows of one shard of a sweep, tagged with their grid index, and enough about
// the sweep to refuse merging parts of different sweeps. The sweep journal has the same format
// (a part in progress). A part is text:
//
//   # pipesim-part 1 pipesim=0.1.0 spec=5d2b0c4f9a61e3d7 points=24 shard=1/3
//   grid_index,schedule,stages,...,status
//   1,gpipe,4,...,ok
//   4,gpipe,8,...,ok
//
// Line 1: the format version (1), the pipesim version that wrote it, the fingerprint of the
// sweep's spec (spec_fingerprint()), the grid's size and the shard i/K. Line 2: `grid_index`
// and the sweep CSV's columns. Then one row per grid index of the shard, ascending, each
// `index,` followed by exactly the line the single-process sweep CSV has for that index. Every
// line ends in '\n'; a quoted field may hold line breaks, as in any pipesim CSV.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/scenario/row.hpp"
#include "pipesim/sweep/sweep_grid.hpp"
#include "pipesim/sweep/sweep_shard.hpp"

namespace pipesim::sweep {

//! The part format this pipesim writes and reads.
inline constexpr int kPartFormat = 1;

//! 16 hex digits of FNV-1a over what decides the rows: every option's name, its value list and
//! whether it was given, and the pipesim version. (Not the contents of the model and hardware
//! files the options name: shard on machines that hold the same files.)
std::string spec_fingerprint(const SweepGrid& grid);

struct PartHeader {
  std::string version;  //!< of the pipesim that wrote the part
  std::string spec;     //!< spec_fingerprint() of its grid
  size_t points = 0;    //!< the grid's size
  Shard shard;

  bool operator==(const PartHeader&) const = default;
};

//! The header of shard `shard` of `grid`, written by this pipesim.
PartHeader part_header(const SweepGrid& grid, Shard shard);

//! The part's first two lines.
std::string part_preamble(const PartHeader& header);

//! The part line of grid index `index`: `index,` and the row's sweep CSV line.
std::string part_line(size_t index, const scenario::SweepRow& row);

//! One row of a part: its grid index and its sweep CSV fields (without the index).
struct PartRow {
  size_t index = 0;
  std::vector<std::string> fields;
  size_t line = 0;  //!< where it starts in the file, for messages
};

//! Reads a part (or a journal) row by row, holding one row at a time. Every problem is a
//! core::ConfigError naming the file and the line.
class PartReader {
 public:
  //! Opens `path` and reads the two header lines: a file that is not a part, of another part
  //! format, written by another pipesim version, or whose columns are not this pipesim's sweep
  //! columns is an error.
  explicit PartReader(const std::filesystem::path& path);

  const PartHeader& header() const { return header_; }
  const std::string& path() const { return path_; }

  //! The next row; false at the end of the file. A row without its line end is an error
  //! (truncated), unless `tail_ok`: then it ends the file and half_line() says so.
  bool next(PartRow& row, bool tail_ok = false);
  //! Bytes from the start of the file to the end of the last complete row (or the header).
  std::uint64_t complete_bytes() const { return complete_bytes_; }
  //! Whether the file ended in a row without its line end (only with next(row, true)).
  bool half_line() const { return half_line_; }
  //! The line the next row starts on.
  size_t line() const { return line_; }

  //! Throws core::ConfigError(path(), "line N", problem).
  [[noreturn]] void fail(size_t line, std::string_view problem) const;

 private:
  // One line without its '\n': false at the end of the file with nothing read. `ended` says
  // whether the line had its '\n'.
  bool read_line(std::string& text, bool& ended);

  std::string path_;
  std::ifstream in_;
  PartHeader header_;
  std::uint64_t complete_bytes_ = 0;
  size_t line_ = 1;
  size_t width_ = 0;  //!< fields of a row, grid_index included
  bool half_line_ = false;
};

}  // namespace pipesim::sweep
