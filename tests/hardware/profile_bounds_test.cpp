// Bad input at the profile layer: list/mapping keys, duplicate keys, a second document, byte
// counts that are not whole, and physically absurd values are errors naming the field and the
// allowed range; each case is the exact input of a bug report applied to a shipped profile.

#include <gtest/gtest.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/profile.hpp"
#include "profile_text.hpp"

namespace pipesim::hardware {
namespace {

std::string h200() {
  return test_support::shipped_text("h200-sxm");
}

// The message for h200-sxm.yaml with `from` replaced by `to` ("accepted" when it loads).
std::string error_after(const std::string& from, const std::string& to) {
  return test_support::error_after_edit(h200(), from, to, "h.yaml");
}

// "(line N)" for the line `below` lines under the one of the shipped profile where `text` starts.
std::string line_of(const std::string& text, long below) {
  const std::string doc = h200();
  const auto before = doc.begin() + static_cast<long>(doc.find(text));
  return "(line " + std::to_string(1 + below + std::count(doc.begin(), before, '\n')) + ")";
}

TEST(ProfileBounds, NonScalarKeysAnywhereAreErrors) {
  EXPECT_EQ(
      error_after("interference: 0.0\n", "interference: 0.0\n? [a, b]\n: 1\n"),
      "h.yaml: key: keys must be plain names, got a list " + line_of("interference: 0.0\n", 1));
  EXPECT_EQ(
      error_after("  memory_bytes: 151397597184\n",
                  "  memory_bytes: 151397597184\n  ? [a, b]\n  : 1\n"),
      "h.yaml: gpu.key: keys must be plain names, got a list " + line_of("  memory_bytes", 1));
  EXPECT_EQ(error_after("fp8: 1978.9e12}", "fp8: 1978.9e12, [a]: 1}"),
            "h.yaml: gpu.peak_flops.key: keys must be plain names, got a list " +
                line_of("fp8: 1978.9", 0));
}

TEST(ProfileBounds, DuplicateKeysSecondDocumentsAndFractionsOfBytes) {
  EXPECT_EQ(
      error_after("  hbm_bandwidth: 4.8e12\n", "  hbm_bandwidth: 4.8e12\n  hbm_bandwidth: 1\n"),
      "h.yaml: gpu.hbm_bandwidth: given twice " + line_of("  hbm_bandwidth", 1) +
          "; each key at most once");
  EXPECT_EQ(error_after("interference: 0.0\n", "interference: 0.0\n---\nname: other\n"),
            "h.yaml: document: more than one YAML document ('---' or stray text), expected exactly "
            "one");
  EXPECT_EQ(error_after("memory_bytes: 151397597184", "memory_bytes: 0.5"),
            "h.yaml: gpu.memory_bytes: must be a whole number in [1048576, 1e+15], got 0.5");
}

TEST(ProfileBounds, PhysicallyAbsurdValuesNameTheBound) {
  EXPECT_EQ(error_after("memory_bytes: 151397597184", "memory_bytes: 1"),
            "h.yaml: gpu.memory_bytes: must be in [1048576, 1e+15], got 1");
  EXPECT_EQ(error_after("beta: 45.0e9", "beta: 1e-9"),
            "h.yaml: links.inter_node.beta: must be in [1000, 1e+14], got 1e-09");
  EXPECT_EQ(error_after("bf16: 989.0e12", "bf16: 1e30"),
            "h.yaml: gpu.peak_flops.bf16: must be in (0, 1e+17], got 1e+30");
  EXPECT_EQ(error_after("hbm_bandwidth: 4.8e12", "hbm_bandwidth: 4.8e15"),
            "h.yaml: gpu.hbm_bandwidth: must be in [1000, 1e+14], got 4.8e+15");
  EXPECT_EQ(error_after("kernel_launch: 4.0e-6", "kernel_launch: 1e-2"),
            "h.yaml: gpu.kernel_launch: must be in [0, 0.001], got 0.01");
  EXPECT_EQ(error_after("alpha: 5.0e-6", "alpha: 30"),
            "h.yaml: links.inter_node.alpha: must be in [0, 1], got 30");
  EXPECT_EQ(error_after("name: h200-sxm", "name: Bad Name!"),
            "h.yaml: name: must be 1 to 64 characters of [a-z0-9-], got 'Bad Name!'");
  EXPECT_EQ(error_after("hbm_bandwidth: 4.8e12", "hbm_bandwidth: .inf"),
            "h.yaml: gpu.hbm_bandwidth: must be finite, got '.inf'");
}

TEST(ProfileBounds, OddButValidValuesAreWarnedAbout) {
  for (const std::string& name : shipped_profiles()) {
    EXPECT_EQ(plausibility_warnings(load_profile(name)), std::vector<std::string>{}) << name;
  }
  HardwareProfile p = parse_profile(h200(), "h.yaml");
  p.gpu.memory_bytes = 1 << 20;
  p.inter_node.beta = 1e3;
  p.gpu.kernel_launch = 1e-3;
  EXPECT_EQ(plausibility_warnings(p),
            (std::vector<std::string>{"gpu.memory_bytes: 1048576 is below 1073741824 (1 GiB)",
                                      "links.inter_node.beta: 1000 is below 100000000 (100 MB/s)",
                                      "gpu.kernel_launch: 0.001 s is above 100 us per kernel"}));
}

TEST(ProfileBounds, TheNameRuleIsOneFunction) {
  EXPECT_EQ(check_profile_name("h200-sxm-calibrated"), "");
  EXPECT_NE(check_profile_name("Bad Name!"), "");
  EXPECT_NE(check_profile_name(""), "");
  EXPECT_NE(check_profile_name(std::string(65, 'a')), "");
  EXPECT_EQ(check_profile_name(std::string(64, 'a')), "");
}

}  // namespace
}  // namespace pipesim::hardware
