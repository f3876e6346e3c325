#include "pipesim/core/yaml_reader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"

namespace pipesim::core {

struct YamlNode {
  YAML::Node node;
};

namespace {

// Aliases let a small file describe an exponentially large tree ("billion laughs"); the strict
// walk below visits every node, so it stops at a size no real model or profile comes near.
constexpr long kMaxNodes = 1'000'000;
// Deepest nesting a file may have. Real files nest 3 levels; an alias inside its own anchor
// makes a cycle that would recurse until the stack overflows (found by fuzzing).
constexpr int kMaxDepth = 64;

// Numbers in messages: the short form when it is exact (1e+15, 0.5), else every digit (1048576).
std::string num(double v) {
  const std::string g = fmt::format("{:g}", v);
  return std::strtod(g.c_str(), nullptr) == v ? g : fmt::format("{}", v);
}

std::shared_ptr<const YamlNode> wrap(YAML::Node n) {
  return std::make_shared<const YamlNode>(YamlNode{std::move(n)});
}

std::string describe_key(const YAML::Node& key) {
  return key.IsSequence() ? "a list" : key.IsMap() ? "a mapping" : "an empty key";
}

// Rejects what yaml-cpp accepts but a strict reader must not: non-scalar keys and repeated keys
// (yaml-cpp keeps both; lookups would silently see the first).
void check_tree(const YAML::Node& n, const std::string& path, const std::string& source,
                long& visited, int depth = 0) {
  if (++visited > kMaxNodes) {
    throw ConfigError(source, path.empty() ? "document" : path,
                      fmt::format("more than {} YAML nodes (aliases expanded)", kMaxNodes));
  }
  if (depth > kMaxDepth) {  // named by its top-level key: the full path repeats the cycle
    throw ConfigError(source, path.substr(0, path.find_first_of(".[")),
                      fmt::format("nested more than {} levels deep (an alias inside its own "
                                  "anchor?)",
                                  kMaxDepth));
  }
  if (n.IsSequence()) {
    for (std::size_t i = 0; i < n.size(); ++i)
      check_tree(n[i], fmt::format("{}[{}]", path, i), source, visited, depth + 1);
  } else if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar()) {
        throw ConfigError(source, path.empty() ? "key" : path + ".key",
                          fmt::format("keys must be plain names, got {} (line {})",
                                      describe_key(kv.first), kv.first.Mark().line + 1));
      }
      const std::string key = kv.first.Scalar();
      const std::string where = path.empty() ? key : path + "." + key;
      if (!seen.insert(key).second) {
        throw ConfigError(
            source, where,
            fmt::format("given twice (line {}); each key at most once", kv.first.Mark().line + 1));
      }
      check_tree(kv.second, where, source, visited, depth + 1);
    }
  }
}

}  // namespace

namespace {

// Counts documents without building them: yaml-cpp 0.7's LoadAll loops forever on "," (found by
// fuzzing: the parser reports an endless run of empty documents), so the count is capped.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

void check_yaml_text(std::string_view text, const std::string& source) {
  int line = 1;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') ++line;
    if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f) {
      throw ConfigError(source, fmt::format("line {}", line),
                        fmt::format("control character \\x{:02x} is not allowed in YAML", u));
    }
  }
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  DocumentCounter counter;
  int documents = 0;
  try {
    while (documents < 2 && parser.HandleNextDocument(counter))
      ++documents;
  } catch (const YAML::Exception& e) {
    throw ConfigError(source, fmt::format("line {}", e.mark.line + 1), e.msg);
  }
  if (documents > 1) {
    throw ConfigError(source, "document",
                      "more than one YAML document ('---' or stray text), expected exactly one");
  }
}

YamlMap YamlMap::parse(std::string_view text, const std::string& source) {
  text = strip_bom(text);
  check_yaml_text(text, source);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw ConfigError(source, fmt::format("line {}", e.mark.line + 1), e.msg);
  }
  if (!root.IsMap()) {
    throw ConfigError(source, "document", "must be a YAML mapping of fields (key: value)");
  }
  long visited = 0;
  check_tree(root, "", source, visited);
  return YamlMap(wrap(root), source, "");
}

YamlMap YamlMap::load(const std::filesystem::path& path) {
  return parse(read_text_file(path), path.string());
}

YamlMap::YamlMap(std::shared_ptr<const YamlNode> node, std::string source, std::string prefix)
    : node_(std::move(node)), source_(std::move(source)), prefix_(std::move(prefix)) {}

void YamlMap::fail(const std::string& key, const std::string& problem) const {
  throw ConfigError(source_, prefix_ + key, problem);
}

bool YamlMap::has(const std::string& key) const {
  // const access: never inserts; check_tree made every key a scalar, so the lookup is exact.
  const YAML::Node& n = node_->node;
  return static_cast<bool>(n[key]);
}

std::vector<std::string> YamlMap::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : node_->node)
    out.push_back(kv.first.Scalar());
  return out;
}

std::shared_ptr<const YamlNode> YamlMap::require(const std::string& key) {
  read_.insert(key);
  const YAML::Node& map = node_->node;
  const YAML::Node n = map[key];
  if (!n) fail(key, "missing (required field)");
  if (n.IsNull()) fail(key, "has no value");
  return wrap(n);
}

