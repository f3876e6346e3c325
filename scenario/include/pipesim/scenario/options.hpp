#pragma once
// Every option that describes one scenario, declared once and keyed by name (`stages`,
// `micro_batches`, ...). `simulate` takes one value per option; `sweep` a list per option and
// runs the cartesian product; sweep files and search speak the same names. Adding a field to
// Scenario means adding one entry here, and every command knows it. A front end derives its
// own spelling from the name (the CLI: `micro_batches` → `--micro-batches`).

#include <cstdint>
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

//! Where an option has an effect (applies()).
enum class Scope : std::uint8_t {
  Always,    //!< schedule, stages, micro_batches, model, hardware
  Scheme,    //!< a scheme's own option: only for schedules that accept it (schedules::accepts)
  UnitCost,  //!< unit-cost mode only (without model and hardware)
  RealCost,  //!< real-cost mode only (with model and hardware)
};

struct Option {
  std::string name;        //!< e.g. "micro_batches"; also the CSV column
  std::string short_name;  //!< one-letter alias ("N"), or ""
  std::string help;
  std::string default_value;  //!< as a user would type it
  //! Parses `text` into the scenario; throws OptionError naming this option and the range.
  std::function<void(Scenario&, const std::string& text)> apply;
  //! Parses `text` once and returns its assignment: bind(text)(s) does what apply(s, text)
  //! does. Sweeps and searches bind each distinct text once rather than parse it for every
  //! configuration. Throws OptionError as apply does.
  std::function<std::function<void(Scenario&)>(const std::string& text)> bind;
  Scope scope = Scope::Always;
};

//! A scheme option whose 0 asks for the scheme's own default (pipelines, chunks, iterations):
//! a sweep row shows what the scheme chose, and an unresolved row the empty text.
bool zero_is_scheme_default(const Option& option);

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

//! Applies a value a user gave (command line, sweep file): an empty text is an error, never
//! the default (a default is taken only when the option is not given at all).
void apply_given(const Option& option, Scenario& s, const std::string& text);

//! Whether option `name` has any effect on `s`, by the option's Scope: scheme options only for
//! schedules that accept them (schedules::accepts), unit costs (t_*) only in unit-cost mode,
//! the real-cost options (micro_batch_size ... sequence) only in real-cost mode. schedule,
//! stages, micro_batches, model and hardware always apply.
bool applies(const Scenario& s, std::string_view name);

//! Whether option `name` shapes a generated schedule: `schedule`, `stages`, `micro_batches`
//! and the scheme options (`pipelines`, `chunks`, `strategy`, `iterations`, `epoch_drain`).
bool shapes_schedule(std::string_view name);

//! Throws OptionError naming the first of `given` (option names a user set explicitly) that
//! does not apply to `s`, and why: "does not apply to schedule 1f1b (only chimera)".
void require_applicable(const Scenario& s, const std::vector<std::string>& given);

//! Number syntax, the same for every option: integers are decimal digits with an optional
//! leading '-' (no '+', hex, exponent or spaces); reals are decimal with an optional fraction
//! and exponent (1e-3), finite. -0 is read as 0. Parsers throw OptionError(option, ...) naming
//! the allowed range.
int parse_int(const std::string& option, const std::string& text, long lo, long hi);
double parse_double(const std::string& option, const std::string& text, double lo, double hi,
                    bool lo_inclusive = true);
std::string parse_choice(const std::string& option, const std::string& text,
                         const std::vector<std::string>& choices);

}  // namespace pipesim::scenario
