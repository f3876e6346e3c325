// The `pipesim` Python module: simulate, sweep, compare, search, validate and the lists as
// functions, a thin shell over the library the CLI is a shell over too (scenario, sweep,
// search, validation, report; no CLI code): keyword arguments are option names of
// scenario::options() and their values are checked by that table's declarations; simulate() and
// validate() return the JSON the CLI prints (read back with json.loads); sweep(), compare() and
// search() return rows with the CSV's columns and typed values (row_values.hpp); errors name
// options as keywords (core::python_wording: `stages=`). python/README.md maps the files.

#include <dlfcn.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "option_values.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"
#include "pipesim/core/wording.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/report/compare_report.hpp"
#include "pipesim/report/run_report.hpp"
#include "pipesim/report/search_report.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/search/search.hpp"
#include "pipesim/search/winners.hpp"
#include "pipesim/sweep/ranking.hpp"
#include "pipesim/sweep/sweep_grid.hpp"
#include "pipesim/sweep/sweep_runner.hpp"
#include "pipesim/sweep/thread_pool.hpp"
#include "pipesim/validation/validation.hpp"
#include "pipesim/validation/validation_report.hpp"
#include "row_values.hpp"

// Set by python/CMakeLists.txt: <install dir of this module> → <prefix>/share/pipesim.
#ifndef PIPESIM_DATA_DIR_FROM_MODULE
#error "PIPESIM_DATA_DIR_FROM_MODULE must be defined by the build"
#endif

namespace py = pybind11;

namespace pipesim::python {
namespace {

// Most sweep jobs, as the CLI's --jobs allows.
constexpr int kMaxJobs = sweep::kMaxJobs;

// core finds shipped models and hardware next to the running executable (bin/../share/pipesim),
// which for a module is the Python interpreter. An installed module instead reads the data of
// the prefix it was installed in, as that prefix's bin/pipesim does, so a moved prefix keeps
// working: when $PIPESIM_DATA_DIR is unset and <module dir>/../../../share/pipesim exists, the
// import sets it there (os.environ, so Python sees it too). A build-tree module has no such
// folder and falls back to the source tree, like the build-tree CLI.
void use_installed_data_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&use_installed_data_dir), &info) == 0 ||
      info.dli_fname == nullptr) {
    return;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path module = fs::absolute(info.dli_fname, ec);
  if (ec) return;
  const fs::path data = (module.parent_path() / PIPESIM_DATA_DIR_FROM_MODULE).lexically_normal();
  if (fs::is_directory(data / "models", ec)) {
    py::module_::import("os").attr("environ").attr("setdefault")("PIPESIM_DATA_DIR", data.string());
  }
}

