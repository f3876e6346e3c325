#pragma once
// Where the calibration tests find committed data and put scratch files.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace pipesim::calibrate::testing {

inline std::filesystem::path source_dir() {
  const char* dir = std::getenv("PIPESIM_SOURCE_DIR");
  return dir ? std::filesystem::path(dir) : std::filesystem::path(PIPESIM_TEST_SOURCE_DIR);
}

inline std::filesystem::path data_dir() {
  return source_dir() / "tests" / "data" / "calibration";
}

//! A fresh directory per test (named after it), removed first if a previous run left it.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir =
      std::filesystem::temp_directory_path() /
      (std::string("pipesim-calibrate-") + info->test_suite_name() + "-" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace pipesim::calibrate::testing
