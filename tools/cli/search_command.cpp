#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "flags.hpp"
#include "megatron_input.hpp"
#include "output.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/report/search_report.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/search/search.hpp"
#include "pipesim/search/winners.hpp"
#include "pipesim/sweep/ranking.hpp"
#include "pipesim/sweep/thread_pool.hpp"
#include "pipesim/sweep/value_range.hpp"
#include "progress_bar.hpp"
#include "sweep_options.hpp"
#include "torchtitan_input.hpp"

namespace pipesim::cli {
namespace {

using scenario::SweepRow;
using sweep::RankMetric;

}  // namespace

Action add_search_command(CLI::App& app, const Distribution& distribution) {
  struct Options {
    std::string model, hardware;
    std::string schedules;
    std::string recompute = "none,selective,full";
    std::string tensor_parallel;  // empty: the degrees a node and the model allow
    std::string context_parallel, expert_parallel, expert_tensor_parallel;  // empty: 1, not varied
    std::string gpus, mini_batch;  // parsed with the one number syntax of every option
    std::string jobs = "0";
    std::array<const CLI::Option*, 2> schedule_flags{};  //!< --schedule and its old spelling
    std::string output;
    bool all = false;
    std::map<std::string, std::string> values;        //!< other options: name → text
    std::map<std::string, const CLI::Option*> flags;  //!< their flags, to see which are given
    MegatronFlags megatron;
    const CLI::Option* model_flag = nullptr;
    const CLI::Option* gpus_flag = nullptr;
    const CLI::Option* mini_batch_flag = nullptr;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "search",
      "Find the best configuration of each schedule for a model on P GPUs and a mini-batch: "
      "every D | P/(T·C), W = P/(T·C·D), power-of-two B, N = B̂/(W·B), recomputation and schedule "
      "options, "
      "simulated in parallel; ranked, with what limits each winner");
  o->model_flag = cmd->add_option("--model", o->model,
                                  "Model name, YAML path or Hugging Face config.json (required "
                                  "unless a Megatron-LM script or list gives the shape)")
                      ->type_name("NAME|PATH")
                      ->group("Search");
  cmd->add_option("--hardware", o->hardware, "Hardware profile name or YAML path")
      ->required()
      ->type_name("NAME|PATH")
      ->group("Search");
  o->gpus_flag = cmd->add_option("--gpus,-P", o->gpus,
                                 "GPUs P = T·C·D·W (required unless a Megatron-LM script's "
                                 "launcher gives its world size)")
                     ->type_name("INT 1..1048576")
                     ->group("Search");
  o->mini_batch_flag =
      cmd->add_option("--mini-batch", o->mini_batch,
                      "Mini-batch B̂ = B·N·W samples (required unless Megatron-LM's "
                      "--global-batch-size gives it)")
          ->type_name("INT 1..16777216")
          ->group("Search");
  add_megatron_flags(*cmd, o->megatron, false);
  o->schedule_flags[0] =
      cmd->add_option("--schedule", o->schedules, "Comma list of schedules (default: all)")
          ->type_name("LIST<NAME>")
          ->group("Search");
  // The old spelling, kept so existing scripts run; --schedule is the name every command uses.
  o->schedule_flags[1] = cmd->add_option("--schedules", o->schedules)->group("");
  cmd->add_option("--recompute", o->recompute, "Comma list of recomputation modes to try")
      ->type_name("LIST<none|selective|full>")
      ->capture_default_str()
      ->group("Search");
  cmd->add_option("--tensor-parallel,-T", o->tensor_parallel,
                  "Comma list or range of tensor-parallel degrees T to try (P = T·D·W; default: "
                  "every power of two dividing P, a node's GPUs, the heads and the FFN)")
      ->type_name("LIST<INT>")
      ->group("Search");
  cmd->add_option("--context-parallel,-C", o->context_parallel,
                  "Comma list or range of context-parallel degrees C to try (P = T·C·D·W; every "
                  "candidate then runs flash attention; default: 1, or the least C the sequence "
                  "needs when nothing fits at C = 1)")
      ->type_name("LIST<INT>")
      ->group("Search");
  cmd->add_option("--expert-parallel,-E", o->expert_parallel,
                  "MoE models: comma list or range of expert-parallel degrees E to try, folded "
                  "over a stage's T·W GPUs (default: every divisor of the experts dividing P)")
      ->type_name("LIST<INT>")
      ->group("Search");
  cmd->add_option("--expert-tensor-parallel", o->expert_tensor_parallel,
                  "MoE models: comma list or range of expert-tensor-parallel degrees e_t to try "
                  "(default: tried around each schedule's best: powers of two dividing the expert "
                  "FFN and a node)")
      ->type_name("LIST<INT>")
      ->group("Search");
  cmd->add_option(
         "--jobs,-j", o->jobs,
         fmt::format("Parallel simulations, 0..{} (0 = one per hardware thread)", sweep::kMaxJobs))
      ->type_name("INT")
      ->capture_default_str()
      ->group("Search");
  cmd->add_option("--output,-o", o->output,
                  "Write the winners (with --all: every configuration) as CSV, atomically")
      ->type_name("PATH")
      ->group("Output");
  cmd->add_flag("--all", o->all, "-o gets every evaluated configuration, not only the winners")
      ->group("Output");
  // Every other simulate option from the table, one value for every candidate. Those search
  // chooses itself are kept out of the help; given, they are refused with the reason.
  for (const scenario::Option& option : scenario::options()) {
    if (cmd->get_option_no_throw(flag_of(option.name())) != nullptr) continue;
    CLI::Option* flag = add_scenario_option(*cmd, option, o->values[option.name()], false);
    if (search::search_chooses(option)) flag->group("");
    o->flags[option.name()] = flag;
  }
  return [o, distribution] {
    std::map<std::string, std::string> fixed;
    for (const auto& [name, flag] : o->flags) {
      if (flag->count() > 0)
        fixed[name] = given_text(*scenario::find_option(name), o->values.at(name));
    }
    // The layout a configuration sets (T, D, VPP, B, E, recomputation, ...) is what search
    // chooses itself, so only its other settings are fixed.
    const auto keep_fixed = [&] {
      for (auto it = fixed.begin(); it != fixed.end();) {
        const scenario::Option* option = scenario::find_option(it->first);
        const bool chosen = option == nullptr || search::search_chooses(*option);
        if (chosen && o->flags.count(it->first) > 0 && o->flags.at(it->first)->count() > 0) {
          ++it;  // given by the user: refused below with the reason
        } else if (chosen) {
          it = fixed.erase(it);
        } else {
          ++it;
        }
      }
    };
    std::optional<std::string> given_model;
    // The configuration's model, and its world size and batch where it gives them.
    const auto adopt = [&](int world_size, std::optional<long> mini_batch,
                           const std::string& lists) {
      o->model = fixed.at("model");
      if (o->gpus_flag->count() == 0 && world_size > 0) o->gpus = std::to_string(world_size);
      if (o->mini_batch_flag->count() == 0 && mini_batch)
        o->mini_batch = std::to_string(*mini_batch);
      keep_fixed();
      std::cerr << lists;
    };
    if (o->model_flag->count() > 0) given_model = o->model;
    if (std::optional<scenario::MegatronRun> run = read_megatron_flags(o->megatron)) {
      if (given_model) fixed["model"] = *given_model;
      merge_megatron_texts(fixed, *run, 0, false);
      adopt(run->world_size, run->global_batch_size, megatron_text(*run));
    }
    if (std::optional<scenario::TorchtitanRun> run = read_torchtitan_flags(o->megatron)) {
      if (given_model) fixed["model"] = *given_model;
      const int gpus = o->gpus_flag->count() > 0
                           ? static_cast<int>(core::parse_int("gpus", o->gpus, 1, 1 << 20))
                           : 0;
      merge_torchtitan_texts(fixed, *run, gpus, false);
      adopt(run->world_size, run->mini_batch, torchtitan_text(*run));
    }
    const auto require = [](const CLI::Option* flag, const std::string& text, const char* name) {
      if (flag->count() == 0 && text.empty()) {
        throw core::ConfigError("command line", name,
                                "required (or a Megatron-LM script or list, or a torchtitan "
                                "config, that gives it)");
      }
    };
    require(o->model_flag, o->model, "--model");
    require(o->gpus_flag, o->gpus, "--gpus");
    require(o->mini_batch_flag, o->mini_batch, "--mini-batch");
    search::SearchArgs args;
    args.model = o->model;
    args.hardware = o->hardware;
    args.gpus = o->gpus;
    args.mini_batch = o->mini_batch;
    if (o->schedule_flags[0]->count() + o->schedule_flags[1]->count() > 0)
      args.schedules = o->schedules;
    args.recompute = o->recompute;
    args.tensor_parallel = o->tensor_parallel;
    args.context_parallel = o->context_parallel;
    args.expert_parallel = o->expert_parallel;
    args.expert_tensor_parallel = o->expert_tensor_parallel;
    args.fixed = std::move(fixed);
    search::SearchRequest request = search::make_search_request(args);
    const int jobs = parse_jobs(o->jobs, distribution.default_jobs);
    // The table ranks fitting rows only: an oom row needs no replay unless --all writes it.
    const search::RowDetail detail =
        o->all ? search::RowDetail::Full : search::RowDetail::FittingOnly;
    scenario::SpecCache specs;
    if (distribution.server != nullptr) {  // an MPI rank but 0: rows only, no output
      const std::vector<search::Candidate> candidates =
          search::search_candidates(request, specs, jobs);
      // The same plan as rank 0's, so that a position names the same candidate everywhere.
      return distribution.server->serve(
          search::plan_search(candidates, specs, describe_error, detail, jobs).make_row, jobs);
    }
    std::optional<ProgressBar> bar;  // drawn once the candidate count is known
    report::SearchTally tally;
    const std::vector<SweepRow> rows = search::run_search(
        request, specs, jobs, describe_error,
        [&](size_t done, size_t total) {
          if (!bar) bar.emplace(std::cerr, total, ProgressBar::stderr_is_terminal());
          bar->update(done);
        },
        distribution.evaluator, detail, &tally);
    const search::Winners won = search::winners_per_group(rows, report::input_column("schedule"));
    const RankMetric& metric = won.metric;
    const std::vector<size_t>& winners = won.rows;
    const report::SearchHeading heading{request.model,      request.hardware,  request.gpus,
                                        request.mini_batch, request.schedules, metric.label()};
    const std::string text = report::search_table(heading, tally, rows, winners);
    if (!o->output.empty()) {
      emit(o->output, o->all ? report::rows_to_csv(rows) : report::winners_csv(rows, winners));
    }
    emit("", text);
    return 0;
  };
}

}  // namespace pipesim::cli
