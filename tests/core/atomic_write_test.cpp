#include "pipesim/core/atomic_write.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/temporary_file.hpp"

namespace fs = std::filesystem;
using pipesim::core::write_file_atomically;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path fresh_dir() {
  const fs::path dir =
      fs::temp_directory_path() /
      ("pipesim-aw-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(AtomicWrite, WritesAndReplacesWholeContentLeavingNoTemporaries) {
  const fs::path dir = fresh_dir();
  const fs::path target = dir / "out.csv";
  write_file_atomically(target, "a,b\n1,2\n");
  EXPECT_EQ(slurp(target), "a,b\n1,2\n");
  write_file_atomically(target, "x\n");
  EXPECT_EQ(slurp(target), "x\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
    ++entries;
  EXPECT_EQ(entries, 1) << "temporary file left behind";
  fs::remove_all(dir);
}

// Streamed outputs (a sweep's CSV, a merge): pieces, more than the 1 MiB buffer included, land
// whole on commit; a writer destroyed uncommitted leaves the old file and no temporary.
TEST(AtomicWrite, StreamedWriterCommitsWholeOrLeavesTheTargetAlone) {
  const fs::path dir = fresh_dir();
  const fs::path target = dir / "out.csv";
  write_file_atomically(target, "old\n");
  const std::string big(3u << 20, 'x');
  {
    pipesim::core::AtomicFileWriter out(target);
    out.write("a,b\n");
    out.write(big);
    out.write("\n1,2\n");
    EXPECT_EQ(slurp(target), "old\n") << "nothing replaced before commit";
  }  // destroyed uncommitted: an exception or an interrupt
  EXPECT_EQ(slurp(target), "old\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
    ++entries;
  EXPECT_EQ(entries, 1) << "the temporary is removed";
  pipesim::core::AtomicFileWriter out(target);
  out.write("a,b\n");
  out.write(big);
  out.write("\n1,2\n");
  out.commit();
  EXPECT_EQ(slurp(target), "a,b\n" + big + "\n1,2\n");
  EXPECT_TRUE(pipesim::core::written_in_place("/dev/null"));
  EXPECT_FALSE(pipesim::core::written_in_place(target));
  EXPECT_FALSE(pipesim::core::written_in_place(dir / "new.csv"));
  fs::remove_all(dir);
}

TEST(AtomicWrite, MissingDirectoryIsAConfigErrorNamingThePath) {
  const fs::path target = fs::temp_directory_path() / "pipesim-no-such-dir" / "x" / "out.json";
  try {
    write_file_atomically(target, "{}");
    FAIL() << "expected ConfigError";
  } catch (const pipesim::core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
}

int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
    ++n;
  return n;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const pipesim::core::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(AtomicWrite, SymlinksAreWrittenThroughNotReplaced) {
  const fs::path dir = fresh_dir();
  fs::create_directory(dir / "real");
  std::ofstream(dir / "real" / "data.csv") << "old\n";
  fs::create_symlink("real/data.csv", dir / "link.csv");  // relative link
  write_file_atomically(dir / "link.csv", "new\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "link.csv")));
  EXPECT_EQ(slurp(dir / "real" / "data.csv"), "new\n");
  // A dangling link creates the file it names.
  fs::create_symlink(dir / "real" / "fresh.csv", dir / "dangling.csv");
  write_file_atomically(dir / "dangling.csv", "x");
  EXPECT_EQ(slurp(dir / "real" / "fresh.csv"), "x");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "dangling.csv")));
  EXPECT_EQ(entries(dir / "real"), 2) << "temporary left beside the target";
  fs::remove_all(dir);
}

TEST(AtomicWrite, DevicesAreWrittenInPlaceNeverReplaced) {
  // `-o /dev/null` replaced the device node with a regular file.
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  write_file_atomically("/dev/null", "discarded\n");
  struct stat after {};
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(before.st_rdev, after.st_rdev);
  // /dev/full fails every write: that is an error, not a silent success.
  if (fs::exists("/dev/full")) {
    const std::string what = error_of([] { write_file_atomically("/dev/full", "x"); });
    EXPECT_NE(what.find("/dev/full: output: cannot write: No space left on device"),
              std::string::npos)
        << what;
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
  }
}

TEST(AtomicWrite, DevStdoutIsWrittenInPlaceWhateverStdoutIs) {
  // /dev/stdout -> /proc/self/fd/1 -> "pipe:[N]" or a terminal: only open() can follow it.
  ::testing::internal::CaptureStdout();
  write_file_atomically("/dev/stdout", "to stdout\n");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "to stdout\n");
}

TEST(AtomicWrite, FifosAreWrittenInPlace) {
  const fs::path dir = fresh_dir();
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_file_atomically(fifo, "through the pipe\n");
  reader.join();
  EXPECT_EQ(got, "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(entries(dir), 1);
  fs::remove_all(dir);
}

TEST(AtomicWrite, DirectoryTargetIsAnError) {
  const fs::path dir = fresh_dir();
  const std::string what = error_of([&] { write_file_atomically(dir, "x"); });
  EXPECT_NE(what.find("output: is a directory"), std::string::npos) << what;
  fs::remove_all(dir);
}

TEST(AtomicWrite, ExistingFilesKeepTheirPermissions) {
  const fs::path dir = fresh_dir();
  const fs::path target = dir / "script.sh";
  std::ofstream(target) << "old";
  fs::permissions(target, fs::perms::owner_all | fs::perms::group_read);
  write_file_atomically(target, "new");
  EXPECT_EQ(fs::status(target).permissions(), fs::perms::owner_all | fs::perms::group_read);
  write_file_atomically(dir / "fresh.csv", "x");
  EXPECT_EQ(fs::status(dir / "fresh.csv").permissions() & fs::perms::owner_read,
            fs::perms::owner_read);
  fs::remove_all(dir);
}

TEST(AtomicWrite, SeveralOutputsAreAllWrittenOrNone) {
  const fs::path dir = fresh_dir();
  std::ofstream(dir / "a.csv") << "old a";
  const std::vector<pipesim::core::OutputFile> bad{{dir / "a.csv", "new a"},
                                                   {dir / "missing" / "b.csv", "new b"}};
  const std::string what = error_of([&] { pipesim::core::write_files_atomically(bad); });
  EXPECT_NE(what.find("missing/b.csv: output: cannot create a temporary file"), std::string::npos)
      << what;
  EXPECT_EQ(slurp(dir / "a.csv"), "old a") << "first output replaced although the second failed";
  EXPECT_EQ(entries(dir), 1) << "temporary left behind";
  const std::vector<pipesim::core::OutputFile> good{{dir / "a.csv", "new a"},
                                                    {dir / "b.csv", "new b"}};
  pipesim::core::write_files_atomically(good);
  EXPECT_EQ(slurp(dir / "a.csv"), "new a");
  EXPECT_EQ(slurp(dir / "b.csv"), "new b");
  EXPECT_EQ(entries(dir), 2);
  EXPECT_EQ(pipesim::core::TemporaryFile::live(), 0);
  fs::remove_all(dir);
}

void die_holding_a_temporary(const fs::path& target, int sig) {
  pipesim::core::TemporaryFile t(target);
  if (!t.ok() || !fs::exists(t.name())) std::_Exit(3);
  std::raise(sig);
  std::_Exit(4);  // not reached: the signal still kills the process
}

TEST(AtomicWriteDeathTest, SignalsRemoveLiveTemporariesAndStillKill) {
  // a kill during the final write left .NAME.tmp.XXXXXX behind every time.
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  const fs::path dir = fresh_dir();
  EXPECT_EXIT(die_holding_a_temporary(dir / "out.csv", SIGTERM), testing::KilledBySignal(SIGTERM),
              "");
  EXPECT_EXIT(die_holding_a_temporary(dir / "out.csv", SIGINT), testing::KilledBySignal(SIGINT),
              "");
  EXPECT_EQ(entries(dir), 0) << "temporary survived the signal";
  fs::remove_all(dir);
}

}  // namespace
