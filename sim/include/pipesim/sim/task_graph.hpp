#pragma once
// The task DAG a schedule lowers to (Boost.Graph adjacency_list). Vertices are tasks; edges are
// data dependencies, program order on a worker's stream, and gradient synchronisation.

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <vector>

#include "pipesim/sim/op.hpp"

namespace pipesim::sim {

using TaskId = std::uint32_t;

struct Task {
  OpKind kind = OpKind::Forward;
  int worker = 0;       //!< executing worker; the sender for a Transfer
  int peer = -1;        //!< receiver of a Transfer, otherwise −1
  int pipeline = 0;     //!< for Transfer: of the op that produced the message
  int stage = 0;        //!< for AllReduce: the stage whose gradients are reduced
  int chunk = 0;
  int micro_batch = -1; //!< −1 for AllReduce and Optimizer
  int group = -1;       //!< AllReduce: index into TaskGraph::group_workers()

  Op op() const { return Op{kind, pipeline, stage, chunk, micro_batch}; }
};

enum class EdgeKind : std::uint8_t {
  Data,          //!< the consumer needs the producer's output
  ProgramOrder,  //!< consecutive ops of one worker's compute stream
  Sync,          //!< gradient synchronisation and optimizer step
};

//! Edge property. A struct with a default keeps g++ 12's -Wmaybe-uninitialized quiet when
//! Boost copies edges.
struct Edge {
  EdgeKind kind = EdgeKind::Data;
};

class TaskGraph {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task, Edge>;

  explicit TaskGraph(int workers) : workers_(workers) {}

  TaskId add_task(const Task& task);
  void add_edge(TaskId from, TaskId to, EdgeKind kind);
  //! Registers the workers taking part in an all-reduce; returns the group index.
  int add_group(std::vector<int> workers);
  void reserve(size_t tasks);

  int workers() const { return workers_; }
  size_t num_tasks() const { return boost::num_vertices(graph_); }
  size_t num_edges() const { return boost::num_edges(graph_); }
  const Task& task(TaskId id) const { return graph_[id]; }
  const Graph& graph() const { return graph_; }
  const std::vector<std::vector<int>>& group_workers() const { return groups_; }

 private:
  int workers_;
  Graph graph_;
  std::vector<std::vector<int>> groups_;
};

}  // namespace pipesim::sim
