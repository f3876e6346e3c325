#include "pipesim/sim/task_graph.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {

std::vector<TaskId> TaskGraph::in_degrees() const {
  std::vector<TaskId> degree(num_tasks(), 0);
  for (TaskId target : successors())
    ++degree[target];
  return degree;
}

TaskId TaskGraphBuilder::add_task(const Task& task) {
  PIPESIM_ASSERT(task.worker >= 0 && task.worker < workers_, "task on a worker out of range");
  tasks_.push_back(task);
  return static_cast<TaskId>(tasks_.size() - 1);
}

void TaskGraphBuilder::add_edge(TaskId from, TaskId to, EdgeKind kind) {
  PIPESIM_ASSERT(from < tasks_.size() && to < tasks_.size() && from != to, "bad edge");
  edges_.emplace_back(from, to);
  edge_props_.push_back(Edge{kind});
}

int TaskGraphBuilder::add_group(std::vector<int> workers) {
  groups_.push_back(std::move(workers));
  return static_cast<int>(groups_.size()) - 1;
}

void TaskGraphBuilder::reserve(size_t tasks, size_t edges) {
  tasks_.reserve(tasks);
  edges_.reserve(edges);
  edge_props_.reserve(edges);
}

TaskGraph TaskGraphBuilder::build() && {
  TaskGraph g;
  g.workers_ = workers_;
  // Counting sort by source; edges of one source keep the order they were added in. Vertex i is
  // task i; the CSR arrays are moved out so no Boost type reaches the header.
  using Csr = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, Edge,
                                                 boost::no_property, TaskId, TaskId>;
  Csr csr(boost::edges_are_unsorted_multi_pass, edges_.begin(), edges_.end(), edge_props_.begin(),
          static_cast<TaskId>(tasks_.size()));
  g.offsets_ = std::move(csr.m_forward.m_rowstart);
  g.successors_ = std::move(csr.m_forward.m_column);
  g.edges_ = std::move(csr.m_forward.m_edge_properties);
  g.tasks_ = std::move(tasks_);
  g.groups_ = std::move(groups_);
  tasks_.clear();
  edges_.clear();
  edge_props_.clear();
  return g;
}

}  // namespace pipesim::sim
