#include "pipesim/sweep/sweep_grid.hpp"

#include <fmt/format.h>

#include <limits>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/sweep/sweep_file.hpp"
#include "pipesim/sweep/value_range.hpp"

namespace pipesim::sweep {
namespace {

// Checks one value of a sweep file with its option's parser; the message names the file and
// key.
void check_file_value(const scenario::Option& option, const std::string& value,
                      const std::string& file, const std::string& key) {
  scenario::Scenario scratch;
  try {
    scenario::apply_given(option, scratch, value);
  } catch (const core::ConfigError& e) {
    throw core::ConfigError(file, key, e.problem());
  }
}

}  // namespace

SweepGrid::SweepGrid(std::vector<std::vector<std::string>> values, std::vector<std::string> given)
    : values_(std::move(values)), given_(std::move(given)) {
  for (const auto& list : values_) {
    PIPESIM_ASSERT(!list.empty(), "every option has at least one value");
    if (size_ > kMaxSweepPoints / list.size()) {
      throw core::ConfigError(
          fmt::format("sweep: more than {} configurations; narrow the lists", kMaxSweepPoints));
    }
    size_ *= list.size();
  }
  bound_ = BoundValues(values_);
}

scenario::Point SweepGrid::point(size_t index) const {
  PIPESIM_ASSERT(index < size_, "point index in range");
  scenario::Point p(values_.size());
  for (size_t i = values_.size(); i-- > 0;) {
    p[i] = values_[i][index % values_[i].size()];
    index /= values_[i].size();
  }
  return p;
}

void SweepGrid::apply(scenario::Scenario& s, size_t index) const {
  PIPESIM_ASSERT(index < size_, "point index in range");
  std::vector<ValueIndex> choice(values_.size());
  for (size_t i = values_.size(); i-- > 0;) {
    choice[i] = static_cast<ValueIndex>(index % values_[i].size());
    index /= values_[i].size();
  }
  bound_.apply(s, choice);
}

SweepGrid make_grid(const OptionTexts& given, const std::string& file) {
  const auto from_file =
      file.empty() ? std::map<std::string, SweepFileEntry>{} : load_sweep_file(file);
  std::vector<std::vector<std::string>> values;
  std::vector<std::string> given_names;
  for (const scenario::Option& option : scenario::options()) {
    const auto g = given.find(option.name());
    std::vector<std::string> list;
    if (g != given.end()) {
      given_names.push_back(option.name());
      if (g->second.empty()) {
        throw core::ConfigError::option(option.name(),
                                        "empty value (leave the option out for its default)");
      }
      list = expand_option_values(option.name(), g->second);
      for (const auto& v : list) {
        scenario::Scenario scratch;
        scenario::apply_given(option, scratch, v);
      }
    } else if (const auto f = from_file.find(option.name()); f != from_file.end()) {
      list = f->second.values;
      given_names.push_back(option.name());
      for (const auto& v : list)
        check_file_value(option, v, file, f->second.key);
    } else {
      list = {option.spec.default_text};
    }
    values.push_back(std::move(list));
  }
  return SweepGrid(std::move(values), std::move(given_names));
}

}  // namespace pipesim::sweep
