#pragma once
// Option values parsed once (scenario::Option::bind): a sweep or search assembles each
// configuration's scenario from them, so no text is parsed per configuration.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "pipesim/scenario/scenario.hpp"

namespace pipesim::sweep {

//! Which of an option's values (an index into its list of texts).
using ValueIndex = std::uint32_t;

class BoundValues {
 public:
  BoundValues() = default;
  //! texts[i]: the values of option i of scenario::options(), each parsed here once.
  explicit BoundValues(const std::vector<std::vector<std::string>>& texts);

  //! Applies to `s`, in table order, the value choice[i] of each option i: what applying the
  //! texts does, without parsing them. A text its option refused throws, at its option's turn,
  //! what the option's parser threw.
  void apply(scenario::Scenario& s, std::span<const ValueIndex> choice) const;

 private:
  struct Bound {
    std::function<void(scenario::Scenario&)> set;
    std::exception_ptr error;  // the parser's, for a refused text
  };
  std::vector<std::vector<Bound>> options_;
};

}  // namespace pipesim::sweep
