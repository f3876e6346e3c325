// Strict YAML: what yaml-cpp accepts but pipesim must not, each an error naming file and field.

#include "pipesim/core/yaml_reader.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {
namespace {

std::string error_of(const std::string& text, void (*use)(YamlMap&) = nullptr) {
  try {
    YamlMap y = YamlMap::parse(text, "in.yaml");
    if (use) use(y);
  } catch (const ConfigError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("NOT A ConfigError: ") + e.what();
  }
  return "accepted";
}

TEST(YamlReader, ListAndMappingKeysAreErrorsNotAborts) {
  // `? [a, b]\n: 1` appended to a file aborted (exit 134) in keys().
  EXPECT_EQ(error_of("name: x\n? [a, b]\n: 1\n"),
            "in.yaml: key: keys must be plain names, got a list (line 2)");
  EXPECT_EQ(error_of("gpu:\n  memory_bytes: 1\n  ? {a: 1}\n  : 1\n"),
            "in.yaml: gpu.key: keys must be plain names, got a mapping (line 3)");
  EXPECT_EQ(error_of("gpu: {peak_flops: {bf16: 1.0e15, [a]: 1}}\n"),
            "in.yaml: gpu.peak_flops.key: keys must be plain names, got a list (line 1)");
  EXPECT_EQ(error_of("~: 1\n"),
            "in.yaml: key: keys must be plain names, got an empty key (line 1)");
}

TEST(YamlReader, DuplicateKeysAndExtraDocumentsAreErrors) {
  // duplicate keys silently kept the first value; a second document was ignored.
  EXPECT_EQ(error_of("layers: 2\nlayers: 3\n"),
            "in.yaml: layers: given twice (line 2); each key at most once");
  EXPECT_EQ(error_of("gpu:\n  a: 1\n  a: 2\n"),
            "in.yaml: gpu.a: given twice (line 3); each key at most once");
  EXPECT_EQ(
      error_of("name: x\n---\nname: y\n"),
      "in.yaml: document: more than one YAML document ('---' or stray text), expected exactly one");
  EXPECT_EQ(error_of(""), "in.yaml: document: must be a YAML mapping of fields (key: value)");
  EXPECT_EQ(error_of("- 1\n"), "in.yaml: document: must be a YAML mapping of fields (key: value)");
}

TEST(YamlReader, EmptyValuesWrongTypesAndNonFiniteNumbers) {
  EXPECT_EQ(error_of("name:\n", [](YamlMap& y) { y.string("name"); }),
            "in.yaml: name: has no value");
  EXPECT_EQ(error_of("name: ''\n", [](YamlMap& y) { y.string("name"); }),
            "in.yaml: name: must not be empty");
  EXPECT_EQ(error_of("n: [1]\n", [](YamlMap& y) { y.number("n"); }),
            "in.yaml: n: must be a number");
  EXPECT_EQ(error_of("n: .inf\n", [](YamlMap& y) { y.number("n"); }),
            "in.yaml: n: must be finite, got '.inf'");
  EXPECT_EQ(error_of("n: .nan\n", [](YamlMap& y) { y.positive("n"); }),
            "in.yaml: n: must be finite, got '.nan'");
  EXPECT_EQ(error_of("n: 1e999\n", [](YamlMap& y) { y.number("n"); }),
            "in.yaml: n: must be a number, got '1e999'");
  EXPECT_EQ(error_of("n: 0.5\n", [](YamlMap& y) { y.integer("n", 1, 8); }),
            "in.yaml: n: must be an integer in [1, 8], got '0.5'");
  EXPECT_EQ(error_of("n: 0.5\n", [](YamlMap& y) { y.whole("n", 1, 1e15); }),
            "in.yaml: n: must be a whole number in [1, 1e+15], got 0.5");
  EXPECT_EQ(error_of("n: 2e15\n", [](YamlMap& y) { y.whole("n", 1, 1e15); }),
            "in.yaml: n: must be in [1, 1e+15], got 2e+15");
  EXPECT_EQ(error_of("n: 2\n", [](YamlMap& y) { y.positive("n", 1.0); }),
            "in.yaml: n: must be in (0, 1], got 2");
  EXPECT_EQ(error_of("n: \"a\\nb\"\n", [](YamlMap& y) { y.integer("n", 1, 8); }),
            "in.yaml: n: must be an integer in [1, 8], got 'a\\nb'");
  EXPECT_EQ(error_of("n: {a: 1}\n", [](YamlMap& y) { y.integer("n", 1, 8); }),
            "in.yaml: n: must be an integer in [1, 8], got 'a list or mapping'");
}

TEST(YamlReader, ControlCharactersAreRefusedBeforeYamlCppSeesThem) {
  // Found by fuzzing (model_yaml): NUL bytes inside a quoted string made yaml-cpp 0.7 loop.
  const std::string nul_in_string = std::string("name: x\nreferences:\n  - \"Ti") +
                                    std::string(30, '\0') + "2 layers\"\nlayers: 3\n";
  EXPECT_EQ(error_of(nul_in_string),
            "in.yaml: line 3: control character \\x00 is not allowed in YAML");
  EXPECT_EQ(error_of("a: 1\n\x1b: 2\n"),
            "in.yaml: line 2: control character \\x1b is not allowed in YAML");
  EXPECT_EQ(error_of("a: 1\r\nb: \"x\ty\"\n"), "accepted");  // tab, CR and LF are allowed
  // Found by fuzzing (model_yaml): yaml-cpp's LoadAll never returned on a lone comma.
  EXPECT_EQ(error_of(","),
            "in.yaml: document: more than one YAML document ('---' or stray text), expected "
            "exactly one");
}

TEST(YamlReader, ValidDocumentsReadAsBefore) {
  YamlMap y =
      YamlMap::parse("\xEF\xBB\xBFname: x\nn: 80e9\ngpu: {k: 4}\nlist: [a, b]\n", "ok.yaml");
  EXPECT_EQ(y.string("name"), "x");
  EXPECT_DOUBLE_EQ(y.whole("n", 1, 1e15), 80e9);
  YamlMap g = y.map("gpu");
  EXPECT_EQ(g.integer("k", 1, 8), 4);
  g.finish();
  EXPECT_EQ(y.string_list("list"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(y.keys(), (std::vector<std::string>{"name", "n", "gpu", "list"}));
  y.finish();
}

TEST(YamlReader, AliasBombsStopAtTheNodeLimit) {
  // Each level refers to the previous one ten times: 10^9 nodes once aliases are expanded.
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const char p = static_cast<char>(c - 1);
    text += fmt::format("{0}: &{0} [*{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}]\n",
                        c, p);
  }
  const std::string what = error_of(text);
  EXPECT_NE(what.find("more than 1000000 YAML nodes"), std::string::npos) << what;
}

TEST(YamlReader, AnAliasInsideItsOwnAnchorIsAnErrorNotAStackOverflow) {
  // Found by fuzzing (model_yaml, 600 s): the alias makes the tree a cycle.
  const std::string what = error_of("name: x\nlayers: &l\n  a:\n    b: *l\n");
  EXPECT_NE(what.find("nested more than 64 levels deep"), std::string::npos) << what;
  EXPECT_NE(what.find("in.yaml: layers: nested"), std::string::npos) << what;
}

TEST(YamlReader, NestingDeeperThanTheLimitIsAnErrorAndAtTheLimitIsRead) {
  const auto nested = [](int levels) {
    return "a: " + std::string(static_cast<size_t>(levels), '[') + "1" +
           std::string(static_cast<size_t>(levels), ']') + "\n";
  };
  EXPECT_EQ(error_of(nested(63)), "accepted");
  const std::string what = error_of(nested(80));
  EXPECT_NE(what.find("nested more than 64 levels deep"), std::string::npos) << what;
}

}  // namespace
}  // namespace pipesim::core
