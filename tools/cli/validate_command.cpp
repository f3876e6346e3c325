// `pipesim validate [FILES...]`: re-predict published measured runs (validation/*.yaml) and
// print predicted vs measured with the error statistics.

#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "output.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/shipped_files.hpp"
#include "pipesim/validation/prediction_range.hpp"
#include "pipesim/validation/validation.hpp"
#include "pipesim/validation/validation_report.hpp"

namespace pipesim::cli {

Action add_validate_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> files;
    std::string format = "text";
    std::string output;
    bool ranges = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Predict published measured training runs (validation/*.yaml) and print predicted vs "
      "measured, the error per point, per source and overall, and the ranking agreement");
  cmd->add_option("files", o->files, "Validation run files (default: every shipped one)")
      ->type_name("PATH...");
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv", "yaml"}))
      ->type_name("text|json|csv|yaml")
      ->capture_default_str()
      ->group("Output");
  cmd->add_option("--output,-o", o->output, "Write to this file (atomically) instead of stdout")
      ->type_name("PATH")
      ->group("Output");
  cmd->add_flag("--ranges", o->ranges,
                "Print instead the prediction ranges: per class of run, the central 80% of "
                "measured / predicted iteration time, and their leave-one-source-out coverage "
                "(--format yaml: the table predictions read, "
                "validation/ranges/prediction-ranges.yaml)")
      ->group("Output");
  return [o] {
    if (o->ranges && o->format != "text" && o->format != "yaml") {
      throw core::ConfigError("command line", "--format",
                              fmt::format("with --ranges must be text or yaml, got {}", o->format));
    }
    if (!o->ranges && o->format == "yaml") {
      throw core::ConfigError("command line", "--format",
                              "yaml is the prediction ranges' format: add --ranges");
    }
    const validation::Validation v = validation::validate(o->files);
    const auto& points = v.points;
    const auto& summary = v.summary;
    if (o->ranges) {
      constexpr double kCoverage = 0.8;
      const validation::RangeTable table = validation::prediction_ranges(points, kCoverage);
      emit(o->output, o->format == "yaml"
                          ? scenario::range_table_yaml(table)
                          : validation::ranges_text(
                                table, validation::leave_one_source_out(points, kCoverage)));
    } else if (o->format == "json") {
      emit(o->output, validation::validation_json(points, summary));
    } else if (o->format == "csv") {
      emit(o->output, validation::validation_csv(points));
    } else {
      emit(o->output, validation::validation_text(points, summary));
    }
    return 0;
  };
}

}  // namespace pipesim::cli
