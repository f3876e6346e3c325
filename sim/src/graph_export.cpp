#include "pipesim/sim/graph_export.hpp"

#include <fmt/format.h>

#include <boost/graph/graphviz.hpp>
#include <ostream>
#include <sstream>
#include <string_view>
#include <vector>

#include "bgl_view.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim::sim {
namespace {

// Compute ops and optimizer steps run on their worker's GPU: they go in its cluster.
bool on_worker(OpKind kind) {
  return is_compute(kind) || kind == OpKind::Optimizer;
}

// What the labels show beyond kind, micro-batch, stage and worker.
struct LabelParts {
  bool chunks = false;
  bool pipelines = false;
};

LabelParts label_parts(const TaskGraph& graph) {
  LabelParts parts;
  for (const Task& t : graph.tasks()) {
    parts.chunks = parts.chunks || t.chunk > 0;
    parts.pipelines = parts.pipelines || t.pipeline > 0;
  }
  return parts;
}

// A DOT string literal: quotes and backslashes escaped, line breaks as \n.
std::string quoted(std::string_view text) {
  std::string s = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    if (c == '\n') {
      s += "\\n";
    } else if (c != '\r') {
      s += c;
    }
  }
  return s + "\"";
}

std::string label(const Task& t, LabelParts parts) {
  std::string s(1, op_letter(t.kind));
  if (t.micro_batch >= 0) s += fmt::format("{}", t.micro_batch);
  if (t.kind != OpKind::Optimizer) {
    s += fmt::format(" s{}", t.stage);
    if (parts.chunks) s += fmt::format(" c{}", t.chunk);
    if (parts.pipelines) s += fmt::format(" p{}", t.pipeline);
  }
  s += fmt::format(" w{}", t.worker);
  if (t.peer >= 0) s += fmt::format("->w{}", t.peer);
  return s;
}

}  // namespace

std::string task_label(const TaskGraph& graph, TaskId id) {
  return label(graph.task(id), label_parts(graph));
}

std::string to_dot(const TaskGraph& graph, std::string_view title) {
  if (graph.num_tasks() > kMaxDotTasks) {
    throw core::ConfigError(
        "task graph", "tasks",
        fmt::format("{} tasks; a DOT export holds at most {} (GraphViz does not lay out more): "
                    "use fewer stages or micro-batches",
                    graph.num_tasks(), kMaxDotTasks));
  }
  const detail::DagView view = detail::dag_view(graph);
  const LabelParts parts = label_parts(graph);
  // Graph attributes, then each worker's cluster naming its nodes (a node's later statement
  // sets its attributes; its membership stays). newrank ranks nodes across clusters as one
  // graph, so each worker's ops line up left to right in dependency order like a timeline.
  auto graph_writer = [&](std::ostream& out) {
    out << "label=" << quoted(title) << ";\nlabelloc=t;\n"
        << "rankdir=LR;\nnewrank=true;\nnode [fontname=\"Helvetica\", fontsize=10];\n";
    std::vector<std::vector<TaskId>> members(static_cast<size_t>(graph.workers()));
    for (TaskId v = 0; v < graph.num_tasks(); ++v) {
      const Task& t = graph.task(v);
      if (on_worker(t.kind)) members[static_cast<size_t>(t.worker)].push_back(v);
    }
    for (size_t w = 0; w < members.size(); ++w) {
      out << "subgraph cluster_w" << w << " {\nlabel=\"worker " << w << "\";\n";
      for (TaskId v : members[w])
        out << v << ";\n";
      out << "}\n";
    }
  };
  auto vertex_writer = [&](std::ostream& out, TaskId v) {
    const Task& t = graph.task(v);
    out << "[label=\"" << label(t, parts) << "\", shape=" << (on_worker(t.kind) ? "box" : "ellipse")
        << "]";
  };
  auto edge_writer = [&](std::ostream& out, const detail::DagView::edge_descriptor& e) {
    switch (view[e]) {
      case EdgeKind::Data:
        break;
      case EdgeKind::ProgramOrder:
        out << "[style=dashed, color=grey50]";
        break;
      case EdgeKind::Sync:
        out << "[style=dotted, color=blue]";
        break;
    }
  };
  std::ostringstream out;
  boost::write_graphviz(out, view, vertex_writer, edge_writer, graph_writer);
  return out.str();
}

}  // namespace pipesim::sim
