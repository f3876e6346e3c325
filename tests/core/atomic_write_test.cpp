#include "pipesim/core/atomic_write.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipesim/core/config_error.hpp"

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
  const fs::path dir = fs::temp_directory_path() /
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
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1) << "temporary file left behind";
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

}  // namespace
