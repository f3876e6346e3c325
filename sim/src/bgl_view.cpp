#include "bgl_view.hpp"

#include <vector>

namespace pipesim::sim::detail {
namespace {

using Edges = std::vector<std::pair<TaskId, TaskId>>;

// The graph's edges in its CSR order (sorted by source).
Edges graph_edges(const TaskGraph& graph, size_t room) {
  const auto offset = graph.successor_offsets();
  const auto succ = graph.successors();
  Edges edges;
  edges.reserve(succ.size() + room);
  for (TaskId v = 0; v < graph.num_tasks(); ++v) {
    for (TaskId i = offset[v]; i < offset[v + 1]; ++i)
      edges.emplace_back(v, succ[i]);
  }
  return edges;
}

}  // namespace

DagView dag_view(const TaskGraph& graph) {
  const Edges edges = graph_edges(graph, 0);
  std::vector<EdgeKind> kinds;
  kinds.reserve(edges.size());
  for (const Edge& e : graph.edge_kinds())
    kinds.push_back(e.kind);
  return DagView(boost::edges_are_sorted, edges.begin(), edges.end(), kinds.begin(),
                 static_cast<TaskId>(graph.num_tasks()));
}

OrderView order_view(const TaskGraph& graph, std::span<const std::pair<TaskId, TaskId>> extra) {
  Edges edges = graph_edges(graph, extra.size());
  edges.insert(edges.end(), extra.begin(), extra.end());
  return OrderView(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(),
                   static_cast<TaskId>(graph.num_tasks()));
}

}  // namespace pipesim::sim::detail
