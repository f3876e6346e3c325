// Custom schedules: both text formats parse to the same schedules the generators make, every
// generator's schedule round-trips through PyTorch's CSV format, bad input is one clear
// ConfigError naming the line or cell, and random garbage never crashes the parsers.

#include "pipesim/schedules/schedule_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "../support/run_helpers.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/schedules/recompute.hpp"

namespace pipesim {
namespace {

using schedules::parse_pytorch_csv;
using schedules::parse_schedule_text;

schedules::ScheduleParams params(int d, int n) {
  schedules::ScheduleParams p;
  p.stages = d;
  p.micro_batches = n;
  return p;
}

void expect_same(const sim::Schedule& a, const sim::Schedule& b) {
  EXPECT_EQ(a.workers, b.workers);
  EXPECT_EQ(a.virtual_stages, b.virtual_stages);
  EXPECT_EQ(a.pipelines, b.pipelines);
  EXPECT_EQ(a.split_backward, b.split_backward);
  EXPECT_EQ(a.stage_worker, b.stage_worker);
  EXPECT_EQ(a.micro_batch_pipeline, b.micro_batch_pipeline);
  EXPECT_EQ(a.program, b.program);
}

TEST(PytorchCsv, EveryGeneratorRoundTrips) {
  struct Case {
    const char* name;
    schedules::ScheduleParams p;
  };
  std::vector<Case> cases;
  for (const auto& e : schedules::all_schedules())
    cases.push_back({e.name.data(), params(4, 8)});
  schedules::ScheduleParams wide = params(8, 16);
  wide.options.set("pipelines", std::int64_t{4});
  cases.push_back({"chimera", wide});
  schedules::ScheduleParams chunks = params(4, 8);
  chunks.options.set("chunks", std::int64_t{3});
  cases.push_back({"interleaved", chunks});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const sim::Schedule s = schedules::make_schedule(c.name, c.p);
    const std::string csv = schedules::to_pytorch_csv(s);
    const sim::Schedule back = parse_pytorch_csv(csv, "round.csv");
    expect_same(back, s);
    EXPECT_EQ(schedules::to_pytorch_csv(back), csv);
  }
}

TEST(PytorchCsv, ReadsCompactAndCommunicationCells) {
  // Two ranks, 1F1B with split backward, PyTorch style; comm cells and idle cells in between.
  const std::string csv =
      "0F0,0SEND_F0,0F1,,0RECV_B0,0I0,0W0,0I1,0W1,0REDUCE_GRAD\n"
      ",1RECV_F0,1F0,1I0,1SEND_B0,1F1,1I1,1W0,1W1\n";
  const sim::Schedule s = parse_pytorch_csv(csv, "x.csv");
  EXPECT_EQ(s.workers, 2);
  EXPECT_EQ(s.virtual_stages, 2);
  EXPECT_EQ(s.micro_batches, 2);
  EXPECT_TRUE(s.split_backward);
  sim::validate(s).require();
  ASSERT_EQ(s.program[1].size(), 6u);
  EXPECT_EQ(s.program[1][1], (sim::Op{sim::OpKind::BackwardInput, 0, 1, 0, 0}));
}

TEST(TextFormat, DescribesChimeraExactly) {
  const std::string text = R"(# Chimera, D = 4, N = 4 (docs/architecture.md §3)
workers 4
micro-batches 4
pipelines 2
map 0 0 1 2 3
map 1 3 2 1 0
assign 0 0 1 1
worker 0: F0 F1 F2 B2 F3 B3 B0 B1
worker 1: F0 F2 F1 F3 B2 B0 B3 B1
worker 2: F2 F0 F3 F1 B0 B2 B1 B3   # trailing comment
worker 3: F2 F3 F0 B0 F1 B1 B2 B3
)";
  expect_same(parse_schedule_text(text, "c.txt"),
              schedules::make_schedule("chimera", params(4, 4)));
}

TEST(TextFormat, StageSuffixSelectsAChunk) {
  schedules::ScheduleParams p = params(2, 2);
  p.options.set("chunks", std::int64_t{2});
  const sim::Schedule s = schedules::make_schedule("interleaved", p);
  std::string text = "workers 2\nstages 4\nmicro-batches 2\n";
  for (int w = 0; w < 2; ++w) {
    text += "worker " + std::to_string(w) + ":";
    for (const sim::Op& op : s.program[static_cast<size_t>(w)]) {
      text += std::string(" ") + sim::op_letter(op.kind) + std::to_string(op.micro_batch) + "@" +
              std::to_string(op.stage);
    }
    text += "\n";
  }
  expect_same(parse_schedule_text(text, "i.txt"), s);
}

