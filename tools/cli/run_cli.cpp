#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "completion.hpp"
#include "flags.hpp"
#include "man_page.hpp"
#include "output.hpp"
#include "pipesim/core/budget.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"
#include "pipesim/scenario/megatron_args.hpp"
#include "suggest.hpp"

namespace pipesim::cli {
namespace {

// Whether Megatron-LM's reader knows `flag` (uses or ignores it), as a switch or with a value.
bool is_megatron_argument(const std::string& flag) {
  for (const std::vector<std::string>& words :
       {std::vector<std::string>{flag}, std::vector<std::string>{flag, "1"}}) {
    scenario::LaunchCommand command;
    command.args = words;
    try {
      const scenario::MegatronRun run = scenario::read_megatron(command, "", "");
      if (run.unknown.empty()) return true;
    } catch (const core::ConfigError& e) {
      if (e.is_option()) return true;  // a value it refuses: the argument is known
    }
  }
  return false;
}

// The first `--name` on the command line that `command` does not know, named with the nearest
// spelling it does know: "command line: --tensor-paralel: unknown option of simulate; did you
// mean --tensor-parallel?". "" when every flag is known (the parse failed for another reason).
std::string unknown_option(const CLI::App& command, int argc, char** argv) {
  std::vector<std::string> known;
  const auto options = command.get_options([](const CLI::Option*) { return true; });
  for (const CLI::Option* o : options) {
    for (const std::string& name : o->get_lnames())
      known.push_back("--" + name);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (!word.starts_with("--")) continue;
    const std::string flag(word.substr(0, word.find('=')));
    if (std::find(known.begin(), known.end(), flag) != known.end()) continue;
    const bool takes_megatron =
        std::find(known.begin(), known.end(), "--megatron-args") != known.end();
    if (takes_megatron && is_megatron_argument(flag)) {
      return fmt::format(
          "command line: {}: unknown option of {}; it is a Megatron-LM argument: give it in "
          "--megatron-args \"{} ...\" or in a script with --megatron-script",
          flag, command.get_name(), flag);
    }
    const std::string nearest = closest_spelling(flag, known);
    return fmt::format("command line: {}: unknown option of {}{}", flag, command.get_name(),
                       nearest.empty()
                           ? fmt::format(" (`pipesim {} --help` lists them)", command.get_name())
                           : fmt::format("; did you mean {}?", nearest));
  }
  return {};
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err,
            const Distribution& distribution) {
  // `--megatron-args "--num-layers 32 ..."`: a value that starts with two dashes would be read
  // as a flag of its own, so the pair is passed on as one `--megatron-args=...` word.
  std::vector<std::string> joined;
  std::vector<char*> words;
  for (int i = 0; i < argc; ++i) {
    // `--overlap-p2p=` would read as a bare switch (on); an empty value is a mistake for
    // every option, so it is refused before CLI11 sees it.
    if (const std::string_view word = argv[i];
        word.starts_with("--") && word.size() > 3 && word.ends_with('=')) {
      err << kErrorPrefix
          << fmt::format("command line: {}: '=' with no value; give one (on|off for a switch)",
                         word.substr(0, word.size() - 1))
          << "\n";
      return 2;
    }
    if (std::string_view(argv[i]) == "--megatron-args" && i + 1 < argc) {
      joined.push_back(std::string("--megatron-args=") + argv[++i]);
    } else {
      joined.emplace_back(argv[i]);
    }
  }
  for (std::string& w : joined)
    words.push_back(w.data());
  argc = static_cast<int>(words.size());
  argv = words.data();
  CLI::App app{"pipesim: simulate pipeline-parallel training schedules", "pipesim"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", "pipesim " + std::string(core::version));
  std::map<const CLI::App*, Action> actions;
  const Action simulate = add_simulate_command(app);
  actions[app.get_subcommand("simulate")] = simulate;
  const Action list = add_list_command(app);
  actions[app.get_subcommand("list")] = list;
  const Action sweep = add_sweep_command(app, distribution);
  actions[app.get_subcommand("sweep")] = sweep;
  actions[app.get_subcommand("merge")] = add_merge_command(app);
  const Action compare = add_compare_command(app);
  actions[app.get_subcommand("compare")] = compare;
  const Action plot = add_plot_command(app);
  actions[app.get_subcommand("plot")] = plot;
  const Action search = add_search_command(app, distribution);
  actions[app.get_subcommand("search")] = search;
  actions[app.get_subcommand("calibrate")] = add_calibrate_command(app);
  actions[app.get_subcommand("validate")] = add_validate_command(app);
  // Prints the script generated from everything registered above (installed by the build).
  app.add_flag_callback(
         "--completion-bash",
         [&app, &out] {
           out << bash_completion(app);
           throw CLI::Success();
         },
         "Print the bash completion script and exit")
      ->group("");
  app.add_flag_callback(
         "--man-page",
         [&app, &out] {
           out << man_page(app);
           throw CLI::Success();
         },
         "Print the manual page pipesim(1) in man(7) markup and exit")
      ->group("");
  const auto fail = [&err](int code, const std::string& message) {
    err << kErrorPrefix << message << "\n";
    return code;
  };
  // The first word that is not a flag is the command (the app's own flags take no values):
  // name it when it is unknown, instead of CLI11's "A subcommand is required".
  const CLI::App* command = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with("-")) continue;
    const std::function<bool(const CLI::App*)> all = [](const CLI::App*) { return true; };
    const auto commands = std::as_const(app).get_subcommands(all);
    if (std::none_of(commands.begin(), commands.end(),
                     [&](const CLI::App* sub) { return sub->get_name() == word; })) {
      std::string known;
      for (const CLI::App* sub : commands)
        known += (known.empty() ? "" : ", ") + sub->get_name();
      return fail(2, fmt::format("command line: '{}': unknown command (known: {})", word, known));
    }
    command = app.get_subcommand(word);
    break;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out, err);  // --help, --version
    if (command != nullptr) {
      if (const std::string unknown = unknown_option(*command, argc, argv); !unknown.empty())
        return fail(2, unknown);
    }
    return fail(2, fmt::format("command line: {}", e.what()));
  } catch (const std::exception& e) {
    return fail(1, fmt::format("unexpected error while reading the command line: {}", e.what()));
  }
  // One top-level handler: whatever a command throws ends as one line and a documented exit
  // status (README, "Errors, exit codes and outputs"), never as std::terminate's abort.
  for (const CLI::App* sub : app.get_subcommands()) {
    if (distribution.spread() && sub != app.get_subcommand("sweep") &&
        sub != app.get_subcommand("search")) {
      return fail(2, fmt::format("command line: {}: runs in one process; under mpirun only sweep "
                                 "and search spread over the ranks (run it without mpirun)",
                                 sub->get_name()));
    }
  }
  try {
    for (const CLI::App* sub : app.get_subcommands())
      return actions.at(sub)();
  } catch (const sweep::RemoteError& e) {  // another rank of an MPI job failed
    return fail(e.code(), e.what());
  } catch (const core::BudgetError& e) {
    return fail(kExitOutOfBudget, fmt::format("{} (--max-tasks raises it)", describe_error(e)));
  } catch (const core::ConfigError& e) {
    return fail(2, describe_error(e));
  } catch (const std::bad_alloc&) {
    return fail(4,
                "out of memory: the run needs more memory than this machine allows; "
                "use fewer stages, micro-batches or jobs");
  } catch (const std::system_error& e) {
    return fail(1, fmt::format("system error: {} ({})", e.what(), e.code().message()));
  } catch (const std::exception& e) {
    return fail(1, fmt::format("unexpected error (a bug; please report this line): {}", e.what()));
  } catch (...) {
    return fail(1, "unexpected error of unknown type (a bug; please report this line)");
  }
  return 2;
}

int run_main(int argc, char** argv, std::ostream& out, std::ostream& err,
             const Distribution& distribution) {
  const int code = run_cli(argc, argv, out, err, distribution);
  if (code != 0) return code;
  // A command that succeeded still fails when its stdout did not take the output.
  if (const std::string why = close_stdout(); !why.empty()) {
    err << kErrorPrefix << "stdout: write: " << why << "\n";
    return 2;
  }
  return 0;
}

}  // namespace pipesim::cli
