// A hand-written pipeline layout (Megatron-LM's --pipeline-model-parallel-layout): its grammar,
// the partition it gives, its errors; and the Account* partition modes.

#include "pipesim/models/layout.hpp"

#include <gtest/gtest.h>

#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/partition.hpp"

namespace pipesim::models {
namespace {

// The message of the ConfigError `f` throws (empty when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "layout");
    return e.problem();
  }
  return {};
}

ModelSpec model_with(int layers, int mtp) {
  ModelSpec m = load_model("gpt2-32l");
  m.layers = layers;
  m.mtp_layers = mtp;
  m.name = "test";
  return m;
}

TEST(Layout, MegatronExampleExpandsToItsStages) {
  // The example of Megatron-LM's documentation: DeepSeek-V3 (61 layers + 1 MTP) on PP16 VPP2.
  const auto st = parse_layout("Et*3|(tt|)*29,m|L");
  ASSERT_EQ(st.size(), 32u);
  EXPECT_EQ(st[0].embedding, 1);
  EXPECT_EQ(st[0].transformer, 3);
  for (size_t s = 1; s < 30; ++s) {
    EXPECT_EQ(st[s].transformer, 2) << s;
    EXPECT_EQ(st[s].embedding + st[s].mtp + st[s].loss, 0) << s;
  }
  EXPECT_EQ(st[30].mtp, 1);
  EXPECT_EQ(st[30].transformer, 0);
  EXPECT_EQ(st[31].loss, 1);
  int t = 0;
  for (const auto& s : st)
    t += s.transformer;
  EXPECT_EQ(t, 3 + 2 * 29);
}

TEST(Layout, RepeatsGroupsCommasAndEmptyStages) {
  // `|*3` repeats a separator; a group may hold separators; commas are cosmetic; `*0` drops.
  const auto st = parse_layout("E|*3,(t,t|)*2t*0L");
  ASSERT_EQ(st.size(), 6u);  // E | | | tt | tt | L
  EXPECT_EQ(st[0].embedding, 1);
  EXPECT_EQ(st[1].transformer + st[2].transformer, 0);
  EXPECT_EQ(st[3].transformer, 2);
  EXPECT_EQ(st[4].transformer, 2);
  EXPECT_EQ(st[5].loss, 1);
  EXPECT_EQ(st[5].transformer, 0);
  // Nested groups multiply.
  const auto nested = parse_layout("((t|)*2)*3");
  EXPECT_EQ(nested.size(), 7u);
}

