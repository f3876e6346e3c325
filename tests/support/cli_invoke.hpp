#pragma once
// The pipesim CLI in-process, for tests: argv in; exit code, stdout and stderr out. Also a
// scratch folder per test.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace pipesim::testing {

struct CliResult {
  int code = 0;
  std::string out;
  std::string err;
};

inline CliResult invoke_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "pipesim");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  std::ostringstream out, err;
  ::testing::internal::CaptureStdout();
  const int code = cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  const std::string captured = ::testing::internal::GetCapturedStdout();
  return {code, captured + out.str(), err.str()};
}

inline size_t count_lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

//! An empty folder named after the running test, removed when the object goes.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::temp_directory_path() /
            ("pipesim-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary) << content;
    return file(name);
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace pipesim::testing
