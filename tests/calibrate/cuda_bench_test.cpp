// The CUDA benchmarks compile wherever nvcc is present (they are built with this test when the
// build found a CUDA compiler) and answer --help without touching a GPU. Skipped otherwise.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

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

TEST(CudaBench, BinariesAnswerHelpWithoutAGpu) {
  const std::string dir = PIPESIM_CUDA_BENCH_DIR;
  if (dir.empty()) GTEST_SKIP() << "no CUDA compiler in this build: calibrate/bench not built";
  for (const std::string bin : {"pipesim-calibrate-bench", "pipesim-layer-bench"}) {
    int status = -1;
    const std::string out = run("'" + dir + "/" + bin + "' --help 2>&1", status);
    EXPECT_EQ(status, 0) << bin << ": " << out;
    EXPECT_EQ(out.rfind("usage: " + bin + " --out", 0), 0u) << out;
  }
}

TEST(CudaBench, MissingOutputIsAUsageError) {
  const std::string dir = PIPESIM_CUDA_BENCH_DIR;
  if (dir.empty()) GTEST_SKIP() << "no CUDA compiler in this build: calibrate/bench not built";
  int status = -1;
  const std::string out = run("'" + dir + "/pipesim-calibrate-bench' --quick 2>&1", status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("error: --out FILE is required"), std::string::npos) << out;
}

}  // namespace
