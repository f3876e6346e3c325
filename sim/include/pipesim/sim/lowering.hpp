#pragma once
// Schedule → TaskGraph, the one shared builder (docs/architecture.md §3), and the validator that
// proves a schedule sound before it is simulated.

#include <string>

#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

//! Empty when the schedule is complete and consistent: dimensions agree, every op is on the
//! worker that holds its stage, each required op appears exactly once, no foreign kinds.
//! Otherwise the first problem found, in words.
std::string check_structure(const Schedule& schedule);

//! Lowers a structurally valid schedule (asserted) to its task DAG:
//!  - data edges F(s,m)→F(s+1,m), F(last,m)→B(last,m), B(s+1,m)→B(s,m) (I likewise), I→W,
//!    F→R→B; an edge between two workers goes through a Transfer task;
//!  - program-order edges between consecutive ops of each worker; compute tasks are numbered
//!    worker by worker in program order (metrics rely on it);
//!  - one AllReduce per stage after that stage's last backward on every worker that holds it,
//!    then one Optimizer per worker after all of its stages' all-reduces.
TaskGraph build_task_graph(const Schedule& schedule);

//! Empty when the graph (program order included) is acyclic; otherwise names a worker and the
//! op it is stuck at: such a schedule would deadlock.
std::string check_acyclic(const TaskGraph& graph);

struct ValidationResult {
  bool ok = false;
  std::string reason;  //!< why not, when !ok
};

//! check_structure, then build and check_acyclic.
ValidationResult validate(const Schedule& schedule);

}  // namespace pipesim::sim
