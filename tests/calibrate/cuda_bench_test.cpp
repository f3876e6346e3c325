// The CUDA benchmarks compile wherever nvcc is present (they are built with this test when the
// build found a CUDA compiler) and answer --help without touching a GPU; on a machine without a
// GPU they say so in one line with exit status 3 and write nothing. Skipped without nvcc.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "test_paths.hpp"

namespace {

std::string run(const std::string& cmd, int& status) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::array<char, 256> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), pipe.get()))
    out += buf.data();
  status = pclose(pipe.release());
  return out;
}

// The benchmark binaries of this build; every test is skipped when there are none.
class CudaBench : public ::testing::Test {
 protected:
  void SetUp() override {
    if (dir_.empty()) GTEST_SKIP() << "no CUDA compiler in this build: calibrate/bench not built";
  }
  //! `bin args 2>&1`, with `bin` one of the benchmarks.
  std::string bench(const std::string& bin, const std::string& args, int& status) const {
    return run("'" + dir_ + "/" + bin + "' " + args + " 2>&1", status);
  }
  const std::string dir_ = PIPESIM_CUDA_BENCH_DIR;
  static constexpr std::array<const char*, 2> kBins = {"pipesim-calibrate-bench",
                                                       "pipesim-layer-bench"};
};

TEST_F(CudaBench, BinariesAnswerHelpWithoutAGpu) {
  for (const std::string bin : kBins) {
    int status = -1;
    const std::string out = bench(bin, "--help", status);
    EXPECT_EQ(status, 0) << bin << ": " << out;
    EXPECT_EQ(out.rfind("usage: " + bin + " --out", 0), 0u) << out;
  }
}

TEST_F(CudaBench, MissingOutputIsAUsageError) {
  int status = -1;
  const std::string out = bench("pipesim-calibrate-bench", "--quick", status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("error: --out FILE is required"), std::string::npos) << out;
}

TEST_F(CudaBench, WithoutAGpuOneLineAndExitStatus3) {
  for (const std::string bin : kBins) {
    int status = -1;
    const std::string probe = bench(bin, "--probe", status);
    if (WEXITSTATUS(status) == 0) {  // a GPU here: --probe lists it ("0: NAME (sm_XY)")
      EXPECT_EQ(probe.rfind("0: ", 0), 0u) << probe;
      continue;
    }
    EXPECT_EQ(WEXITSTATUS(status), 3) << probe;
    EXPECT_EQ(probe.rfind(bin + ": no CUDA device found (", 0), 0u) << probe;
    EXPECT_EQ(std::count(probe.begin(), probe.end(), '\n'), 1) << probe;
    // A run says the same and writes no file.
    const auto out = std::filesystem::temp_directory_path() / ("pipesim-no-gpu-" + bin + ".csv");
    std::filesystem::remove(out);
    const std::string said = bench(bin, "--quick --out '" + out.string() + "'", status);
    EXPECT_EQ(WEXITSTATUS(status), 3) << said;
    EXPECT_EQ(said, probe);
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

// `p` in single quotes for the shell (built by appending: GCC 12 misreports "'" + s + "'").
std::string quoted(const std::filesystem::path& p) {
  std::string q = "'";
  q += p.string();
  q += '\'';
  return q;
}

// tools/gpu-calibrate.sh against stand-ins for nvidia-smi, nvcc and cmake on PATH, so that the
// no-GPU path and the --arch translation are checked on any machine.
class GpuCalibrateScript : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = pipesim::calibrate::testing::scratch_dir();
    std::filesystem::create_directories(dir_ / "bin");
    tool("nvcc", "exit 0");
    // The stand-in cmake records its arguments and creates the -B folder.
    tool("cmake", "echo \"$@\" >> '" + (dir_ / "cmake.args").string() +
                      "'\nprev=; for a; do [ \"$prev\" = -B ] && mkdir -p \"$a\"; prev=$a; done\n");
  }
  void tool(const std::string& name, const std::string& body) {
    const auto path = dir_ / "bin" / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
  //! Runs the script with `env` assignments and `args`; its output (stdout and stderr).
  std::string script(const std::string& env, const std::string& args, int& status) {
    const auto sh = pipesim::calibrate::testing::source_dir() / "tools" / "gpu-calibrate.sh";
    return run(env + " PATH='" + (dir_ / "bin").string() + ":/usr/bin:/bin' " + sh.string() + " " +
                   args + " 2>&1",
               status);
  }
  //! The arguments of the configure call (the one with -S).
  std::string configure_args() const {
    std::ifstream args(dir_ / "cmake.args");
    for (std::string line; std::getline(args, line);) {
      if (line.rfind("-S ", 0) == 0) return line;
    }
    return "(no configure call)";
  }
  std::filesystem::path dir_;
};

TEST_F(GpuCalibrateScript, WithoutAGpuOneLineAndNoFolder) {
  tool("nvidia-smi",
       "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"\n"
       "exit 9");
  int status = -1;
  const std::string out = script("", quoted(dir_ / "run"), status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(out,
            "gpu-calibrate: no NVIDIA GPU found (nvidia-smi -L: NVIDIA-SMI has failed because it "
            "couldn't communicate with the NVIDIA driver.); run this on a GPU node, or "
            "BUILD_ONLY=1 with --arch to check the build only\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "run"));
}

TEST_F(GpuCalibrateScript, ArchListBecomesCmakeArchitectures) {
  tool("nvidia-smi", "exit 9");
  int status = -1;
  const std::string out =
      script("BUILD_ONLY=1", "--arch sm_90,sm_80 " + quoted(dir_ / "run"), status);
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  // SASS for each, PTX of the newest whatever the order.
  EXPECT_NE(configure_args().find("-DPIPESIM_CUDA_ARCHITECTURES=90-real;80-real;90-virtual"),
            std::string::npos)
      << configure_args();

  const std::string bad = script("BUILD_ONLY=1", "--arch 8.0 " + quoted(dir_ / "bad"), status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(bad, "gpu-calibrate: --arch: '8.0' is not of the form sm_XY (e.g. sm_80,sm_90)\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad"));
}

TEST_F(GpuCalibrateScript, DefaultArchIsTheLocalGpus) {
  // Two 8.0 GPUs and one 9.0: each capability once, PTX of the newest.
  tool("nvidia-smi",
       "case \"$*\" in *compute_cap*) printf '8.0\\n9.0\\n8.0\\n' ;; *) echo 'GPU 0: A100' ;; "
       "esac");
  int status = -1;
  const std::string out = script("BUILD_ONLY=1", quoted(dir_ / "run"), status);
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(configure_args().find("-DPIPESIM_CUDA_ARCHITECTURES=80-real;90-real;90-virtual"),
            std::string::npos)
      << configure_args();
}

}  // namespace