py::object json_loads(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

// A scenario from keyword arguments: every option at its default, then the given values;
// a given option that does not apply (pipelines for 1f1b) is an error, as on the command line.
scenario::Scenario scenario_of(const py::kwargs& kwargs) {
  scenario::Scenario s = scenario::make_scenario({});
  std::vector<std::string> given;
  for (const auto& [option, value] : option_arguments("simulate", kwargs)) {
    option->set(s, option_value(*option, value));
    given.push_back(option->name());
  }
  scenario::require_applicable(s, given);
  return s;
}

// Runs `body`, turning a user error into a ValueError in the module's words: options as
// keywords, the call as the source (`simulate(): stages=: must be ...`).
template <class Body>
auto worded(const char* call, Body body) {
  try {
    return body();
  } catch (const core::ConfigError& e) {
    throw py::value_error(core::python_wording(e, call));
  }
}

py::dict simulate(bool ops, const py::kwargs& kwargs) {
  return worded("simulate()", [&] {
    const scenario::Scenario spec = scenario_of(kwargs);
    std::string json;
    {
      const py::gil_scoped_release release;  // a long run does not block other Python threads
      json = report::to_json(spec, scenario::simulate(spec), ops).dump();
    }
    return json_loads(json);
  });
}

void check_jobs(int jobs) {
  if (jobs < 0 || jobs > kMaxJobs) {
    throw py::value_error(fmt::format("jobs: must be in [0, {}], got {}", kMaxJobs, jobs));
  }
}

// The rows of the grid that keyword arguments (lists allowed) and a sweep file describe, as
// `pipesim sweep` runs them; `call` words the errors.
std::vector<scenario::SweepRow> grid_rows(const char* call, const py::object& file, int jobs,
                                          const py::kwargs& kwargs) {
  check_jobs(jobs);
  const std::string function(call, std::string_view(call).find('('));
  return worded(call, [&] {
    sweep::OptionTexts given;
    for (const auto& [option, value] : option_arguments(function.c_str(), kwargs))
      given[option->name()] = values_text(*option, value);
    const sweep::SweepGrid grid =
        sweep::make_grid(given, file.is_none() ? std::string() : py::str(file).cast<std::string>());
    const py::gil_scoped_release release;
    return sweep::run_grid(grid, sweep::job_count(jobs), [call](const core::ConfigError& e) {
      return core::python_wording(e, call);
    });
  });
}

py::list sweep(const py::object& file, int jobs, const py::kwargs& kwargs) {
  return row_list(grid_rows("sweep()", file, jobs, kwargs));
}

// `pipesim compare`: the sweep ranked by a metric within each mini-batch (sweep/ranking.hpp).
py::dict compare(const py::object& rank_by, const py::object& file, int jobs,
                 const py::kwargs& kwargs) {
  const std::vector<scenario::SweepRow> rows = grid_rows("compare()", file, jobs, kwargs);
  return worded("compare()", [&] {
    const sweep::RankMetric metric =
        rank_by.is_none() ? sweep::default_rank_metric(rows) : sweep::rank_metric(py::str(rank_by));
    const std::vector<report::RankedGroup> groups = sweep::ranked_groups(rows, metric);
    std::vector<bool> ranked(rows.size(), false);
    py::list out_groups;
    for (const report::RankedGroup& g : groups) {
      py::list group_rows;
      for (const size_t i : g.order) {
        group_rows.append(row_dict(rows[i]));
        ranked[i] = true;
      }
      py::dict group;
      group["label"] = g.label;
      group["rows"] = group_rows;
      group["per_gpu"] = g.gpu_counts.size() > 1;
      out_groups.append(group);
    }
    py::list not_ranked;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!ranked[i]) not_ranked.append(row_dict(rows[i]));
    }
    py::dict out;
    out["rank_by"] = metric.name;
    out["higher_is_better"] = metric.higher_is_better;
    out["groups"] = out_groups;
    out["not_ranked"] = not_ranked;
    out["text"] = report::compare_table(rows, groups, {metric.name, metric.higher_is_better});
    return out;
  });
}

// A comma list from a str (kept as given: list or range text), an int, or a list, tuple or
// range of them.
std::string list_text(const py::handle value) {
  if (py::isinstance<py::str>(value) || py::isinstance<py::int_>(value))
    return py::str(value).cast<std::string>();
  std::string text;
  for (const py::handle item : py::iter(value)) {
    if (!text.empty()) text += ',';
    text += list_text(item);
  }
  return text;
}

// `pipesim search`: every candidate's row (`--all`), and the winners, one per schedule, ranked.
py::dict search(const std::string& model, const std::string& hardware, long long gpus,
                long long mini_batch, const py::object& schedules, const py::object& recompute,
                const py::object& tensor_parallel, const py::object& context_parallel,
                const py::object& expert_parallel, const py::object& expert_tensor_parallel,
                int jobs, const py::kwargs& kwargs) {
  check_jobs(jobs);
  return worded("search()", [&] {
    search::SearchArgs args;
    // Every other option (sequence=, precision=, ...) is fixed for all candidates, as the
    // command line's; make_search_request refuses those search chooses itself.
    for (const auto& [option, value] : option_arguments("search", kwargs))
      args.fixed[option->name()] = values_text(*option, value);
    args.model = model;
    args.hardware = hardware;
    args.gpus = std::to_string(gpus);
    args.mini_batch = std::to_string(mini_batch);
    if (!schedules.is_none()) args.schedules = list_text(schedules);
    if (!recompute.is_none()) args.recompute = list_text(recompute);
    if (!tensor_parallel.is_none()) args.tensor_parallel = list_text(tensor_parallel);
    if (!context_parallel.is_none()) args.context_parallel = list_text(context_parallel);
    if (!expert_parallel.is_none()) args.expert_parallel = list_text(expert_parallel);
    if (!expert_tensor_parallel.is_none()) {
      args.expert_tensor_parallel = list_text(expert_tensor_parallel);
    }
    search::SearchRequest request = search::make_search_request(args);
    scenario::SpecCache specs;
    std::vector<scenario::SweepRow> rows;
    {
      const py::gil_scoped_release release;
      rows = search::run_search(
          request, specs, sweep::job_count(jobs),
          [](const core::ConfigError& e) { return core::python_wording(e, "search()"); });
    }
    const search::Winners won = search::winners_per_group(rows, report::input_column("schedule"));
    py::list winners;
    int rank = 0;
    for (const size_t i : won.rows) {
      py::dict w;
      w["rank"] = ++rank;
      for (const auto& [key, value] : row_dict(rows[i]))
        w[key] = value;
      w["limited_by"] = scenario::limiting_factor(rows[i].metrics);
      winners.append(w);
    }
    py::dict out;
    out["rank_by"] = won.metric.label();
    out["winners"] = winners;
    out["rows"] = row_list(rows);
    return out;
  });
}

