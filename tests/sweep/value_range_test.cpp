// Lists and ranges for sweep options: what each form expands to, and one clear error for each
// malformed one.

#include "pipesim/sweep/value_range.hpp"

#include <gtest/gtest.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::sweep {
namespace {

using Values = std::vector<std::string>;

Values expand(const std::string& text) {
  return expand_values("command line", "--x", text);
}

TEST(ValueRange, SingleValueAndCommaList) {
  EXPECT_EQ(expand("4"), Values{"4"});
  EXPECT_EQ(expand("4,8,16"), (Values{"4", "8", "16"}));
  EXPECT_EQ(expand("gpipe, 1f1b"), (Values{"gpipe", "1f1b"}));
  EXPECT_EQ(expand("16,4"), (Values{"16", "4"})) << "list order is kept";
}

TEST(ValueRange, GeometricRangeIncludesItsEnd) {
  EXPECT_EQ(expand("8:64:x2"), (Values{"8", "16", "32", "64"}));
  EXPECT_EQ(expand("1:100:x10"), (Values{"1", "10", "100"}));
  EXPECT_EQ(expand("8:63:x2"), (Values{"8", "16", "32"}));
}

TEST(ValueRange, ArithmeticRanges) {
  EXPECT_EQ(expand("1:9:+2"), (Values{"1", "3", "5", "7", "9"}));
  EXPECT_EQ(expand("2:5"), (Values{"2", "3", "4", "5"}));
  EXPECT_EQ(expand("3:3"), Values{"3"});
  EXPECT_EQ(expand("0:1:+0.25"), (Values{"0", "0.25", "0.5", "0.75", "1"}));
}

TEST(ValueRange, FractionalStepsLandExactlyOnTheEnd) {
  const Values v = expand("0:1:+0.1");
  ASSERT_EQ(v.size(), 11u);
  EXPECT_EQ(v.back(), "1");
  EXPECT_EQ(v[3], "0.30000000000000004") << "values are start + i·step, shortest round trip";
}

TEST(ValueRange, RangesInsideAList) {
  EXPECT_EQ(expand("1,4:16:x2,100"), (Values{"1", "4", "8", "16", "100"}));
}

struct Bad {
  std::string text;
  std::string expect;
};

class ValueRangeBad : public ::testing::TestWithParam<Bad> {};

TEST_P(ValueRangeBad, ThrowsNamingTheFlag) {
  try {
    expand(GetParam().text);
    FAIL() << "accepted '" << GetParam().text << "'";
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("command line: --x: ", 0), 0u) << what;
    EXPECT_NE(what.find(GetParam().expect), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ValueRangeBad,
    ::testing::Values(Bad{"", "empty item"}, Bad{"4,,8", "empty item"}, Bad{"4,", "empty item"},
                      Bad{"8:4", "start 8 > end 4"}, Bad{"a:4", "'a' is not a number"},
                      Bad{"1:4:2", "must be +STEP or xFACTOR"}, Bad{"1:4:+0", "step must be > 0"},
                      Bad{"1:4:+-1", "step must be > 0"}, Bad{"1:8:x1", "factor must be > 1"},
                      Bad{"0:8:x2", "must start > 0"}, Bad{"1:2:3:4", "more than three parts"},
                      Bad{"1:1000000:+1", "more than 100000 values"}, Bad{"1:", "not a number"}));

}  // namespace
}  // namespace pipesim::sweep
