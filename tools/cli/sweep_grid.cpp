#include "sweep_grid.hpp"

#include <fmt/format.h>

#include <limits>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"
#include "run_options.hpp"
#include "sweep_file.hpp"
#include "value_range.hpp"

namespace pipesim::cli {
namespace {

// Checks one value with its option's parser. The parsers name the command line; for a file
// value the message names the file and key instead.
void check_value(const RunOption& option, const std::string& value, const std::string& file,
                 const std::string& key) {
  RunSpec scratch;
  try {
    option.apply(scratch, value);
  } catch (const core::ConfigError& e) {
    if (file.empty()) throw;
    std::string problem = e.what();
    const std::string prefix = fmt::format("command line: {}: ", option.flag());
    if (problem.rfind(prefix, 0) == 0) problem.erase(0, prefix.size());
    throw core::ConfigError(file, key, problem);
  }
}

}  // namespace

SweepGrid::SweepGrid(std::vector<std::vector<std::string>> values) : values_(std::move(values)) {
  for (const auto& list : values_) {
    PIPESIM_ASSERT(!list.empty(), "every option has at least one value");
    if (size_ > kMaxSweepPoints / list.size()) {
      throw core::ConfigError(
          fmt::format("sweep: more than {} configurations; narrow the lists", kMaxSweepPoints));
    }
    size_ *= list.size();
  }
}

Point SweepGrid::point(size_t index) const {
  PIPESIM_ASSERT(index < size_, "point index in range");
  Point p(values_.size());
  for (size_t i = values_.size(); i-- > 0;) {
    p[i] = values_[i][index % values_[i].size()];
    index /= values_[i].size();
  }
  return p;
}

SweepGrid make_grid(const OptionTexts& cli, const std::string& file) {
  const auto from_file =
      file.empty() ? std::map<std::string, SweepFileEntry>{} : load_sweep_file(file);
  std::vector<std::vector<std::string>> values;
  for (const RunOption& option : run_options()) {
    const std::string flag = option.flag();
    const auto given = cli.find(flag);
    std::vector<std::string> list;
    if (given != cli.end() && !given->second.empty()) {
      list = expand_values("command line", flag, given->second);
      for (const auto& v : list)
        check_value(option, v, "", flag);
    } else if (const auto f = from_file.find(flag); f != from_file.end()) {
      list = f->second.values;
      for (const auto& v : list)
        check_value(option, v, file, f->second.key);
    } else {
      list = {option.default_value};
    }
    values.push_back(std::move(list));
  }
  return SweepGrid(std::move(values));
}

}  // namespace pipesim::cli
