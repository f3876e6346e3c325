// Hardware profiles: shipped files load, save/load round-trips, bad YAML names file and field.

#include "pipesim/hardware/profile.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "pipesim/core/config_error.hpp"
#include "profile_text.hpp"

namespace pipesim::hardware {
namespace {

TEST(Profile, EveryShippedProfileLoadsWithSources) {
  const auto names = shipped_profiles();
  for (const char* expected :
       {"p100-daint", "v100-dgx1", "a100-dgx", "a100-roce", "h100-dgx", "h200-sxm", "h800-dgx",
        "b200-dgx", "b300-dgx", "gb200-nvl72", "gb300-nvl72"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const auto& name : names) {
    const HardwareProfile p = load_profile(name);
    EXPECT_EQ(p.name, name);
    EXPECT_FALSE(p.provenance.references.empty()) << name;
    EXPECT_GT(p.gpu.memory_bytes, 0.0);
  }
  const HardwareProfile daint = load_profile("p100-daint");
  EXPECT_EQ(daint.gpus_per_node, 1);
  EXPECT_DOUBLE_EQ(daint.inter_node.beta, 8.77e9);
}

TEST(Profile, SaveThenLoadGivesTheSameProfile) {
  for (const auto& name : shipped_profiles()) {
    const HardwareProfile p = load_profile(name);
    const std::string text = to_yaml(p);
    const HardwareProfile q = parse_profile(text, "copy.yaml");
    EXPECT_EQ(to_yaml(q), text) << name;
    EXPECT_EQ(q.gpu.peak_flops, p.gpu.peak_flops);
    EXPECT_EQ(q.gpu.hbm_efficiency.points, p.gpu.hbm_efficiency.points);
    EXPECT_EQ(q.nics_per_node, p.nics_per_node);
  }
  HardwareProfile p = load_profile("h200-sxm");
  p.fitted["all_reduce"]["intra_node"] = {1e-5, 2e11};
  p.provenance.source = "calibration";
  const auto path = std::filesystem::temp_directory_path() / "pipesim_profile_test.yaml";
  save_profile(p, path.string());
  const HardwareProfile q = load_profile(path.string());
  EXPECT_DOUBLE_EQ(q.fitted.at("all_reduce").at("intra_node").beta, 2e11);
  EXPECT_EQ(q.provenance.source, "calibration");
  std::filesystem::remove(path);
}

TEST(Profile, StringsWithControlCharactersRoundTripExactly) {
  // Fuzzing found a description with a line break that folded to a space on reading back.
  HardwareProfile p = load_profile("a100-dgx");
  p.description = "line one\nline two\ttab \"quoted\" back\\slash \x01 \x7f end";
  p.provenance.references = {"a\r\nb"};
  p.provenance.driver = "535\n";
  const std::string text = to_yaml(p);
  const HardwareProfile q = parse_profile(text, "copy.yaml");
  EXPECT_EQ(q.description, p.description);
  EXPECT_EQ(q.provenance.references, p.provenance.references);
  EXPECT_EQ(q.provenance.driver, p.provenance.driver);
  EXPECT_EQ(to_yaml(q), text);
}

TEST(Profile, OverheadTermsAreOptionalParsedAndRoundTrip) {
  const HardwareProfile plain = load_profile("v100-dgx1");  // states none of them
  EXPECT_EQ(plain.framework.op_overhead, 0.0);              // documented defaults
  EXPECT_EQ(plain.framework.attention_launches, 1.0);
  EXPECT_EQ(plain.framework.mlp_launches, 1.0);
  EXPECT_FALSE(plain.framework.grouped_gemm_per_expert);
  EXPECT_EQ(plain.framework.tp_overlap_sm_fraction, 0.0);
  EXPECT_EQ(plain.memory.reserved_bytes, 0.0);
  EXPECT_EQ(plain.memory.fragmentation, 0.0);
  EXPECT_EQ(plain.inter_node.efficiency, 1.0);
  HardwareProfile p = plain;
  p.framework.op_overhead = 2.5e-5;
  p.framework.attention_launches = 4.5;
  p.framework.mlp_launches = 1.25;
  p.framework.grouped_gemm_per_expert = true;
  p.framework.tp_overlap_sm_fraction = 0.125;
  p.memory.reserved_bytes = 1.5e9;
  p.memory.fragmentation = 0.1;
  p.inter_node.efficiency = 0.35;
  const std::string text = to_yaml(p);
  const HardwareProfile q = parse_profile(text, "copy.yaml");
  EXPECT_EQ(to_yaml(q), text);
  EXPECT_DOUBLE_EQ(q.framework.op_overhead, 2.5e-5);
  EXPECT_DOUBLE_EQ(q.framework.attention_launches, 4.5);
  EXPECT_DOUBLE_EQ(q.framework.mlp_launches, 1.25);
  EXPECT_TRUE(q.framework.grouped_gemm_per_expert);
  EXPECT_DOUBLE_EQ(q.framework.tp_overlap_sm_fraction, 0.125);
  EXPECT_DOUBLE_EQ(q.memory.reserved_bytes, 1.5e9);
  EXPECT_DOUBLE_EQ(q.memory.fragmentation, 0.1);
  EXPECT_DOUBLE_EQ(q.inter_node.efficiency, 0.35);
  EXPECT_DOUBLE_EQ(q.inter_node.effective_beta(), 0.35 * q.inter_node.beta);
  EXPECT_DOUBLE_EQ(q.intra_node.efficiency, 1.0);
}

TEST(Profile, EfficiencyIsPiecewiseLinearInLogSizeAndClamped) {
  const EfficiencyCurve c{{{1e6, 0.3}, {1e8, 0.8}, {1e10, 0.9}}};
  EXPECT_DOUBLE_EQ(c.at(1.0), 0.3);
  EXPECT_DOUBLE_EQ(c.at(1e6), 0.3);
  EXPECT_NEAR(c.at(1e7), 0.55, 1e-12);
  EXPECT_NEAR(c.at(1e9), 0.85, 1e-12);
  EXPECT_DOUBLE_EQ(c.at(1e12), 0.9);
}

std::string shipped_text() {
  return test_support::shipped_text("h200-sxm");
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return text;
}

void expect_error(const std::string& yaml, const std::string& field) {
  try {
    parse_profile(yaml, "bad.yaml");
    ADD_FAILURE() << "accepted; expected an error naming " << field;
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("bad.yaml: " + field + ": ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(Profile, BadDocumentsNameFileAndField) {
  const std::string ok = shipped_text();
  EXPECT_NO_THROW(parse_profile(ok, "ok.yaml"));
  expect_error(replace(ok, "  hbm_bandwidth: 4.8e12\n", ""), "gpu.hbm_bandwidth");
  expect_error(replace(ok, "gpus_per_node: 8", "gpus_per_node: eight"), "node.gpus_per_node");
  expect_error(replace(ok, "memory_bytes: 151397597184", "memory_bytes: -1"), "gpu.memory_bytes");
  expect_error(replace(ok, "beta: 45.0e9", "beta: 0"), "links.inter_node.beta");
  expect_error(replace(ok, "interference: 0.0", "interference: 1.5"), "interference");
  expect_error(replace(ok, "interference: 0.0", "interference: 0.0\ninterferance: 0.1"),
               "interferance");
  expect_error(replace(ok, "{algorithm: hierarchical}", "{algorithm: butterfly}"),
               "collectives.all_reduce.algorithm");
  // Every algorithm hardware/README.md lists is accepted and saved under its name.
  for (const char* algorithm : {"ring", "rabenseifner", "hierarchical", "tree"}) {
    const HardwareProfile p = parse_profile(
        replace(ok, "{algorithm: hierarchical}", std::string("{algorithm: ") + algorithm + "}"),
        "a.yaml");
    EXPECT_STREQ(algorithm_name(p.all_reduce), algorithm);
    EXPECT_EQ(parse_profile(to_yaml(p), "b.yaml").all_reduce, p.all_reduce);
  }
  expect_error(replace(ok, "schema_version: 1", "schema_version: 2"), "schema_version");
  expect_error(replace(ok, "name: h200-sxm", "name: H200_SXM"), "name");
  expect_error(replace(ok, "[1.0e9, 0.25], [1.0e11, 0.65]", "[1.0e11, 0.25], [1.0e9, 0.65]"),
               "gpu.gemm_efficiency.bf16[1]");
  expect_error(replace(ok, "peak_flops: {", "peak_flops: {fp4: 1.0e15, "), "gpu.peak_flops.fp4");
  expect_error(replace(ok, "op_overhead: 29.0e-6", "op_overhead: -1"), "framework.op_overhead");
  expect_error(replace(ok, "attention_launches: 5.15", "attention_launches: 0.5"),
               "framework.attention_launches");
  expect_error(replace(ok, "mlp_launches: 1.69", "mlp_launches: 1e4"), "framework.mlp_launches");
  expect_error(
      replace(ok, "mlp_launches: 1.69", "mlp_launches: 1.69\n  grouped_gemm_per_expert: 2"),
      "framework.grouped_gemm_per_expert");
  expect_error(
      replace(ok, "op_overhead: 29.0e-6", "op_overhead: 29.0e-6\n  tp_overlap_sm_fraction: 1.0"),
      "framework.tp_overlap_sm_fraction");
  expect_error(replace(ok, "interference:", "memory: {fragmentation: 1.5}\ninterference:"),
               "memory.fragmentation");
  expect_error(replace(ok, "interference:", "memory: {reserved_bytes: 1e30}\ninterference:"),
               "memory.reserved_bytes");
  expect_error(replace(ok, "interference:", "memory: {spare: 1}\ninterference:"), "memory.spare");
}

TEST(Profile, EveryShippedCurveStatesWhereItComesFrom) {
  for (const auto& name : shipped_profiles()) {
    const HardwareProfile p = load_profile(name);
    for (const std::string& key : curve_keys(p)) {
      const std::string kind = curve_provenance_kind(p, key);
      EXPECT_NE(kind, "unstated") << name << " " << key;
    }
    EXPECT_EQ(p.provenance.curves.size(), curve_keys(p).size()) << name;
  }
  // What the profiles say they are: the H800's curves come from the H100's, the H100's bf16
  // GEMMs were scaled to end-to-end runs.
  EXPECT_EQ(curve_provenance_kind(load_profile("h800-dgx"), "gemm_efficiency.bf16"), "derived");
  EXPECT_EQ(curve_provenance_kind(load_profile("h100-dgx"), "gemm_efficiency.bf16"), "fitted");
}

TEST(Profile, CurveProvenanceNamesACurveAndAKind) {
  const std::string ok = shipped_text();
  const std::string at = "    hbm_efficiency: \"assumed:";
  ASSERT_NE(ok.find(at), std::string::npos);
  expect_error(replace(ok, at, "    hbm_eficiency: \"assumed:"), "provenance.curves.hbm_eficiency");
  expect_error(replace(ok, at, "    hbm_efficiency: \"guessed:"),
               "provenance.curves.hbm_efficiency");
  expect_error(replace(ok, "    gemm_efficiency.fp8:", "    gemm_efficiency.fp4:"),
               "provenance.curves.gemm_efficiency.fp4");
}

TEST(Profile, UnknownNameIsAnError) {
  EXPECT_THROW(load_profile("tpu-v9"), core::ConfigError);
  EXPECT_THROW(load_profile("/no/such/profile.yaml"), core::ConfigError);
}

}  // namespace
}  // namespace pipesim::hardware
