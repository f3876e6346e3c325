// `pipesim sweep` end to end: the CSV schema, byte-for-byte determinism (also across thread
// counts), invalid configurations kept as rows, atomic file output, bad lists and ranges.

#include <gtest/gtest.h>

#include "../support/cli_invoke.hpp"
#include "pipesim/report/csv.hpp"

namespace pipesim::cli {
namespace {

using report::CsvTable;
using report::parse_csv;

using testing::count_lines;
using testing::invoke_cli;
using testing::ScratchDir;

// The documented schema: the run options in table order, then the metrics.
const char* const kHeader =
    "schedule,stages,micro_batches,pipelines,chunks,strategy,iterations,epoch_drain,waves,t_"
    "forward,t_"
    "backward,"
    "t_weight,t_comm,t_allreduce,model,hardware,micro_batch_size,data_parallel,recompute,"
    "recompute_modules,quantized_activations,recompute_scope,eager_autograd,unfused_cross_entropy,"
    "unfused_grad_accumulation,stash_working_copy,"
    "partition,layout,"
    "placement,gpus_per_domain,grad_sync,optimizer_sync,overlap_p2p,bytes_per_param,tensor_"
    "parallel,"
    "context_parallel,sequence_parallel,"
    "tp_comm_overlap,distributed_optimizer,data_parallel_sharding,grad_bucket_bytes,"
    "overlap_grad_reduce,fp8_param_gather,grad_reduce_in_bf16,overlap_param_gather,expert_parallel,"
    "expert_tensor_parallel,moe_imbalance,moe_overlap,moe_dispatcher,moe_token_dispatcher_type,"
    "cuda_graphs,moe_"
    "grouped_gemm,offload,"
    "offload_selective,"
    "precision,"
    "attention,vocabulary,"
    "sequence,"
    "workers,iteration_time,time_unit,throughput,tokens_per_second,mfu,bubble_ratio,"
    "exposed_comm_ratio,"
    "peak_memory_max,peak_memory_min,memory_headroom,peak_activations_max,peak_activations_min,"
    "fits_memory,model_layers,model_hidden,model_heads,model_kv_heads,model_ffn_hidden,"
    "model_vocabulary,model_sequence,model_experts,model_params,iteration_time_low,iteration_time_"
    "high,iteration_time_basis,status\n";

TEST(SweepCommand, HeaderIsExactlyTheDocumentedSchema) {
  const auto r = invoke_cli({"sweep", "--stages", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n') + 1), kHeader);
}

TEST(SweepCommand, OneRowPerConfigurationWithClosedFormValues) {
  const auto r = invoke_cli(
      {"sweep", "--schedule", "gpipe,1f1b", "--stages", "4", "--micro-batches", "4:8:x2"});
  ASSERT_EQ(r.code, 0) << r.err;
  const CsvTable t = parse_csv("out", r.out);
  ASSERT_EQ(t.rows.size(), 4u);
  const size_t it = t.column("out", "iteration_time"), st = t.column("out", "status");
  const size_t amax = t.column("out", "peak_activations_max");
  // (N + D − 1)(t_F + t_B) with t_F = 1, t_B = 2.
  EXPECT_EQ(t.rows[0][it], "21");
  EXPECT_EQ(t.rows[1][it], "33");
  EXPECT_EQ(t.rows[0][amax], "4") << "gpipe holds N";
  EXPECT_EQ(t.rows[3][amax], "4") << "1f1b holds D";
  EXPECT_EQ(t.rows[1][amax], "8");
  for (const auto& row : t.rows) {
    EXPECT_EQ(row[st], "ok");
    EXPECT_EQ(row[t.column("out", "throughput")], "") << "no perf figures in unit-cost mode";
    EXPECT_EQ(row[t.column("out", "fits_memory")], "");
  }
}

TEST(SweepCommand, ByteIdenticalAcrossRunsAndThreadCounts) {
  const std::vector<std::string> args{"sweep",   "--schedule",      "gpipe,1f1b",  "--stages",
                                      "2:16:x2", "--micro-batches", "1,3,8:32:x2", "--t-comm",
                                      "0,0.25",  "--t-weight",      "0,1,5"};
  auto with_jobs = [&](const std::string& jobs) {
    auto a = args;
    a.insert(a.end(), {"--jobs", jobs});
    return invoke_cli(a);
  };
  const auto one = with_jobs("1");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(count_lines(one.out), 1u + 2 * 4 * 5 * 2 * 3);
  EXPECT_EQ(with_jobs("2").out, one.out);
  EXPECT_EQ(with_jobs("7").out, one.out);
  EXPECT_EQ(with_jobs("1").out, one.out);
}

TEST(SweepCommand, InvalidConfigurationsAreRowsWithTheReasonQuoted) {
  const auto r =
      invoke_cli({"sweep", "--schedule", "zb-h1", "--t-backward", "2", "--t-weight", "1,3"});
  ASSERT_EQ(r.code, 0) << r.err;
  const CsvTable t = parse_csv("out", r.out);
  ASSERT_EQ(t.rows.size(), 2u);
  const size_t st = t.column("out", "status");
  EXPECT_EQ(t.rows[0][st], "ok");
  EXPECT_EQ(t.rows[1][st],
            "invalid: command line: --t-weight: must be in [0, t_backward = 2], got 3");
  EXPECT_EQ(t.rows[1][t.column("out", "iteration_time")], "");
  EXPECT_NE(r.out.find("\"invalid: command line: --t-weight: must be in [0, t_backward = 2], "
                       "got 3\""),
            std::string::npos)
      << "a field with commas is quoted";
}

TEST(SweepCommand, UnknownScheduleIsAnInvalidRowNotAnAbort) {
  const auto r = invoke_cli({"sweep", "--schedule", "gpipe,zigzag"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("invalid: command line: --schedule: unknown schedule 'zigzag'"),
            std::string::npos)
      << r.out;
}

TEST(SweepCommand, WritesTheFileAtomicallyAndPrintsNothing) {
  const ScratchDir dir;
  const std::string path = dir.file("sweep.csv");
  const auto r = invoke_cli({"sweep", "--stages", "2,3", "-o", path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const std::string csv = ScratchDir::read(path);
  EXPECT_EQ(csv.substr(0, csv.find('\n') + 1), kHeader);
  EXPECT_EQ(count_lines(csv), 3u);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    ++files;
  }
  EXPECT_EQ(files, 1u) << "no temporary file left behind";
}

struct BadArgs {
  std::vector<std::string> args;
  std::string expect;  // the whole error line
};

class SweepCommandBad : public ::testing::TestWithParam<BadArgs> {};

TEST_P(SweepCommandBad, OneClearLineAndExitCode2) {
  const auto r = invoke_cli(GetParam().args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + GetParam().expect + "\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SweepCommandBad,
    ::testing::Values(
        BadArgs{{"sweep", "--stages", "4,0"},
                "command line: --stages: must be in [1, 4096], got 0"},
        BadArgs{{"sweep", "--stages", "4,,8"},
                "command line: --stages: empty item in list '4,,8' (write values as a,b,c)"},
        BadArgs{{"sweep", "--micro-batches", "64:8:x2"},
                "command line: --micro-batches: range '64:8:x2' is empty: start 64 > end 8"},
        BadArgs{{"sweep", "--micro-batches", "8:64:x1"},
                "command line: --micro-batches: range '8:64:x1': factor must be > 1, got 1"},
        BadArgs{{"sweep", "--micro-batches", "8:64:2"},
                "command line: --micro-batches: range '8:64:2': step '2' must be +STEP or "
                "xFACTOR"},
        BadArgs{{"sweep", "--t-comm", "0:1:+0"},
                "command line: --t-comm: range '0:1:+0': step must be > 0, got 0"},
        BadArgs{{"sweep", "--stages", "2.5:4"},
                "command line: --stages: expected an integer in [1, 4096], got '2.5'"},
        BadArgs{{"sweep", "--t-forward", "1,-1"},
                "command line: --t-forward: must be in (0, 1000000000], got -1"}));

}  // namespace
}  // namespace pipesim::cli
