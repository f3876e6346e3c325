#pragma once
// The task DAG for GraphViz (Boost.Graph write_graphviz), to look at what a schedule lowers to.

#include <cstddef>
#include <string>
#include <string_view>

#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

//! Most tasks to_dot() writes. GraphViz's dot layout grows faster than linearly: a few
//! thousand tasks take seconds, beyond this it does not finish in reasonable time; a graph
//! this large is refused, not written.
inline constexpr std::size_t kMaxDotTasks = 200000;

//! A task as a node label: kind letter and micro-batch, then stage, worker ("F3 s2 w1"); the
//! chunk and pipeline when the graph has several ("F3 s2 c1 w1", "F3 s2 p1 w1"); a transfer
//! names both workers ("S3 s2 w1->w2"); tasks of no micro-batch omit it ("A s2 w0", "O w1").
std::string task_label(const TaskGraph& graph, TaskId id);

//! The graph in GraphViz's DOT language, left to right: one node per task (compute ops and
//! optimizer steps as boxes inside one cluster per worker, communication as ellipses between
//! them), edges drawn by kind: data solid, program order dashed grey, sync dotted blue.
//! `title` labels the graph. Throws core::ConfigError when the graph has more than
//! kMaxDotTasks tasks.
std::string to_dot(const TaskGraph& graph, std::string_view title);

}  // namespace pipesim::sim
