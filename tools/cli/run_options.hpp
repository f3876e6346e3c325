#pragma once
// Every option that describes one run, declared once. `simulate` takes one value per option;
// `sweep` takes a list per option and runs the cartesian product. Adding a field to RunSpec
// means adding one entry here, and both commands know it.

#include <functional>
#include <string>
#include <vector>

#include "run.hpp"

namespace pipesim::cli {

struct RunOption {
  std::string names;          //!< CLI11 names, e.g. "--stages,-D"
  std::string help;
  std::string default_value;  //!< as the user would type it
  //! Parses `text` into the spec; throws core::ConfigError naming the flag and allowed range.
  std::function<void(RunSpec&, const std::string& text)> apply;

  //! The long flag ("--stages"), for messages.
  std::string flag() const;
};

const std::vector<RunOption>& run_options();

//! Parsers shared by the options; each throws core::ConfigError("command line", flag, ...).
int parse_int(const std::string& flag, const std::string& text, long lo, long hi);
double parse_double(const std::string& flag, const std::string& text, double lo, double hi,
                    bool lo_inclusive = true);
std::string parse_choice(const std::string& flag, const std::string& text,
                         const std::vector<std::string>& choices);

}  // namespace pipesim::cli
