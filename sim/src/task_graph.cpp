#include "pipesim/sim/task_graph.hpp"

#include "pipesim/core/assert.hpp"
#include "pipesim/core/huge_pages.hpp"

namespace pipesim::sim {

std::vector<TaskId> TaskGraph::in_degrees() const {
  std::vector<TaskId> degree(num_tasks(), 0);
  for (TaskId target : successors())
    ++degree[target];
  return degree;
}

int TaskGraphBuilder::add_group(std::vector<int> workers) {
  groups_.push_back(std::move(workers));
  return static_cast<int>(groups_.size()) - 1;
}

void TaskGraphBuilder::reserve(size_t tasks, size_t edges) {
  core::reserve_huge(tasks_, tasks);
  op_kinds_.reserve(tasks);
  edges_.reserve(edges);
}

void TaskGraphBuilder::expect_out_degrees(std::vector<TaskId> degrees) {
  PIPESIM_ASSERT(!direct_ && edges_.empty(), "out-degrees given before any edge, once");
  direct_ = true;
  // In place, degree → where the task's first edge goes; next_[v] then advances past v's edges
  // to where v + 1 starts, and build() shifts it by one into the offsets.
  TaskId at = 0;
  for (TaskId& d : degrees) {
    const TaskId first = at;
    at += d;
    d = first;
  }
  degrees.push_back(at);
  next_ = std::move(degrees);
  core::reserve_huge(successors_, at);
  successors_.resize(at);
  core::reserve_huge(kinds_, at);
  kinds_.resize(at);
}

TaskGraph TaskGraphBuilder::build() && {
  TaskGraph g;
  g.workers_ = workers_;
  if (collectives_) {
    g.collectives_ =
        collectives_overlap_ ? TaskGraph::Collectives::Beside : TaskGraph::Collectives::After;
  }
  if (direct_) {
    const size_t n = tasks_.size();
    PIPESIM_ASSERT(next_.size() == n + 1 && (n == 0 || next_[n - 1] == successors_.size()),
                   "edges added as announced by expect_out_degrees");
    for (size_t v = n; v > 0; --v)
      next_[v] = next_[v - 1];
    if (n > 0) next_[0] = 0;
    g.offsets_ = std::move(next_);
    g.successors_ = std::move(successors_);
    g.edges_ = std::move(kinds_);
    g.tasks_ = std::move(tasks_);
    g.kinds_ = std::move(op_kinds_);
    g.groups_ = std::move(groups_);
    g.releases_ = std::move(releases_);
    *this = TaskGraphBuilder(workers_);
    return g;
  }
  // Counting sort by source, stable: the edges of one source keep the order they were added
  // in. offsets_[v + 1] counts v's edges, then holds where v's next edge goes, then (shifted
  // back by one) where v's edges end.
  const size_t n = tasks_.size();
  g.offsets_.assign(n + 1, 0);
  for (const Added& e : edges_)
    ++g.offsets_[e.from + 1];
  for (size_t v = 1; v <= n; ++v)
    g.offsets_[v] += g.offsets_[v - 1];
  g.successors_.resize(edges_.size());
  g.edges_.resize(edges_.size());
  for (const Added& e : edges_) {
    const TaskId at = g.offsets_[e.from]++;
    g.successors_[at] = e.to;
    g.edges_[at] = Edge{e.kind};
  }
  for (size_t v = n; v > 0; --v)
    g.offsets_[v] = g.offsets_[v - 1];
  g.offsets_[0] = 0;
  g.tasks_ = std::move(tasks_);
  g.kinds_ = std::move(op_kinds_);
  g.groups_ = std::move(groups_);
  g.releases_ = std::move(releases_);
  *this = TaskGraphBuilder(workers_);
  return g;
}

}  // namespace pipesim::sim