// `pipesim validate --format json`: every point of the run files (none: the shipped ones)
// predicted, and the error statistics.
py::object validate(const std::vector<std::string>& files) {
  return worded("validate()", [&] {
    std::string json;
    {
      const py::gil_scoped_release release;
      const validation::Validation v = validation::validate(files);
      json = validation::validation_json(v.points, v.summary);
    }
    return json_loads(json);
  });
}

// Rows as a pandas DataFrame, columns in CSV order (pandas is optional: ImportError without it).
py::object to_dataframe(const py::list& rows) {
  py::module_ pandas;
  try {
    pandas = py::module_::import("pandas");
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    throw py::import_error("to_dataframe() needs pandas (Debian: python3-pandas)");
  }
  py::list columns;
  if (rows.empty()) {
    for (const std::string& c : scenario::csv_columns())
      columns.append(c);
  } else {
    for (const auto& item : rows[0].cast<py::dict>())
      columns.append(item.first);
  }
  return pandas.attr("DataFrame")(rows, py::arg("columns") = columns);
}

py::list list_schedules() {
  py::list out;
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    py::dict d;
    d["name"] = e.name;
    d["description"] = e.description;
    d["citation"] = e.citation;
    out.append(std::move(d));
  }
  return out;
}

// Shipped files as `pipesim list models|hardware` shows them: name and description.
template <typename Load>
py::list list_shipped(const std::vector<std::string>& names, Load load) {
  py::list out;
  for (const std::string& name : names) {
    py::dict d;
    d["name"] = name;
    d["description"] = load(name).description;
    out.append(std::move(d));
  }
  return out;
}

py::list list_options() {
  py::list out;
  for (const scenario::Option& o : scenario::options()) {
    py::dict d;
    d["name"] = o.name();
    d["default"] = scenario::default_help(o);
    d["type"] = o.spec.type_name();
    d["help"] = o.spec.help;
    out.append(std::move(d));
  }
  return out;
}

// The options part of simulate's and sweep's docstrings, from the table.
std::string options_doc() {
  std::string doc = "\nOptions (keyword arguments; default in brackets):\n";
  for (const scenario::Option& o : scenario::options()) {
    doc += fmt::format("  {} [{}]: {}\n", o.name(), scenario::default_help(o), o.spec.help);
  }
  return doc;
}

const char* simulate_doc() {
  static const std::string doc =  // built once, read-only: pybind11 keeps the pointer
      "Simulates one scenario; returns the dict `pipesim simulate --format json` prints.\n\n"
      "Each option takes its own type: int, float, True/False for on/off options, str for\n"
      "names (a str is also read as on the command line); None keeps the default. ops=True\n"
      "lists each worker's ops. Raises ValueError naming the option (stages=) for a bad value.\n" +
      options_doc();
  return doc.c_str();
}

const char* sweep_doc() {
  static const std::string doc =
      "Simulates the cartesian product of option values in parallel; returns one dict per\n"
      "configuration, keyed by the CSV columns of `pipesim sweep`, each value typed: int, float,\n"
      "bool (on|off options, fits_memory), str, or None where the CSV field is empty. An option\n"
      "takes a value, a list/tuple/range of values, or list/range text (\"4,8\", \"8:64:x2\").\n"
      "file: a YAML sweep file (keyword arguments win over it); jobs: parallel simulations,\n"
      "0 = one per hardware thread. Raises ValueError naming the option (stages=) for a bad\n"
      "value.\n" +
      options_doc();
  return doc.c_str();
}

const char* compare_doc() {
  static const std::string doc =
      "`pipesim compare`: sweep() (same arguments), ranked by rank_by (default: throughput, or\n"
      "iteration_time in unit-cost mode) among the rows of equal work (one mini-batch). Returns\n"
      "a dict: rank_by, higher_is_better, groups (a list of {label, rows}, rows best first),\n"
      "not_ranked (the rows that did not run or lack the metric) and text (the CLI's table).\n" +
      options_doc();
  return doc.c_str();
}

}  // namespace
}  // namespace pipesim::python

