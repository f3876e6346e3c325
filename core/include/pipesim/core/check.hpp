#pragma once
// The outcome of a check that does not throw: passed, or the first problem found as the
// ConfigError a throwing caller would raise. One type for every such check (registry
// parameters, schedule structure, ...), so callers test ok() and either show or throw problem().

#include <optional>
#include <utility>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {

class Check {
 public:
  //! Passed.
  Check() = default;
  //! Failed with `problem`.
  Check(ConfigError problem) : problem_(std::move(problem)) {}  // NOLINT: implicit on purpose

  bool ok() const { return !problem_.has_value(); }
  //! The problem; only when !ok().
  const ConfigError& problem() const { return *problem_; }
  //! Throws problem() when the check failed.
  void require() const {
    if (problem_) throw *problem_;
  }

 private:
  std::optional<ConfigError> problem_;
};

}  // namespace pipesim::core
