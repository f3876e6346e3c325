// Bad input at the model layer: the exact bad inputs, appended to or edited into a shipped model.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {
namespace {

std::string gpt2() {
  const char* root = std::getenv("PIPESIM_SOURCE_DIR");
  std::ifstream in(std::string(root ? root : ".") + "/models/gpt2-1.3b.yaml");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string error_of(const std::string& text) {
  try {
    parse_model(text, "m.yaml");
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

std::string edited(const std::string& from, const std::string& to) {
  std::string text = gpt2();
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(ModelBounds, ReportedBadInputsAreOneLineErrors) {
  const std::string doc = gpt2();
  const std::string appended =
      "(line " + std::to_string(1 + std::count(doc.begin(), doc.end(), '\n')) + ")";
  EXPECT_EQ(error_of(gpt2() + "? [a, b]\n: 1\n"),
            "m.yaml: key: keys must be plain names, got a list " + appended);
  EXPECT_EQ(error_of(gpt2() + "layers: 3\n"),
            "m.yaml: layers: given twice " + appended + "; each key at most once");
  EXPECT_EQ(error_of(gpt2() + "---\nname: x\n"),
            "m.yaml: document: more than one YAML document ('---' or stray text), expected exactly "
            "one");
  EXPECT_EQ(error_of(edited("hidden: 1280", "hidden: 16777216")),
            "m.yaml: hidden: must be in [1, 262144], got 16777216");
  EXPECT_EQ(error_of(edited("sequence: 632", "sequence: 16777216")),
            "m.yaml: sequence: must be in [1, 8388608], got 16777216");
  EXPECT_EQ(error_of(edited("layers: 64", "layers: 0.5")),
            "m.yaml: layers: must be an integer in [1, 16384], got '0.5'");
  EXPECT_EQ(error_of(edited("name: gpt2-1.3b", "name:")), "m.yaml: name: has no value");
  EXPECT_EQ(error_of("\xEF\xBB\xBF" + gpt2()), "accepted");  // a BOM is fine everywhere
}

}  // namespace
}  // namespace pipesim::models