TEST(Layout, MalformedTextNamesThePosition) {
  EXPECT_NE(error_of([] { parse_layout("Ett|tx|L"); }).find("position 6: unknown symbol 'x'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("Et*|L"); }).find("position 3: '*' needs a repeat count"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("E(tt|L"); }).find("position 2: '(' is never closed"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("Ett)|L"); }).find("position 4: ')' without"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("*2t"); }).find("position 1: '*' must follow"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layout("(t*1000)*1000000"); }).find("more than"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layout(std::string(100, '(')); }).find("nest deeper"),
            std::string::npos);
}

TEST(Layout, PartitionFollowsTheLayout) {
  const ModelSpec m = model_with(8, 0);
  // Four virtual stages: embedding alone, 5 layers, 3 layers, the loss alone.
  const auto p = layout_partition(m, "E|t*5|ttt|L", 4);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_TRUE(p[0].embedding);
  EXPECT_EQ(p[0].layers, 0);
  EXPECT_EQ(p[1].first_layer, 0);
  EXPECT_EQ(p[1].layers, 5);
  EXPECT_EQ(p[2].first_layer, 5);
  EXPECT_EQ(p[2].layers, 3);
  EXPECT_EQ(p[3].first_layer, 8);
  EXPECT_EQ(p[3].layers, 0);
  EXPECT_TRUE(p[3].head);
  for (size_t s = 1; s < 3; ++s)
    EXPECT_FALSE(p[s].embedding || p[s].head);
  // An MTP layer lands where it is written.
  const auto q = layout_partition(model_with(4, 1), "Ett|tt,mL", 2);
  EXPECT_EQ(q[1].mtp_layers, 1);
  EXPECT_EQ(q[0].mtp_layers, 0);
}

TEST(Layout, PartitionMatchesUniformWhenWrittenAsUniform) {
  const ModelSpec m = model_with(8, 0);
  const auto u = partition_layers(m, 4, PartitionMode::Uniform, 1);
  const auto l = layout_partition(m, "Ett|tt|tt|ttL", 4);
  ASSERT_EQ(u.size(), l.size());
  for (size_t s = 0; s < u.size(); ++s) {
    EXPECT_EQ(u[s].first_layer, l[s].first_layer);
    EXPECT_EQ(u[s].layers, l[s].layers);
    EXPECT_EQ(u[s].embedding, l[s].embedding);
    EXPECT_EQ(u[s].head, l[s].head);
  }
}

TEST(Layout, InconsistentLayoutsAreNamedErrors) {
  const ModelSpec m = model_with(8, 0);
  auto err = [&](const char* text, int stages) {
    return error_of([&] { layout_partition(m, text, stages); });
  };
  EXPECT_NE(err("Et*4|t*4L", 4).find("has 2 virtual stages, the schedule has D·v = 4"),
            std::string::npos);
  EXPECT_NE(err("Et*4|t*3L", 2).find("places 7 transformer layers 't'; model test has 8"),
            std::string::npos);
  EXPECT_NE(err("t*4|t*4L", 2).find("'E' (the embedding) 0 times"), std::string::npos);
  EXPECT_NE(err("EEt*4|t*4L", 2).find("2 times"), std::string::npos);
  EXPECT_NE(err("tEt*3|t*4L", 2).find("position 1: the embedding 'E' must be the first"),
            std::string::npos);
  EXPECT_NE(err("Et*4|t*3Lt", 2).find("position 10: the loss 'L' must be the last"),
            std::string::npos);
  EXPECT_NE(err("Et*4|t*4mL", 2)
                .find("places 1 multi-token-prediction layers 'm'; model test "
                      "has 0"),
            std::string::npos);
  const ModelSpec mtp = model_with(4, 1);
  EXPECT_NE(error_of([&] {
              layout_partition(mtp, "Ettm|ttL", 2);
            }).find("position 6: transformer layers must come before the MTP layers"),
            std::string::npos);
  EXPECT_EQ(err("", 1).find("position"), std::string::npos);
  EXPECT_FALSE(err("", 1).empty());
}

TEST(Partition, AccountModesGiveTheirEndASlot) {
  // L = 8 over D = 3: uniform over 8 slots (2,3,3); the embedding counted, over 9 (3,3,3) the
  // first stage's first slot the embedding's; the loss likewise at the end; both, over 10
  // (3,3,4) less one at each end.
  const ModelSpec m = model_with(8, 0);
  auto counts = [&](PartitionMode mode) {
    std::vector<int> n;
    for (const auto& s : partition_layers(m, 3, mode, 1))
      n.push_back(s.layers);
    return n;
  };
  EXPECT_EQ(counts(PartitionMode::Uniform), (std::vector<int>{2, 3, 3}));
  EXPECT_EQ(counts(PartitionMode::AccountEmbedding), (std::vector<int>{2, 3, 3}));
  EXPECT_EQ(counts(PartitionMode::AccountLoss), (std::vector<int>{3, 3, 2}));
  EXPECT_EQ(counts(PartitionMode::AccountEnds), (std::vector<int>{2, 3, 3}));
  // One end counted: L + 1 stages can be filled, the counted end's stage then holding no layer.
  const auto e = partition_layers(m, 9, PartitionMode::AccountEmbedding, 1);
  EXPECT_EQ(e.front().layers, 0);
  EXPECT_TRUE(e.front().embedding);
  EXPECT_EQ(e.back().layers, 1);
  const auto l = partition_layers(m, 9, PartitionMode::AccountLoss, 1);
  EXPECT_EQ(l.back().layers, 0);
  EXPECT_TRUE(l.back().head);
  EXPECT_THROW(partition_layers(m, 10, PartitionMode::AccountLoss, 1), core::ConfigError);
  EXPECT_NO_THROW(partition_layers(m, 10, PartitionMode::AccountEnds, 1));
}

}  // namespace
}  // namespace pipesim::models