struct BadFile {
  bool csv;
  std::string text;
  std::string expect;  // part of the message
};

class RejectsBadFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(RejectsBadFile, WithOneLineNamingWhere) {
  const BadFile& b = GetParam();
  try {
    if (b.csv) {
      parse_pytorch_csv(b.text, "bad.csv");
    } else {
      parse_schedule_text(b.text, "bad.txt");
    }
    FAIL() << "accepted";
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(b.csv ? "bad.csv" : "bad.txt"), std::string::npos) << what;
    EXPECT_NE(what.find(b.expect), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RejectsBadFile,
    ::testing::Values(
        BadFile{true, "0F0,0X1\n", "row 1 column 2: cell '0X1'"},
        BadFile{true, "0F0,0B0\n1F0,1Bx\n", "row 2 column 2"}, BadFile{true, "", "empty file"},
        BadFile{true, "0SEND_F0\n", "no compute actions"},
        BadFile{true, "0F0,0B0\n0F0,0B0\n", "also appears on rank"},
        BadFile{true, "0F0,0B0,0F1\n", "missing B(stage 0, micro-batch 1)"},
        BadFile{true, "0F0,0I0\n", "missing W"},
        BadFile{false, "workers 2\nmicro-batches 1\nworker 0: F0 B0\n", "missing F(stage 1"},
        BadFile{false, "workers 2\nmicro-batches 1\nworker 0: F0 Q0\n", "line 3: op 'Q0'"},
        BadFile{false, "workers two\n", "line 1: workers must be an integer"},
        BadFile{false, "micro-batches 2\n", "workers: missing"},
        BadFile{false, "workers 1\nmicro-batches 1\nfoo 3\n", "unknown keyword 'foo'"},
        BadFile{false, "workers 1\nmicro-batches 1\nworker 3: F0 B0\n", "worker 3 outside [0, 0]"},
        BadFile{false, "workers 1\nmicro-batches 1\nworker 0: F5 B0\n", "micro-batch outside"},
        BadFile{false, "workers 2\nmicro-batches 1\nworker 0 F0\n",
                "expected 'worker <index>: <ops>'"}));

TEST(ScheduleFiles, DeadlockIsReportedWithTheFile) {
  const std::string path = ::testing::TempDir() + "deadlock.csv";
  {
    std::ofstream out(path);
    out << "0F0,0B0,0F1,0B1\n1B0,1F0,1F1,1B1\n";  // rank 1 wants B0 before F0
  }
  try {
    schedules::load_schedule_file(path);
    FAIL();
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(ScheduleFiles, ExportRejectsRecomputation) {
  const sim::Schedule s =
      schedules::with_recomputation(schedules::make_schedule("1f1b", params(2, 2)));
  EXPECT_THROW(schedules::to_pytorch_csv(s), core::ConfigError);
}

// Fuzz-style: random garbage and random mutations of valid files must give a ConfigError or a
// schedule that passes the structure check, and must never crash (this test runs under ASan).
TEST(ScheduleFiles, RandomGarbageNeverCrashes) {
  std::mt19937 rng(7);
  const std::string alphabet = "0123456789FBIWRSENDRCV_@:#, \n\t-xworkersmicro-batchesmapassign";
  const std::string valid_csv =
      schedules::to_pytorch_csv(schedules::make_schedule("zb-h1", params(3, 4)));
  const std::string valid_txt =
      "workers 2\nmicro-batches 2\nworker 0: F0 F1 B0 B1\nworker 1: F0 B0 F1 B1\n";
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    if (trial % 3 == 0) {
      const size_t len = rng() % 200;
      for (size_t i = 0; i < len; ++i)
        text += alphabet[rng() % alphabet.size()];
    } else {
      text = trial % 3 == 1 ? valid_csv : valid_txt;
      for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) {
        const size_t pos = rng() % (text.size() + 1);
        switch (rng() % 3) {
          case 0:
            text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
            break;
          case 1:
            if (pos < text.size()) text.erase(pos, 1);
            break;
          default:
            if (pos < text.size()) text[pos] = alphabet[rng() % alphabet.size()];
        }
      }
    }
    for (bool csv : {true, false}) {
      try {
        const sim::Schedule s =
            csv ? parse_pytorch_csv(text, "fuzz") : parse_schedule_text(text, "fuzz");
        EXPECT_TRUE(sim::check_structure(s).ok());
        (void)sim::check_acyclic(sim::build_task_graph(s)).ok();
      } catch (const core::ConfigError&) {
      }
    }
  }
}

}  // namespace
}  // namespace pipesim
