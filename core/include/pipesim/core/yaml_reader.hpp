#pragma once
// Strict reading of YAML mappings for model specs and hardware profiles: every field is named
// by its dotted path, unknown keys are errors (typo protection), and every bad value raises
// core::ConfigError(file, field, problem) — one line, naming the allowed range.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pipesim::core {

//! Parses a YAML file; throws ConfigError naming the file for unreadable or malformed input.
YAML::Node load_yaml_file(const std::string& path);
//! Parses YAML text that must be one mapping; errors name `source`.
YAML::Node parse_yaml_mapping(const std::string& text, const std::string& source);

//! One mapping of a YAML document. Read each field once with a getter, then call finish(),
//! which rejects any key that was not read.
class YamlMap {
 public:
  //! `prefix` is the dotted path of this mapping ("" at top level, "gpu." below).
  YamlMap(YAML::Node node, std::string source, std::string prefix);

  //! Required fields; throw when missing or of the wrong type.
  std::string string(const std::string& key);
  double number(const std::string& key);
  //! A number > 0 (sizes, rates, bandwidths).
  double positive(const std::string& key);
  long integer(const std::string& key, long lo, long hi);
  bool boolean(const std::string& key);
  YamlMap map(const std::string& key);
  //! A list of [x, y] pairs, x > 0 strictly increasing, y in (0, 1].
  std::vector<std::pair<double, double>> curve(const std::string& key);
  std::vector<std::string> string_list(const std::string& key);
  //! One of `choices`.
  std::string choice(const std::string& key, const std::vector<std::string>& choices);

  bool has(const std::string& key) const;
  //! The names of this mapping's keys, in document order.
  std::vector<std::string> keys() const;

  //! Throws for the first key no getter asked for.
  void finish() const;

  //! Throws ConfigError(source, prefix + key, problem).
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

  const std::string& source() const { return source_; }

 private:
  YAML::Node require(const std::string& key);
  double to_number(const YAML::Node& node, const std::string& key) const;

  YAML::Node node_;
  std::string source_;
  std::string prefix_;
  std::set<std::string> read_;
};

}  // namespace pipesim::core
