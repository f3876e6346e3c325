// The DOT export (sim/graph_export.hpp): one node per task, one edge statement per edge styled
// by its kind, a cluster per worker holding exactly its compute ops and optimizer step, labels
// naming the task, and a clear refusal above the size limit. GraphViz itself parses the output
// in ctest export_dot_graphviz.

#include "pipesim/sim/graph_export.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "../support/run_helpers.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1))
    ++n;
  return n;
}

TEST(GraphExport, WritesEveryTaskAndEdgeOnce) {
  schedules::ScheduleParams p;
  p.stages = 3;
  p.micro_batches = 4;
  const scenario::Result r = testing::run_unit("1f1b", p, {1, 2, 0, 0});
  const sim::TaskGraph& g = r.graph;
  const std::string dot = sim::to_dot(g, "1f1b D=3 N=4");
  EXPECT_EQ(dot.rfind("digraph G {", 0), 0u);
  EXPECT_NE(dot.find("label=\"1f1b D=3 N=4\";"), std::string::npos);
  size_t program_order = 0, sync = 0;
  for (const sim::Edge& e : g.edge_kinds()) {
    program_order += e.kind == sim::EdgeKind::ProgramOrder;
    sync += e.kind == sim::EdgeKind::Sync;
  }
  EXPECT_EQ(count(dot, "->"), g.num_edges() + count(dot, "->w"));  // edges, and transfer labels
  EXPECT_EQ(count(dot, "style=dashed"), program_order);
  EXPECT_EQ(count(dot, "style=dotted"), sync);
  // Node statements: "<id>[label=\"...\", shape=box|ellipse]", one per task. Parsed by hand:
  // std::regex trips g++ 12's -Wmaybe-uninitialized inside libstdc++.
  std::set<size_t> ids;
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find_first_not_of(' ');
    const size_t open = line.find("[label=\"");
    if (start == std::string::npos || open == std::string::npos || open == start) continue;
    const std::string digits = line.substr(start, open - start);
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const size_t label_begin = open + 8;
    const size_t label_end = line.find('"', label_begin);
    ASSERT_NE(label_end, std::string::npos) << line;
    const std::string rest = line.substr(label_end);
    EXPECT_TRUE(rest.rfind("\", shape=box]", 0) == 0 || rest.rfind("\", shape=ellipse]", 0) == 0)
        << line;
    const size_t id = std::stoul(digits);
    ASSERT_LT(id, g.num_tasks());
    EXPECT_TRUE(ids.insert(id).second) << "task " << id << " twice";
    EXPECT_EQ(line.substr(label_begin, label_end - label_begin),
              sim::task_label(g, static_cast<sim::TaskId>(id)));
  }
  EXPECT_EQ(ids.size(), g.num_tasks());
  EXPECT_EQ(count(dot, "subgraph cluster_w"), 3u);
  // Worker 1 runs F(stage 1, micro-batch 3); stage 1 sends it to worker 2.
  EXPECT_NE(dot.find("[label=\"F3 s1 w1\", shape=box]"), std::string::npos);
  EXPECT_NE(dot.find("[label=\"S3 s1 w1->w2\", shape=ellipse]"), std::string::npos);
  EXPECT_NE(dot.find("[label=\"O w2\", shape=box]"), std::string::npos);
  EXPECT_NE(dot.find("[label=\"A s0 w0\", shape=ellipse]"), std::string::npos);
  EXPECT_EQ(sim::to_dot(g, "1f1b D=3 N=4"), dot) << "deterministic";
}

TEST(GraphExport, LabelsNameChunksAndPipelinesWhenThereAreSeveral) {
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 8;
  p.options.set("chunks", std::int64_t{2});
  const scenario::Result inter = testing::run_unit("interleaved", p, {1, 2, 0, 0});
  EXPECT_NE(sim::to_dot(inter.graph, "i").find("\"F0 s5 c1 w1\""), std::string::npos);
  p.options = {};
  const scenario::Result chim = testing::run_unit("chimera", p, {1, 2, 0, 0});
  // Micro-batch 2 runs on the up pipeline (1), whose stage 0 is on worker 3.
  EXPECT_NE(sim::to_dot(chim.graph, "c").find("\"F2 s0 p1 w3\""), std::string::npos);
}

TEST(GraphExport, TitleIsQuoted) {
  sim::TaskGraphBuilder b(1);
  b.add_task({});
  const std::string dot = sim::to_dot(std::move(b).build(), "file:a\"b\\c\nd");
  EXPECT_NE(dot.find(R"(label="file:a\"b\\c\nd";)"), std::string::npos) << dot;
}

TEST(GraphExport, RefusesGraphsAboveTheLimit) {
  sim::TaskGraphBuilder b(1);
  for (size_t i = 0; i <= sim::kMaxDotTasks; ++i)
    b.add_task({});
  const sim::TaskGraph g = std::move(b).build();
  try {
    (void)sim::to_dot(g, "big");
    FAIL() << "no error";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("200001 tasks; a DOT export holds at most 200000"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pipesim
