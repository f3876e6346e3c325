// Options in the JSON reports: each option the report has not written is added under its
// column name, typed by its kind; one it has written is kept; an empty value adds nothing. An
// option planted in the table shows up like the others.

#include "pipesim/report/option_json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pipesim::report {
namespace {

core::OptionSpec spec(std::string name, core::ValueKind kind) {
  core::OptionSpec s;
  s.name = std::move(name);
  s.kind = kind;
  return s;
}

TEST(OptionJson, MissingOptionsAreAddedTypedByKind) {
  const std::vector<core::OptionSpec> specs = {
      spec("stages", core::ValueKind::Integer),     spec("offload", core::ValueKind::Real),
      spec("overlap_p2p", core::ValueKind::Switch), spec("moe_dispatcher", core::ValueKind::Choice),
      spec("layout", core::ValueKind::Text),        spec("planted_ratio", core::ValueKind::Real)};
  nlohmann::ordered_json j;
  j["stages"] = 4;  // written by the report already: kept
  add_missing_options(j, specs, {"16", "0.25", "on", "deepep", "", "1e-3"});
  EXPECT_EQ(j.at("stages"), 4);
  EXPECT_TRUE(j.at("offload").is_number_float());
  EXPECT_DOUBLE_EQ(j.at("offload").get<double>(), 0.25);
  EXPECT_EQ(j.at("overlap_p2p"), true);
  EXPECT_EQ(j.at("moe_dispatcher"), "deepep");
  EXPECT_FALSE(j.contains("layout"));  // no value: nothing, as the CSV's empty field
  EXPECT_DOUBLE_EQ(j.at("planted_ratio").get<double>(), 1e-3);
  EXPECT_TRUE(option_value_json(specs[0], "16").is_number_integer());
}

}  // namespace
}  // namespace pipesim::report
