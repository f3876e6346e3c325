// The samples CSV reader: what it accepts, and the exact one-line error for each malformed file.

#include "pipesim/calibrate/samples.hpp"

#include <gtest/gtest.h>

#include <random>

#include "pipesim/core/config_error.hpp"

namespace pipesim::calibrate {
namespace {

constexpr const char* kHeader = "benchmark,dtype,m,n,k,bytes,gpus,seconds,spread,reps,note\n";

std::string error_of(const std::string& text) {
  try {
    parse_samples(text, "s.csv");
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Samples, ParsesRowsMetadataAndNotMeasurable) {
  const SampleSet set =
      parse_samples(std::string("# gpu: NVIDIA H200\n# date: 2026-11-30\n\n") + kHeader +
                        "gemm,bf16,4096,12288,4096,1.5e8,1,1.9e-4,0.01,5,TN\r\n"
                        "peer_copy,,0,0,0,0,1,NA,NA,0,not measurable: 1 GPU\n",
                    "s.csv");
  ASSERT_EQ(set.rows.size(), 2u);
  EXPECT_EQ(set.meta("gpu", "?"), "NVIDIA H200");
  EXPECT_EQ(set.meta("driver", "unknown"), "unknown");
  const Sample& g = set.rows[0];
  EXPECT_EQ(g.benchmark, "gemm");
  EXPECT_EQ(g.dtype, "bf16");
  EXPECT_EQ(g.m, 4096);
  EXPECT_DOUBLE_EQ(g.gemm_flops(), 2.0 * 4096 * 12288 * 4096);
  ASSERT_TRUE(g.seconds.has_value());
  EXPECT_DOUBLE_EQ(*g.seconds, 1.9e-4);
  EXPECT_EQ(g.line, 5);  // comments and blank lines count
  EXPECT_FALSE(set.rows[1].seconds.has_value());
  EXPECT_EQ(set.measured("peer_copy").size(), 0u);  // NA rows never reach the fits
  EXPECT_EQ(set.measured("gemm", "bf16").size(), 1u);
  EXPECT_EQ(set.measured("gemm", "fp16").size(), 0u);
}

TEST(Samples, EmptyFileNamesTheExpectedHeader) {
  EXPECT_EQ(error_of(""),
            "s.csv: line 1: empty samples file: expected the header "
            "benchmark,dtype,m,n,k,bytes,gpus,seconds");
  EXPECT_EQ(error_of("# only a comment\n\n"), error_of(""));
}

TEST(Samples, MissingColumnIsNamed) {
  EXPECT_EQ(error_of("benchmark,dtype,m,n,k,bytes,gpus\ngemm,bf16,1,1,1,1,1\n"),
            "s.csv: line 1, header: missing column 'seconds' at position 8 (the header must start "
            "with benchmark,dtype,m,n,k,bytes,gpus,seconds)");
  EXPECT_EQ(error_of("benchmark,dtype,m,k,n,bytes,gpus,seconds\n"),
            "s.csv: line 1, header: missing column 'n' at position 4 (the header must start with "
            "benchmark,dtype,m,n,k,bytes,gpus,seconds)");
}

TEST(Samples, NonNumericCellNamesLineAndColumn) {
  EXPECT_EQ(error_of(std::string(kHeader) + "gemm,bf16,4096,x12,4096,1,1,1e-3,0,5,\n"),
            "s.csv: line 2, column 'n': must be a non-negative integer, got 'x12'");
  EXPECT_EQ(error_of(std::string(kHeader) + "copy,fp32,0,0,0,1e6,1,fast,0,5,\n"),
            "s.csv: line 2, column 'seconds': must be a finite number, got 'fast'");
}

TEST(Samples, NegativeOrZeroTimeIsRejected) {
  EXPECT_EQ(error_of(std::string(kHeader) + "copy,fp32,0,0,0,1e6,1,-2e-5,0,5,\n"),
            "s.csv: line 2, column 'seconds': must be in [1e-09, 3600] (or NA when not measurable), "
            "got -2e-5");
  EXPECT_EQ(error_of(std::string(kHeader) + "copy,fp32,0,0,0,1e6,1,0,0,5,\n"),
            "s.csv: line 2, column 'seconds': must be in [1e-09, 3600] (or NA when not measurable), "
            "got 0");
}

TEST(Samples, OtherMalformedRows) {
  EXPECT_EQ(error_of(std::string(kHeader)), "s.csv: line 1: no sample rows after the header");
  EXPECT_EQ(error_of(std::string(kHeader) + "copy,fp32,0,0,0,1e6,1,1e-5\n"),
            "s.csv: line 2, column 'spread': row has 8 cells, the header has 11");
  EXPECT_EQ(error_of(std::string(kHeader) + "copy,fp32,0,0,0,1e6,0,1e-5,0,5,\n"),
            "s.csv: line 2, column 'gpus': must be in [1, 1000000], got 0");
  EXPECT_EQ(error_of(std::string(kHeader) + "copy,fp32,0,0,0,-1,1,1e-5,0,5,\n"),
            "s.csv: line 2, column 'bytes': must be in [0, 1e+15], got -1");
  EXPECT_EQ(error_of(std::string(kHeader) + ",fp32,0,0,0,1,1,1e-5,0,5,\n"),
            "s.csv: line 2, column 'benchmark': must not be empty");
}

TEST(Samples, UnreadableFileIsAConfigError) {
  EXPECT_THROW(read_samples("/nonexistent/pipesim/samples.csv"), core::ConfigError);
}

}  // namespace
}  // namespace pipesim::calibrate

namespace pipesim::calibrate {
namespace {

// Fuzz-style: mutations of a valid file and random bytes either parse or raise ConfigError —
// never another exception, a crash, or (under the asan preset) a memory error.
TEST(Samples, GarbageIsEitherParsedOrAConfigError) {
  const std::string valid = std::string("# gpu: x\n") + kHeader +
                            "gemm,bf16,512,512,512,1.5e6,1,1.9e-5,0.01,5,TN\n"
                            "copy,fp32,0,0,0,2e6,1,1e-6,0.01,5,\n";
  std::mt19937 rng(6);
  const std::string alphabet = "0123456789,.-+eE#:\n\r abcNA";
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    if (i % 10 == 0) {  // pure noise too
      text.resize(rng() % 64);
      for (char& c : text)
        c = static_cast<char>(rng() % 256);
    }
    try {
      const SampleSet set = parse_samples(text, "fuzz.csv");
      for (const Sample& s : set.rows) {
        EXPECT_FALSE(s.benchmark.empty());
        if (s.seconds) {
          EXPECT_GT(*s.seconds, 0.0);
        }
      }
      ++parsed;
    } catch (const core::ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("fuzz.csv: ", 0), 0u) << e.what();
      ++rejected;
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace pipesim::calibrate
