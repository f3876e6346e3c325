#pragma once
// The cartesian product a sweep runs. Row order is fixed by the run-option table, not by how
// the options were written: the first option of scenario::options() (`schedule`) varies slowest,
// the last fastest, and each option's values keep the order they were given in (ranges
// ascending). So `--stages 4,8 --micro-batches 8,16` gives (4,8) (4,16) (8,8) (8,16).

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "pipesim/scenario/row.hpp"
#include "pipesim/sweep/bound_values.hpp"

namespace pipesim::sweep {

//! Most configurations one sweep may hold.
inline constexpr size_t kMaxSweepPoints = 10'000'000;

class SweepGrid {
 public:
  //! `values[i]` lists the values of run option i; every list is non-empty. `given` names the
  //! options a user set explicitly (the others hold their default).
  explicit SweepGrid(std::vector<std::vector<std::string>> values,
                     std::vector<std::string> given = {});

  //! Number of configurations (the product of the list lengths).
  size_t size() const { return size_; }
  //! Configuration `index` in row order (see the file comment). Requires index < size().
  scenario::Point point(size_t index) const;
  //! Applies configuration `index` to `s` from values parsed once, when the grid was made
  //! (BoundValues): what applying point(index)'s texts does.
  void apply(scenario::Scenario& s, size_t index) const;
  //! The values of each option, in options() order.
  const std::vector<std::vector<std::string>>& values() const { return values_; }
  //! Options given explicitly: a point where one of them does not apply (pipelines for 1f1b,
  //! t_forward in real-cost mode) is an invalid row, not a silently ignored value.
  const std::vector<std::string>& given() const { return given_; }

 private:
  std::vector<std::vector<std::string>> values_;
  std::vector<std::string> given_;
  size_t size_ = 1;
  BoundValues bound_;
};

//! Option values as given: option name ("micro_batches") → list or range text.
using OptionTexts = std::map<std::string, std::string>;

//! Builds the grid from given values (`given`, option → text; present = given, so an empty
//! text is an error, not the default) and an
//! optional sweep file (`file`, "" for none). Given values win over the file; options in
//! neither take their default. Every value is checked by its option's parser, so a bad value
//! fails here with one line naming the option (ConfigError::option, which the front end
//! spells) or the file and key — before anything runs. Throws core::ConfigError.
SweepGrid make_grid(const OptionTexts& given, const std::string& file = {});

}  // namespace pipesim::sweep
