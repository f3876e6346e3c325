#pragma once
// What the readers of other frameworks' configurations share (Megatron-LM's arguments,
// megatron_args.hpp; torchtitan's TOML, torchtitan_config.hpp): the options a configuration
// sets, each with the setting that set it, and how they join the options a user gave.

#include <map>
#include <string>
#include <vector>

namespace pipesim::scenario {

//! An option a configuration sets.
struct ReadSetting {
  std::string option;    //!< pipesim's option name ("tensor_parallel")
  std::string text;      //!< its value as text ("8")
  std::string argument;  //!< the setting of the configuration that set it
};

//! The setting in `settings` that sets `option` to another text than `text`, or nullptr.
const ReadSetting* conflicting_setting(const std::vector<ReadSetting>& settings,
                                       const std::string& option, const std::string& text);

//! `option`'s text as the option itself formats it, to compare values written differently
//! ("8" and "08", "on" and "true"); the text itself when it does not parse (a sweep's list).
std::string normal_text(const std::string& option, const std::string& text);

//! Adds `s` to `texts` (option name → text): an option the user gave must agree (the same
//! value), else it is refused naming both, `reader` and `source` saying where the other came
//! from ("Megatron's", "script.sh").
void merge_setting(std::map<std::string, std::string>& texts, const ReadSetting& s,
                   const std::string& reader, const std::string& source);

//! One integer option of `texts` (its default when absent); refused when it is a list.
long single_integer(const std::map<std::string, std::string>& texts, const std::string& option);

//! Sets `option` to `text`, refused when the user gave it otherwise; `rule` says where the
//! value comes from.
void derive_option(std::map<std::string, std::string>& texts, const std::string& option,
                   const std::string& text, const std::string& rule);

}  // namespace pipesim::scenario
