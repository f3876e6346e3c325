#pragma once
// Options in the JSON reports: every option a CSV row carries, under its column name, typed by
// its kind as docs/schema/pipesim-output.schema.json types it (tools/make-schema.py writes the
// schema's option entries from the same table, `pipesim list options --format json`).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipesim/core/option_spec.hpp"

namespace pipesim::report {

//! The CSV text of an option as JSON: Integer → integer, Real → number, Switch → boolean (as
//! the report's other on/off settings), Choice and Text → the text. Requires a non-empty text.
nlohmann::ordered_json option_value_json(const core::OptionSpec& spec, const std::string& text);

//! Adds to `j` each option of `specs` that `j` does not hold yet (the report writes some in a
//! resolved form of its own), with its text in `values` (aligned with `specs`); an empty text
//! (no value, the CSV's empty field) adds nothing.
void add_missing_options(nlohmann::ordered_json& j, const std::vector<core::OptionSpec>& specs,
                         const std::vector<std::string>& values);

}  // namespace pipesim::report
