#pragma once
// Boost.Graph's views of a TaskGraph, for the analyses off the replay's hot path (critical path,
// DOT export). The replay keeps its own CSR arrays; these views are built from them in
// O(tasks + edges) when an analysis asks, so Boost.Graph's algorithms (topological_sort,
// write_graphviz) run on the same vertices (task ids) and edges.

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <limits>
#include <span>
#include <utility>

#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim::detail {

inline constexpr TaskId kNoTask = std::numeric_limits<TaskId>::max();

//! The task DAG, each edge carrying its EdgeKind (g[e]), in the TaskGraph's edge order.
using DagView = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, EdgeKind,
                                                   boost::no_property, TaskId, TaskId>;
DagView dag_view(const TaskGraph& graph);

//! The task DAG plus `extra` edges (from, to), without edge kinds.
using OrderView =
    boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                       boost::no_property, TaskId, TaskId>;
OrderView order_view(const TaskGraph& graph, std::span<const std::pair<TaskId, TaskId>> extra);

}  // namespace pipesim::sim::detail
