#include "pipesim/sim/task_graph.hpp"

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {

TaskId TaskGraph::add_task(const Task& task) {
  PIPESIM_ASSERT(task.worker >= 0 && task.worker < workers_, "task on a worker out of range");
  return static_cast<TaskId>(boost::add_vertex(task, graph_));
}

void TaskGraph::add_edge(TaskId from, TaskId to, EdgeKind kind) {
  PIPESIM_ASSERT(from < num_tasks() && to < num_tasks() && from != to, "bad edge");
  boost::add_edge(from, to, Edge{kind}, graph_);
}

int TaskGraph::add_group(std::vector<int> workers) {
  groups_.push_back(std::move(workers));
  return static_cast<int>(groups_.size()) - 1;
}

void TaskGraph::reserve(size_t tasks) { graph_.m_vertices.reserve(tasks); }

}  // namespace pipesim::sim