double YamlMap::to_number(const YamlNode& wrapped, const std::string& key) const {
  const YAML::Node& n = wrapped.node;
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

std::string YamlMap::string(const std::string& key, bool allow_empty) {
  const YAML::Node n = require(key)->node;
  if (!n.IsScalar()) fail(key, "must be a string");
  if (!allow_empty && n.Scalar().empty()) fail(key, "must not be empty");
  return n.Scalar();
}

double YamlMap::number(const std::string& key) {
  return to_number(*require(key), key);
}

double YamlMap::number(const std::string& key, double lo, double hi) {
  const double v = number(key);
  if (!(v >= lo && v <= hi)) {
    fail(key, fmt::format("must be in [{}, {}], got {}", num(lo), num(hi), num(v)));
  }
  return v;
}

double YamlMap::positive(const std::string& key) {
  const double v = number(key);
  if (!(v > 0.0)) fail(key, fmt::format("must be > 0, got {}", num(v)));
  return v;
}

double YamlMap::positive(const std::string& key, double hi) {
  const double v = number(key);
  if (!(v > 0.0 && v <= hi)) fail(key, fmt::format("must be in (0, {}], got {}", num(hi), num(v)));
  return v;
}

long YamlMap::integer(const std::string& key, long lo, long hi) {
  const YAML::Node n = require(key)->node;
  long v = 0;
  bool ok = n.IsScalar();
  if (ok) {
    try {
      v = n.as<long>();
    } catch (const YAML::Exception&) {
      ok = false;
    }
  }
  if (!ok) {
    fail(key, fmt::format("must be an integer in [{}, {}], got '{}'", lo, hi,
                          n.IsScalar() ? n.Scalar() : "a list or mapping"));
  }
  if (v < lo || v > hi) fail(key, fmt::format("must be in [{}, {}], got {}", lo, hi, v));
  return v;
}

double YamlMap::whole(const std::string& key, double lo, double hi) {
  const double v = number(key);
  if (v != std::floor(v)) {
    fail(key, fmt::format("must be a whole number in [{}, {}], got {}", num(lo), num(hi), num(v)));
  }
  if (!(v >= lo && v <= hi)) {
    fail(key, fmt::format("must be in [{}, {}], got {}", num(lo), num(hi), num(v)));
  }
  return v;
}

bool YamlMap::boolean(const std::string& key) {
  const YAML::Node n = require(key)->node;
  try {
    if (n.IsScalar()) return n.as<bool>();
  } catch (const YAML::Exception&) {
  }
  fail(key, fmt::format("must be true or false, got '{}'", n.IsScalar() ? n.Scalar() : "?"));
}

YamlMap YamlMap::map(const std::string& key) {
  const std::shared_ptr<const YamlNode> n = require(key);
  if (!n->node.IsMap()) fail(key, "must be a mapping");
  return YamlMap(n, source_, prefix_ + key + ".");
}

std::vector<YamlMap> YamlMap::map_list(const std::string& key) {
  const std::shared_ptr<const YamlNode> n = require(key);
  if (!n->node.IsSequence() || n->node.size() == 0)
    fail(key, "must be a non-empty list of mappings");
  std::vector<YamlMap> out;
  for (size_t i = 0; i < n->node.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", key, i);
    if (!n->node[i].IsMap()) fail(where, "must be a mapping");
    out.push_back(YamlMap(std::make_shared<const YamlNode>(YamlNode{n->node[i]}), source_,
                          prefix_ + where + "."));
  }
  return out;
}

std::vector<std::pair<double, double>> YamlMap::curve(const std::string& key) {
  const YAML::Node n = require(key)->node;
  if (!n.IsSequence() || n.size() == 0) fail(key, "must be a non-empty list of [size, fraction]");
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node p = n[i];
    const std::string where = fmt::format("{}[{}]", key, i);
    if (!p.IsSequence() || p.size() != 2) fail(where, "must be a pair [size, fraction]");
    const double x = to_number(YamlNode{p[0]}, where), y = to_number(YamlNode{p[1]}, where);
    if (!(x > 0.0)) fail(where, fmt::format("size must be > 0, got {}", x));
    if (!out.empty() && !(x > out.back().first)) fail(where, "sizes must increase strictly");
    if (!(y > 0.0 && y <= 1.0)) fail(where, fmt::format("fraction must be in (0, 1], got {}", y));
    out.emplace_back(x, y);
  }
  return out;
}

std::vector<std::string> YamlMap::string_list(const std::string& key) {
  const YAML::Node n = require(key)->node;
  if (!n.IsSequence()) fail(key, "must be a list of strings");
  std::vector<std::string> out;
  for (const auto& item : n) {
    if (!item.IsScalar() || item.Scalar().empty()) fail(key, "must be a list of non-empty strings");
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
  for (const auto& kv : node_->node) {
    const std::string& key = kv.first.Scalar();
    if (!read_.contains(key)) fail(key, "unknown field");
  }
}

}  // namespace pipesim::core
