#include "pipesim/sweep/bound_values.hpp"

#include <limits>

#include "pipesim/core/assert.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::sweep {

BoundValues::BoundValues(const std::vector<std::vector<std::string>>& texts) {
  const auto& options = scenario::options();
  PIPESIM_ASSERT(texts.size() == options.size(), "one list of texts per option");
  options_.resize(options.size());
  for (size_t i = 0; i < options.size(); ++i) {
    options_[i].reserve(texts[i].size());
    PIPESIM_ASSERT(texts[i].size() <= std::numeric_limits<ValueIndex>::max(),
                   "an option's values are indexed by ValueIndex");
    for (const std::string& text : texts[i]) {
      Bound b;
      try {
        b.set = options[i].bind(text);
      } catch (...) {
        b.error = std::current_exception();
      }
      options_[i].push_back(std::move(b));
    }
  }
}

void BoundValues::apply(scenario::Scenario& s, std::span<const ValueIndex> choice) const {
  PIPESIM_ASSERT(choice.size() == options_.size(), "one choice per option");
  for (size_t i = 0; i < options_.size(); ++i) {
    const Bound& b = options_[i][choice[i]];
    if (b.error) std::rethrow_exception(b.error);
    b.set(s);
  }
}

}  // namespace pipesim::sweep
