// `pipesim sweep --shard`, `pipesim merge` and `sweep --resume`, in-process: K shards merged
// are the single sweep byte for byte (valid, invalid and out-of-memory rows alike); merge
// refuses gaps, duplicates, other sweeps and versions, truncated and malformed parts with one
// line and no output file; a sweep resumed from a journal cut anywhere (a half-written last
// line included) writes the same file and removes the journal.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/version.hpp"

namespace pipesim::cli {
namespace {

using testing::invoke_cli;
using testing::ScratchDir;
namespace fs = std::filesystem;

// 2 × 2 × 2 × 2 = 16 points: ok rows at D = 8, chimera at odd D invalid, the others out of
// memory.
const std::vector<std::string> kGrid{"sweep",      "--schedule", "gpipe,chimera",
                                     "--stages",   "3,8",        "--micro-batches",
                                     "8,64",       "--model",    "gpt2-1.3b",
                                     "--hardware", "p100-daint", "--micro-batch-size",
                                     "1,8",        "--jobs",     "3"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The single-process sweep's file, made once, in a folder of its own (a ScratchDir is named
// after the running test and would be the test's own folder).
const std::string& reference() {
  static const std::string csv = [] {
    const fs::path dir =
        fs::temp_directory_path() / ("pipesim-test-merge-reference-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto r = invoke_cli(with(kGrid, {"-o", (dir / "ref.csv").string()}));
    EXPECT_EQ(r.code, 0) << r.err;
    std::string text = ScratchDir::read((dir / "ref.csv").string());
    fs::remove_all(dir);
    return text;
  }();
  return csv;
}

// Writes shard i/K of kGrid (or of `grid`) as DIR/part-i.csv and returns its path.
std::string write_part(const ScratchDir& dir, size_t i, size_t k,
                       const std::vector<std::string>& grid = kGrid) {
  const std::string path = dir.file("part-" + std::to_string(i) + ".csv");
  const auto r =
      invoke_cli(with(grid, {"--shard", std::to_string(i) + "/" + std::to_string(k), "-o", path}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  return path;
}

std::vector<std::string> all_parts(const ScratchDir& dir, size_t k) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < k; ++i)
    parts.push_back(write_part(dir, i, k));
  return parts;
}

size_t files_in(const ScratchDir& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e :
       fs::directory_iterator(fs::path(dir.file("x")).parent_path()))
    ++n;
  return n;
}

TEST(ShardMerge, TheGridHasValidInvalidAndOutOfMemoryRows) {
  const std::string& csv = reference();
  EXPECT_NE(csv.find(",ok\n"), std::string::npos);
  EXPECT_NE(csv.find(",oom\n"), std::string::npos);
  EXPECT_NE(csv.find(",\"invalid: "), std::string::npos);
  EXPECT_EQ(testing::count_lines(csv), 17u);
}

TEST(ShardMerge, KShardsMergedAreTheSingleSweepByteForByte) {
  for (size_t k : {1u, 2u, 3u, 7u}) {
    const ScratchDir dir;
    auto parts = all_parts(dir, k);
    std::reverse(parts.begin(), parts.end());  // any order on the command line
    const std::string out = dir.file("merged.csv");
    std::vector<std::string> args{"merge"};
    args.insert(args.end(), parts.begin(), parts.end());
    const auto r = invoke_cli(with(args, {"-o", out}));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(ScratchDir::read(out), reference()) << "K = " << k;
    const auto to_stdout = invoke_cli(args);
    ASSERT_EQ(to_stdout.code, 0) << to_stdout.err;
    EXPECT_EQ(to_stdout.out, reference()) << "K = " << k;
    EXPECT_EQ(files_in(dir), k + 1) << "no journal or temporary left behind";
  }
}

TEST(ShardMerge, APartIsTaggedRowsUnderAHeaderNamingTheSweep) {
  const ScratchDir dir;
  const std::string part = ScratchDir::read(write_part(dir, 1, 3));
  const std::string first = part.substr(0, part.find('\n'));
  EXPECT_TRUE(
      first.starts_with("# pipesim-part 1 pipesim=" + std::string(core::version) + " spec="))
      << first;
  EXPECT_TRUE(first.ends_with(" points=16 shard=1/3")) << first;
  const size_t second = part.find('\n') + 1;
  EXPECT_EQ(part.substr(second, 20), "grid_index,schedule,");
  // Rows 1, 4, 7, ...: the reference's data lines 1, 4, 7, ... behind their index.
  std::vector<std::string> lines;
  for (size_t at = reference().find('\n') + 1; at < reference().size();) {
    const size_t end = reference().find('\n', at);
    lines.push_back(reference().substr(at, end + 1 - at));
    at = end + 1;
  }
  std::string expected = part.substr(0, part.find('\n', second) + 1);
  for (size_t j = 1; j < lines.size(); j += 3)
    expected += std::to_string(j) + "," + lines[j];
  EXPECT_EQ(part, expected);
}

TEST(ShardMerge, AShardWithoutOutputPrintsThePart) {
  const ScratchDir dir;
  const auto r = invoke_cli(with(kGrid, {"--shard", "2/3"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, ScratchDir::read(write_part(dir, 2, 3)));
}

TEST(ShardMerge, BadShardIsOneLineNamingTheFlagAndTheRange) {
  for (const auto& [shard, problem] : std::vector<std::pair<std::string, std::string>>{
           {"3/3", "i must be in [0, 2] for K = 3, got '3/3'"},
           {"0/0", "K must be in [1, 10000000], got '0/0'"},
           {"-1/4", "must be i/K, shard i of K with 0 <= i < K (e.g. 0/4), got '-1/4'"},
           {"2", "must be i/K, shard i of K with 0 <= i < K (e.g. 0/4), got '2'"},
           {"", "must be i/K, shard i of K with 0 <= i < K (e.g. 0/4), got ''"}}) {
    const auto r = invoke_cli({"sweep", "--stages", "2", "--shard", shard});
    EXPECT_EQ(r.code, 2) << shard;
    EXPECT_EQ(r.err, "pipesim: error: command line: --shard: " + problem + "\n");
    EXPECT_TRUE(r.out.empty());
  }
}

// Each refusal: exit 2, one line naming the file (or shard) and the problem, no output file.
struct Refusal {
  std::vector<std::string> parts;
  std::string expect;  // a piece of the one error line
};

void expect_refused(const ScratchDir& dir, const Refusal& refusal) {
  const std::string out = dir.file("merged.csv");
  std::vector<std::string> args{"merge"};
  args.insert(args.end(), refusal.parts.begin(), refusal.parts.end());
  const auto r = invoke_cli(with(args, {"-o", out}));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(r.err.starts_with("pipesim: error: ")) << r.err;
  EXPECT_EQ(testing::count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(refusal.expect), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out)) << "a refused merge writes nothing";
  for (const auto& e : fs::directory_iterator(fs::path(out).parent_path()))
    EXPECT_FALSE(e.path().filename().string().starts_with(".merged.csv.tmp")) << e.path();
}

// `text` without its `n`-th line (0 = the first), or with it twice.
std::string drop_line(const std::string& text, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n; ++i)
    at = text.find('\n', at) + 1;
  return text.substr(0, at) + text.substr(text.find('\n', at) + 1);
}
std::string double_line(const std::string& text, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n; ++i)
    at = text.find('\n', at) + 1;
  const std::string line = text.substr(at, text.find('\n', at) + 1 - at);
  return text.substr(0, at) + line + text.substr(at);
}

TEST(ShardMerge, RefusesGapsDuplicatesOtherSweepsAndMalformedParts) {
  const ScratchDir dir;
  const auto p = all_parts(dir, 3);
  const std::string part1 = ScratchDir::read(p[1]);  // indices 1, 4, 7, 10, 13
  const std::string other_dir = dir.file("other");
  fs::create_directory(other_dir);
  std::vector<std::string> other_grid = kGrid;
  other_grid[4] = "2,4";  // --stages 2,4: another sweep of the same size
  const std::string other = other_dir + "/part-1.csv";
  ASSERT_EQ(invoke_cli(with(other_grid, {"--shard", "1/3", "-o", other})).code, 0);
  std::string version = part1;
  version.replace(version.find(core::version), core::version.size(), "0.0.1");
  std::string width = part1;  // a row one field short
  width.erase(width.find(",gpipe,") + 1, 6);
  const std::string header = part1.substr(part1.find('\n') + 1);  // the column line onwards
  const auto fields = static_cast<size_t>(
      std::count(header.begin(), header.begin() + static_cast<long>(header.find('\n')), ',') + 1);
  std::string not_a_part = reference();
  const std::string truncated = part1.substr(0, part1.size() - 10);
  const std::string four = other_dir + "/four.csv";  // shard 2 of 4 shards, not of 3
  ASSERT_EQ(invoke_cli(with(kGrid, {"--shard", "2/4", "-o", four})).code, 0);

  const std::vector<Refusal> refusals{
      {{p[0], p[2]}, "merge: shard 1/3: missing: the 2 part files given hold 2 of the 3 shards"},
      {{p[0], p[1], p[2], p[1]}, p[1] + ": line 1: shard 1/3 again: " + p[1] + " holds it too"},
      {{p[0], dir.write("gap.csv", drop_line(part1, 3)), p[2]},
       "gap.csv: line 4: grid index 7 where 4 was expected: rows are missing"},
      {{p[0], dir.write("dup.csv", double_line(part1, 3)), p[2]},
       "dup.csv: line 5: grid index 4 again or out of order where 7 was expected"},
      {{p[0], dir.write("last.csv", drop_line(part1, 6)), p[2]},
       "last.csv: line 7: ends after 4 of the shard's 5 rows: grid index 13 is missing"},
      {{p[0], dir.write("extra.csv", double_line(part1, 6)), p[2]},
       "extra.csv: line 8: grid index 13 again after the shard's last row"},
      {{p[0], other, p[2]}, other + ": line 1: from another sweep than " + p[0]},
      {{p[0], p[1], four}, four + ": line 1: shard 2/4, but " + p[0] + " is one of 3 shards"},
      {{p[0], dir.write("version.csv", version), p[2]},
       "version.csv: line 1: written by pipesim 0.0.1, this is pipesim " +
           std::string(core::version)},
      {{p[0], dir.write("cut.csv", truncated), p[2]},
       "cut.csv: line 7: the last row has no line end: the file is truncated"},
      {{p[0], dir.write("width.csv", width), p[2]},
       "width.csv: line 3: has " + std::to_string(fields - 1) + " fields, the header has " +
           std::to_string(fields)},
      {{p[0], dir.write("plain.csv", not_a_part), p[2]},
       "plain.csv: line 1: not a pipesim part file (the first line must start with "
       "'# pipesim-part 1')"},
      {{p[0], dir.write("empty.csv", ""), p[2]}, "empty.csv: line 1: no header line"},
      {{p[0], dir.file("missing.csv"), p[2]}, "missing.csv: file: cannot open"},
      {{p[0], other_dir, p[2]}, "other: file: is a directory, not a part file"},
  };
  for (const Refusal& refusal : refusals)
    expect_refused(dir, refusal);
}

// A journal as an interrupted sweep leaves it: the full journal (which is the 0/1 part) cut
// after `bytes` bytes.
std::string cut_journal(const std::string& full, size_t bytes) {
  return full.substr(0, bytes);
}

TEST(SweepResume, AJournalCutAnywhereResumesToTheSameFile) {
  const ScratchDir dir;
  const std::string full = ScratchDir::read(write_part(dir, 0, 1));
  const size_t header = full.find('\n', full.find('\n') + 1) + 1;
  const size_t row5 = [&] {
    size_t at = header;
    for (int i = 0; i < 5; ++i)
      at = full.find('\n', at) + 1;
    return at;
  }();
  for (const size_t bytes : {header, row5, row5 + 17, full.size() - 3, full.size()}) {
    const std::string out = dir.file("out.csv");
    dir.write("out.csv.journal", cut_journal(full, bytes));
    const auto r = invoke_cli(with(kGrid, {"-o", out, "--resume"}));
    ASSERT_EQ(r.code, 0) << r.err << " cut at " << bytes;
    EXPECT_EQ(ScratchDir::read(out), reference()) << "cut at " << bytes;
    EXPECT_FALSE(fs::exists(out + ".journal")) << "the journal goes once the file is written";
    fs::remove(out);
  }
}

TEST(SweepResume, AShardResumesToTheSamePart) {
  const ScratchDir dir;
  const std::string part = ScratchDir::read(write_part(dir, 1, 3));
  const std::string out = dir.file("resumed.csv");
  dir.write("resumed.csv.journal", part.substr(0, part.size() - part.size() / 3));
  const auto r = invoke_cli(with(kGrid, {"--shard", "1/3", "-o", out, "--resume"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ScratchDir::read(out), part);
  EXPECT_FALSE(fs::exists(out + ".journal"));
}

TEST(SweepResume, ResumeWithoutAJournalRunsTheWholeSweep) {
  const ScratchDir dir;
  const auto r = invoke_cli(with(kGrid, {"-o", dir.file("out.csv"), "--resume"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ScratchDir::read(dir.file("out.csv")), reference());
}

TEST(SweepResume, ARefusedJournalIsKeptAndNamed) {
  const ScratchDir dir;
  const std::string out = dir.file("out.csv");
  const std::string journal = out + ".journal";
  const std::string full = ScratchDir::read(write_part(dir, 0, 1));
  const std::string half = full.substr(0, full.size() / 2);
  dir.write("out.csv.journal", half);
  const auto fresh = invoke_cli(with(kGrid, {"-o", out}));
  EXPECT_EQ(fresh.code, 2);
  EXPECT_EQ(fresh.err, "pipesim: error: " + journal +
                           ": journal: exists: it holds the rows of an interrupted sweep; "
                           "--resume continues it (same options), or delete it\n");
  auto other = with(kGrid, {"-o", out, "--resume"});
  other[4] = "2,4";
  const auto r = invoke_cli(other);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(journal + ": line 1: from another sweep (spec "), std::string::npos)
      << r.err;
  const auto shard = invoke_cli(with(kGrid, {"-o", out, "--resume", "--shard", "0/2"}));
  EXPECT_EQ(shard.code, 2);
  EXPECT_NE(shard.err.find(journal + ": line 1: of shard 0/1, this sweep is shard 0/2"),
            std::string::npos)
      << shard.err;
  std::string damaged = half;
  damaged.replace(damaged.find("\n3,") + 1, 1, "4");
  dir.write("out.csv.journal", damaged);
  const auto bad = invoke_cli(with(kGrid, {"-o", out, "--resume"}));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("grid index 4 where 3 was expected: the journal is damaged"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(ScratchDir::read(journal), damaged) << "a refused journal is left as it was";
  EXPECT_FALSE(fs::exists(out));
  const auto to_stdout = invoke_cli({"sweep", "--stages", "2", "--resume"});
  EXPECT_EQ(to_stdout.code, 2);
  EXPECT_EQ(to_stdout.err,
            "pipesim: error: command line: --resume: needs --output,-o FILE, a regular file: the "
            "journal that is resumed lies beside it\n");
}

TEST(SweepResume, AFinishedSweepLeavesOnlyItsOutput) {
  const ScratchDir dir;
  const auto r = invoke_cli(with(kGrid, {"-o", dir.file("out.csv")}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ScratchDir::read(dir.file("out.csv")), reference());
  EXPECT_EQ(files_in(dir), 1u) << "no journal, no temporary";
  const auto to_null = invoke_cli(with(kGrid, {"-o", "/dev/null"}));
  EXPECT_EQ(to_null.code, 0) << to_null.err << " (a device is written in place, no journal)";
}

}  // namespace
}  // namespace pipesim::cli
