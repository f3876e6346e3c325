// Sweep files through the CLI: good files sweep; bad files give one line naming the file and
// the key, and exit code 2.

#include <gtest/gtest.h>

#include "../support/cli_invoke.hpp"

namespace pipesim::sweep {
namespace {

using testing::count_lines;
using testing::invoke_cli;
using testing::ScratchDir;

TEST(SweepFile, ScalarsListsAndRangesAreSwept) {
  const ScratchDir dir;
  const std::string file =
      dir.write("sweep.yaml",
                "schedule: [gpipe, 1f1b]\nstages: 2,4\nmicro_batches: \"4:8:x2\"\nt-comm: 0.5\n");
  const auto r = invoke_cli({"sweep", "--file", file, "--jobs", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 1u + 2 * 2 * 2);
  EXPECT_NE(r.out.find("\n1f1b,4,8,1,1,,1,off,,1,2,,0.5,"), std::string::npos) << r.out;
}

struct BadFile {
  std::string content;
  std::string expect;  // the whole message after "pipesim: error: <file>: "
};

class SweepFileBad : public ::testing::TestWithParam<BadFile> {};

TEST_P(SweepFileBad, OneLineNamingFileAndKeyExit2) {
  const ScratchDir dir;
  const std::string file = dir.write("bad.yaml", GetParam().content);
  const auto r = invoke_cli({"sweep", "--file", file});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: " + file + ": " + GetParam().expect, 0), 0u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SweepFileBad,
    ::testing::Values(
        BadFile{"stagez: [4, 8]\n", "stagez: unknown option; known: schedule, stages, "},
        BadFile{"stages: [4, 0]\n", "stages: must be in [1, 4096], got 0"},
        BadFile{"stages: abc\n", "stages: expected an integer in [1, 4096], got 'abc'"},
        BadFile{"micro-batches: 8:4\n", "micro-batches: range '8:4' is empty"},
        BadFile{"t-comm: 0:1:x1\n", "t-comm: range '0:1:x1': factor must be > 1"},
        BadFile{"stages: {a: 1}\n", "stages: expected a scalar"},
        BadFile{"stages: [[1, 2]]\n", "stages: expected a scalar"},
        BadFile{"stages: []\n", "stages: empty list"}, BadFile{"stages:\n", "stages: has no value"},
        BadFile{"stages: 4\nmicro_batches: 2\nmicro-batches: 3\n", "micro-batches: given twice"},
        BadFile{"- 4\n- 8\n", "top level: expected a map"}, BadFile{"stages: [4, 8\n", "line "},
        // Fuzzing: NUL bytes made yaml-cpp loop forever; a second document was
        // silently ignored.
        BadFile{std::string("stages: 4\n\0\n", 12), "line 2: control character \\x00"},
        BadFile{"stages: 4\n---\nstages: 8\n", "document: more than one YAML document"},
        BadFile{", 1stag:4[,  8]_ohes: 1:9:9:+2\nhes: 1:9:+2\n",
                "document: more than one YAML document"}));

TEST(SweepFile, MissingFileIsOneLine) {
  const auto r = invoke_cli({"sweep", "--file", "/nonexistent/sweep.yaml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "pipesim: error: /nonexistent/sweep.yaml: file: cannot open: No such file or "
            "directory\n");
  // a directory aborted with std::__ios_failure.
  const auto dir = invoke_cli({"sweep", "--file", "/tmp"});
  EXPECT_EQ(dir.code, 2);
  EXPECT_EQ(dir.err, "pipesim: error: /tmp: file: is a directory, expected a file\n");
}

}  // namespace
}  // namespace pipesim::sweep