PYBIND11_MODULE(pipesim, m) {
  using namespace pipesim;
  using namespace pipesim::python;
  m.doc() =
      "pipesim: simulate pipeline-parallel training schedules (GPipe, 1F1B, Chimera, ...).\n"
      "simulate() and sweep() take the CLI's options as keyword arguments (stages=4,\n"
      "micro_batches=8, ...) and return what `pipesim simulate --format json` and\n"
      "`pipesim sweep` print.";
  m.attr("__version__") = std::string(core::version);
  use_installed_data_dir();
  // A user error (bad value, invalid schedule, unknown model) is a ValueError naming the option
  // as a keyword (`stages=`).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const core::ConfigError& e) {
      PyErr_SetString(PyExc_ValueError, core::python_wording(e).c_str());
    }
  });
  m.def("simulate", &simulate, simulate_doc(), py::kw_only(), py::arg("ops") = false);
  // python::sweep and python::search: pipesim::sweep and pipesim::search are namespaces too.
  m.def("sweep", &python::sweep, sweep_doc(), py::kw_only(), py::arg("file") = py::none(),
        py::arg("jobs") = 0);
  m.def("compare", &compare, compare_doc(), py::kw_only(), py::arg("rank_by") = py::none(),
        py::arg("file") = py::none(), py::arg("jobs") = 0);
  m.def("search", &python::search,
        "`pipesim search`: every configuration of `model` on `gpus` GPUs for a mini-batch of\n"
        "`mini_batch` samples (D | P, W = P/D, power-of-two B, recomputation and schedule\n"
        "options), simulated in parallel. schedules, recompute, tensor_parallel,\n"
        "context_parallel, expert_parallel, expert_tensor_parallel: a list or comma text\n"
        "(default: every schedule, none/selective/full, the T a node allows, C = E = e_t = 1).\n"
        "model: a shipped name, a model YAML or a Hugging Face config.json (give sequence=).\n"
        "Any other simulate() option (sequence=, precision=, Megatron names too) holds for\n"
        "every candidate. Returns a dict: rank_by,\n"
        "winners (the best fitting row of each schedule, best first, with rank and limited_by)\n"
        "and rows (every candidate, typed as sweep()'s, in enumeration order).",
        py::arg("model"), py::arg("hardware"), py::kw_only(), py::arg("gpus"),
        py::arg("mini_batch"), py::arg("schedules") = py::none(), py::arg("recompute") = py::none(),
        py::arg("tensor_parallel") = py::none(), py::arg("context_parallel") = py::none(),
        py::arg("expert_parallel") = py::none(), py::arg("expert_tensor_parallel") = py::none(),
        py::arg("jobs") = 0);
  m.def("validate", &validate,
        "`pipesim validate --format json`: the published measured runs (files: run YAML files;\n"
        "none: every shipped one) predicted, as a dict of points and summary.",
        py::arg("files") = std::vector<std::string>{});
  m.def("to_dataframe", &to_dataframe,
        "Rows of sweep(), search()['rows'] or compare() as a pandas DataFrame (needs pandas).",
        py::arg("rows"));
  m.def("schedules", &list_schedules,
        "The schedules: a list of dicts with name, description and citation "
        "(`pipesim list schedules`).");
  m.def(
      "models", [] { return list_shipped(models::shipped_models(), models::load_model); },
      "The shipped models: a list of dicts with name and description (`pipesim list models`).");
  m.def(
      "hardware",
      [] {
        py::list out = list_shipped(hardware::shipped_profiles(), hardware::load_profile);
        for (py::handle entry : out) {
          py::dict d = py::reinterpret_borrow<py::dict>(entry);
          py::dict curves;
          const hardware::HardwareProfile p = hardware::load_profile(d["name"].cast<std::string>());
          for (const auto& [key, text] : p.provenance.curves)
            curves[py::str(key)] = text;
          d["curves"] = curves;
        }
        return out;
      },
      "The shipped hardware profiles: a list of dicts with name, description and curves (each "
      "efficiency curve's provenance, \"<kind>: <source>\") (`pipesim list hardware`).");
  m.def("options", &list_options,
        "The options simulate() and sweep() take: a list of dicts with name, default and help.");
}
