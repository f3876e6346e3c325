#pragma once
// Strict reading of YAML mappings for model specs and hardware profiles: every field is named
// by its dotted path, unknown keys are errors (typo protection), and every bad value raises
// core::ConfigError(file, field, problem) — one line, naming the allowed range.
//
// Strict means, for the whole document and before any field is read: exactly one YAML document
// whose top level is a mapping; every key a plain scalar (no list or mapping keys); no key twice
// in one mapping. yaml-cpp stays behind this header (the node lives in the .cpp).

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipesim::core {

struct YamlNode;  // yaml_reader.cpp: wraps YAML::Node

//! Throws ConfigError(source, "line N", ...) for a byte YAML does not allow in a document: C0
//! control characters other than tab, LF and CR, and DEL. yaml-cpp 0.7 loops forever on some
//! inputs holding NUL bytes (found by fuzzing), so every YAML text is checked before parsing.
void check_yaml_text(std::string_view text, const std::string& source);

//! One mapping of a YAML document. Read each field once with a getter, then call finish(),
//! which rejects any key that was not read.
class YamlMap {
 public:
  //! Parses YAML text that must be one mapping (checked as above); errors name `source`.
  static YamlMap parse(std::string_view text, const std::string& source);
  //! Reads (core::read_text_file: BOM dropped, directories refused) and parses a file.
  static YamlMap load(const std::filesystem::path& path);

  //! Required fields; throw when missing, empty or of the wrong type.
  //! Strings must be non-empty unless `allow_empty`.
  std::string string(const std::string& key, bool allow_empty = false);
  //! A finite number.
  double number(const std::string& key);
  //! A finite number in [lo, hi].
  double number(const std::string& key, double lo, double hi);
  //! A number > 0 (sizes, rates, bandwidths).
  double positive(const std::string& key);
  //! A number in (0, hi].
  double positive(const std::string& key, double hi);
  //! An integer in [lo, hi]; 0.5 or "4k" are errors.
  long integer(const std::string& key, long lo, long hi);
  //! A whole number in [lo, hi] that may be written as a float (80e9), e.g. byte counts.
  double whole(const std::string& key, double lo, double hi);
  bool boolean(const std::string& key);
  YamlMap map(const std::string& key);
  //! A non-empty list of mappings; each names its fields `key[i].field` in errors.
  std::vector<YamlMap> map_list(const std::string& key);
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
  YamlMap(std::shared_ptr<const YamlNode> node, std::string source, std::string prefix);
  std::shared_ptr<const YamlNode> require(const std::string& key);
  double to_number(const YamlNode& node, const std::string& key) const;

  std::shared_ptr<const YamlNode> node_;
  std::string source_;
  std::string prefix_;
  std::set<std::string> read_;
};

}  // namespace pipesim::core
