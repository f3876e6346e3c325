#pragma once
// Sweep files: YAML maps from option names to values, e.g.
//   schedule: [gpipe, 1f1b]
//   stages: 4,8,16            # a list in one string, as on the command line
//   micro-batches: 8:64:x2    # a range
//   t-comm: 0.5               # a single value
// Keys are long option names without the leading dashes (`micro-batches`; `micro_batches`
// is accepted too). A value is a scalar, a sequence of scalars, or list/range text.

#include <map>
#include <string>
#include <vector>

namespace pipesim::sweep {

struct SweepFileEntry {
  std::string key;                  //!< as written in the file, for messages
  std::vector<std::string> values;  //!< expanded
};

//! Reads `path`: option name ("micro_batches") → entry. Throws core::ConfigError naming the file
//! and the key for an unreadable file, bad YAML, an unknown key, a repeated key, or a value that is
//! not a scalar or list of scalars or is a malformed list or range.
std::map<std::string, SweepFileEntry> load_sweep_file(const std::string& path);

}  // namespace pipesim::sweep
