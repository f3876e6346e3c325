#pragma once
// Every option that describes one scenario, declared once with its type (core::OptionSpec:
// neutral name, kind, default, range or choices, help), where it applies (Scope), its help
// group, and a typed accessor that reads and writes its field of a Scenario. The scenario's own
// options are declared here; a scheme's own options (pipelines, chunks, ...) come from the
// schedule registry, so a scheme registered with a new option is an option of every front end.
// `simulate` takes one value per option; `sweep` a list per option and runs the cartesian
// product; sweep files, search, plot captions and Python speak the same names. A front end
// derives its own spelling from the name (the CLI: `micro_batches` → `--micro-batches`).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/option_spec.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {

//! Where an option has an effect (applies()).
enum class Scope : std::uint8_t {
  Always,    //!< schedule, stages, micro_batches, model, hardware
  Scheme,    //!< a scheme's own option: only for schedules that take it (schedules::accepts)
  UnitCost,  //!< unit-cost mode only (without model and hardware)
  RealCost,  //!< real-cost mode only (with model and hardware)
};

struct Option {
  core::OptionSpec spec;   //!< name (also the CSV column), kind, default, range, help
  std::string short_name;  //!< one-letter alias ("N"), or ""
  //! Other front ends' names for it, neutral (Megatron-LM's "tensor_model_parallel_size"):
  //! the CLI accepts them as flags too.
  std::vector<std::string> aliases;
  Scope scope = Scope::Always;
  std::string group;  //!< help group: "Schedule", "Unit-cost mode", "Real-cost mode"
  //! The value in `s`; nothing when unset (a scheme option left to the scheme, a precision
  //! left to the model file).
  std::function<std::optional<core::OptionValue>(const Scenario& s)> get;
  //! Sets the value (checked: spec.check), or unsets it.
  std::function<void(Scenario& s, const std::optional<core::OptionValue>& value)> set;

  const std::string& name() const { return spec.name; }
  //! Parses `text` into `s`; "" unsets (or for a value-less option keeps its default). Throws
  //! ConfigError::option naming this option and the range.
  void apply(Scenario& s, const std::string& text) const;
  //! Parses `text` once and returns its assignment: bind(text)(s) does what apply(s, text)
  //! does. Sweeps and searches bind each distinct text once rather than parse it for every
  //! configuration.
  std::function<void(Scenario&)> bind(const std::string& text) const;
  //! The text of this option's value in `s`, as a user would type it ("" when unset).
  std::string text(const Scenario& s) const;
};

//! The table, in a fixed order (sweeps vary the first option slowest): schedule, stages,
//! micro_batches, the schemes' options, unit costs, then real-cost options.
const std::vector<Option>& options();

//! The option called `name`, or nullptr.
const Option* find_option(std::string_view name);

//! The scenario with every option at its default, then `values` (name → text) applied in
//! table order. Throws ConfigError::option for an unknown name or a bad value.
Scenario make_scenario(const std::vector<std::pair<std::string, std::string>>& values);

//! The text of option `name` in `s` (Option::text). Throws for an unknown name.
std::string option_text(const Scenario& s, std::string_view name);
//! option_text() of every option, in options() order.
std::vector<std::string> option_texts(const Scenario& s);

//! Applies a value a user gave (command line, sweep file): an empty text is an error, never
//! the default (a default is taken only when the option is not given at all).
void apply_given(const Option& option, Scenario& s, const std::string& text);

//! Whether option `name` has any effect on `s`, by the option's Scope: scheme options only for
//! schedules that take them (schedules::accepts), unit costs (t_*) only in unit-cost mode,
//! the real-cost options only in real-cost mode. schedule, stages, micro_batches, model and
//! hardware always apply.
bool applies(const Scenario& s, std::string_view name);

//! Whether option `name` shapes a generated schedule: `schedule`, `stages`, `micro_batches`
//! and the scheme options.
bool shapes_schedule(std::string_view name);

//! Throws ConfigError::option naming the first of `given` (option names a user set explicitly)
//! that does not apply to `s`, and why: "does not apply to schedule 1f1b (only to chimera)".
void require_applicable(const Scenario& s, const std::vector<std::string>& given);

//! How help shows option `option`'s default: its default text, or for a scheme option each
//! scheme's own ("2 (chimera)").
std::string default_help(const Option& option);

}  // namespace pipesim::scenario
