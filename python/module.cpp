// The `pipesim` Python module: simulate, sweep and the lists as functions, a thin shell over the
// library the CLI is a shell over too (scenario, explore, report; no CLI code): keyword
// arguments are option names of scenario::options() and their values are checked by that
// table's declarations; simulate() returns the JSON the CLI prints (report::to_json, read back
// with json.loads); sweep() returns the CSV rows (report::row_fields under
// scenario::csv_columns()); errors name options as keywords (explore::python_wording:
// `stages=`). python/README.md maps the files.

#include <dlfcn.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "option_values.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"
#include "pipesim/explore/sweep_grid.hpp"
#include "pipesim/explore/sweep_runner.hpp"
#include "pipesim/explore/thread_pool.hpp"
#include "pipesim/explore/wording.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/report/run_report.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/schedules/registry.hpp"

// Set by python/CMakeLists.txt: <install dir of this module> → <prefix>/share/pipesim.
#ifndef PIPESIM_DATA_DIR_FROM_MODULE
#error "PIPESIM_DATA_DIR_FROM_MODULE must be defined by the build"
#endif

namespace py = pybind11;

namespace pipesim::python {
namespace {

// Most sweep jobs, as the CLI's --jobs allows.
constexpr int kMaxJobs = explore::kMaxJobs;

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
    throw py::value_error(explore::python_wording(e, call));
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

// An invalid row's reason in the module's words.
std::string sweep_reason(const core::ConfigError& e) {
  return explore::python_wording(e, "sweep()");
}

py::list sweep(const py::object& file, int jobs, const py::kwargs& kwargs) {
  if (jobs < 0 || jobs > kMaxJobs) {
    throw py::value_error(fmt::format("jobs: must be in [0, {}], got {}", kMaxJobs, jobs));
  }
  const std::vector<scenario::SweepRow> rows = worded("sweep()", [&] {
    explore::OptionTexts given;
    for (const auto& [option, value] : option_arguments("sweep", kwargs))
      given[option->name()] = values_text(*option, value);
    const explore::SweepGrid grid = explore::make_grid(
        given, file.is_none() ? std::string() : py::str(file).cast<std::string>());
    const py::gil_scoped_release release;
    return explore::run_grid(grid, explore::job_count(jobs), sweep_reason);
  });
  const std::vector<std::string> columns = scenario::csv_columns();
  py::list out;
  for (const scenario::SweepRow& row : rows) {
    const std::vector<std::string> fields = report::row_fields(row);
    py::dict d;
    for (size_t i = 0; i < columns.size(); ++i)
      d[py::str(columns[i])] = fields[i];
    out.append(std::move(d));
  }
  return out;
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
      "configuration, keyed by the CSV columns of `pipesim sweep`, every value the CSV field as\n"
      "a str (so rows equal csv.DictReader over the CLI's output). An option takes a value, a\n"
      "list/tuple/range of values, or list/range text (\"4,8\", \"8:64:x2\"). file: a YAML sweep\n"
      "file (keyword arguments win over it); jobs: parallel simulations, 0 = one per hardware\n"
      "thread. Raises ValueError naming the option (stages=) for a bad value.\n" +
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
      PyErr_SetString(PyExc_ValueError, explore::python_wording(e).c_str());
    }
  });
  m.def("simulate", &simulate, simulate_doc(), py::kw_only(), py::arg("ops") = false);
  m.def("sweep", &sweep, sweep_doc(), py::kw_only(), py::arg("file") = py::none(),
        py::arg("jobs") = 0);
  m.def("schedules", &list_schedules,
        "The schedules: a list of dicts with name, description and citation "
        "(`pipesim list schedules`).");
  m.def(
      "models", [] { return list_shipped(models::shipped_models(), models::load_model); },
      "The shipped models: a list of dicts with name and description (`pipesim list models`).");
  m.def(
      "hardware", [] { return list_shipped(hardware::shipped_profiles(), hardware::load_profile); },
      "The shipped hardware profiles: a list of dicts with name and description "
      "(`pipesim list hardware`).");
  m.def("options", &list_options,
        "The options simulate() and sweep() take: a list of dicts with name, default and help.");
}
