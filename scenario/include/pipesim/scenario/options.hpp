#pragma once
// Every option that describes one scenario, declared once and keyed by name (`stages`,
// `micro_batches`, ...). `simulate` takes one value per option; `sweep` a list per option and
// runs the cartesian product; sweep files and search speak the same names. Adding a field to
// Scenario means adding one entry here, and every command knows it. A front end derives its
// own spelling from the name (the CLI: `micro_batches` → `--micro-batches`).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {

//! A bad option value: which option and what is wrong, with the allowed range. what() is
//! "<option>: <problem>"; a front end re-words it with its own spelling of the option.
class OptionError : public core::ConfigError {
 public:
  OptionError(std::string option, std::string problem);
  const std::string& option() const { return option_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string option_;
  std::string problem_;
};

struct Option {
  std::string name;        //!< e.g. "micro_batches"; also the CSV column
  std::string short_name;  //!< one-letter alias ("N"), or ""
  std::string help;
  std::string default_value;  //!< as a user would type it
  //! Parses `text` into the scenario; throws OptionError naming this option and the range.
  std::function<void(Scenario&, const std::string& text)> apply;
};

//! The table, in a fixed order (sweeps vary the first option slowest).
const std::vector<Option>& options();

//! The option called `name`, or nullptr.
const Option* find_option(std::string_view name);

//! The scenario with every option at its default, then `values` (name → text) applied in
//! table order. Throws OptionError for an unknown name or a bad value.
Scenario make_scenario(const std::vector<std::pair<std::string, std::string>>& values);

//! The text of option `name` in `s`, as a user would type it (what parsing it gives back):
//! typed values to the input columns of a CSV. Throws OptionError for an unknown name.
std::string option_text(const Scenario& s, std::string_view name);
//! option_text() of every option, in options() order.
std::vector<std::string> option_texts(const Scenario& s);

//! Parsers shared by the options; each throws OptionError(option, ...).
int parse_int(const std::string& option, const std::string& text, long lo, long hi);
double parse_double(const std::string& option, const std::string& text, double lo, double hi,
                    bool lo_inclusive = true);
std::string parse_choice(const std::string& option, const std::string& text,
                         const std::vector<std::string>& choices);

}  // namespace pipesim::scenario
