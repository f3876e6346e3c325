#include "pipesim/core/yaml_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {
namespace {

// yaml-cpp messages can span lines; errors must stay on one.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path, "file", "cannot be read (no such file?)");
  std::stringstream text;
  text << in.rdbuf();
  return parse_yaml_mapping(text.str(), path);
}

YAML::Node parse_yaml_mapping(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source, "yaml", one_line(e.what()));
  }
  if (!root.IsMap()) throw ConfigError(source, "document", "must be a YAML mapping");
  return root;
}

YamlMap::YamlMap(YAML::Node node, std::string source, std::string prefix)
    : node_(std::move(node)), source_(std::move(source)), prefix_(std::move(prefix)) {}

void YamlMap::fail(const std::string& key, const std::string& problem) const {
  throw ConfigError(source_, prefix_ + key, problem);
}

bool YamlMap::has(const std::string& key) const {
  return static_cast<bool>(node_[key]);
}

std::vector<std::string> YamlMap::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : node_)
    out.push_back(kv.first.as<std::string>());
  return out;
}

YAML::Node YamlMap::require(const std::string& key) {
  read_.insert(key);
  YAML::Node n = node_[key];
  if (!n || n.IsNull()) fail(key, "missing (required field)");
  return n;
}

double YamlMap::to_number(const YAML::Node& n, const std::string& key) const {
  if (!n.IsScalar()) fail(key, "must be a number");
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    fail(key, fmt::format("must be a number, got '{}'", n.Scalar()));
  }
  if (!std::isfinite(v)) fail(key, fmt::format("must be finite, got '{}'", n.Scalar()));
  return v;
}

std::string YamlMap::string(const std::string& key) {
  const YAML::Node n = require(key);
  if (!n.IsScalar()) fail(key, "must be a string");
  return n.Scalar();
}

double YamlMap::number(const std::string& key) {
  return to_number(require(key), key);
}

double YamlMap::positive(const std::string& key) {
  const double v = number(key);
  if (!(v > 0.0)) fail(key, fmt::format("must be > 0, got {}", v));
  return v;
}

long YamlMap::integer(const std::string& key, long lo, long hi) {
  const YAML::Node n = require(key);
  long v = 0;
  bool ok = n.IsScalar();
  if (ok) {
    try {
      v = n.as<long>();
    } catch (const YAML::Exception&) {
      ok = false;
    }
  }
  if (!ok) fail(key, fmt::format("must be an integer in [{}, {}], got '{}'", lo, hi, n.Scalar()));
  if (v < lo || v > hi) fail(key, fmt::format("must be in [{}, {}], got {}", lo, hi, v));
  return v;
}

bool YamlMap::boolean(const std::string& key) {
  const YAML::Node n = require(key);
  try {
    if (n.IsScalar()) return n.as<bool>();
  } catch (const YAML::Exception&) {
  }
  fail(key, fmt::format("must be true or false, got '{}'", n.IsScalar() ? n.Scalar() : "?"));
}

YamlMap YamlMap::map(const std::string& key) {
  const YAML::Node n = require(key);
  if (!n.IsMap()) fail(key, "must be a mapping");
  return YamlMap(n, source_, prefix_ + key + ".");
}

std::vector<std::pair<double, double>> YamlMap::curve(const std::string& key) {
  const YAML::Node n = require(key);
  if (!n.IsSequence() || n.size() == 0) fail(key, "must be a non-empty list of [size, fraction]");
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node p = n[i];
    const std::string where = fmt::format("{}[{}]", key, i);
    if (!p.IsSequence() || p.size() != 2) fail(where, "must be a pair [size, fraction]");
    const double x = to_number(p[0], where), y = to_number(p[1], where);
    if (!(x > 0.0)) fail(where, fmt::format("size must be > 0, got {}", x));
    if (!out.empty() && !(x > out.back().first)) fail(where, "sizes must increase strictly");
    if (!(y > 0.0 && y <= 1.0)) fail(where, fmt::format("fraction must be in (0, 1], got {}", y));
    out.emplace_back(x, y);
  }
  return out;
}

std::vector<std::string> YamlMap::string_list(const std::string& key) {
  const YAML::Node n = require(key);
  if (!n.IsSequence()) fail(key, "must be a list of strings");
  std::vector<std::string> out;
  for (const auto& item : n) {
    if (!item.IsScalar()) fail(key, "must be a list of strings");
    out.push_back(item.Scalar());
  }
  return out;
}

std::string YamlMap::choice(const std::string& key, const std::vector<std::string>& choices) {
  const std::string v = string(key);
  std::string allowed;
  for (const auto& c : choices) {
    if (c == v) return v;
    allowed += (allowed.empty() ? "" : "|") + c;
  }
  fail(key, fmt::format("must be one of {}, got '{}'", allowed, v));
}

void YamlMap::finish() const {
  for (const auto& kv : node_) {
    const std::string key = kv.first.as<std::string>();
    if (!read_.contains(key)) fail(key, "unknown field");
  }
}

}  // namespace pipesim::core
