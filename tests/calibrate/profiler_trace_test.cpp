// The profiler-trace reader: Kineto's Chrome-format events built here as JSON text, parsed
// from memory and from files (plain and gzip-compressed), what is kept of each, and the error
// for every input that is not a trace with GPU kernels.

#include "pipesim/calibrate/profiler_trace.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "test_paths.hpp"

namespace pipesim::calibrate {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Kineto's events, as torch.profiler writes them.
json kernel_event(const std::string& name, double ts, double dur, std::int64_t correlation,
                  std::int64_t stream = 7, std::int64_t device = 0,
                  const std::string& cat = "kernel") {
  return {{"ph", "X"},
          {"cat", cat},
          {"name", name},
          {"pid", device},
          {"tid", stream},
          {"ts", ts},
          {"dur", dur},
          {"args",
           {{"External id", correlation + 1000},
            {"device", device},
            {"stream", stream},
            {"correlation", correlation},
            {"grid", {132, 1, 1}},
            {"block", {128, 1, 1}}}}};
}

json launch_event(std::int64_t correlation, double ts, json pid = 1, json tid = 1,
                  const std::string& cat = "cuda_runtime") {
  return {{"ph", "X"},
          {"cat", cat},
          {"name", cat == "cuda_runtime" ? "cudaLaunchKernel" : "cuLaunchKernel"},
          {"pid", std::move(pid)},
          {"tid", std::move(tid)},
          {"ts", ts},
          {"dur", 3.5},
          {"args", {{"External id", correlation + 1000}, {"correlation", correlation}}}};
}

json range_event(const std::string& name, double ts, double dur, json pid = 1, json tid = 1) {
  return {{"ph", "X"},
          {"cat", "user_annotation"},
          {"name", name},
          {"pid", std::move(pid)},
          {"tid", std::move(tid)},
          {"ts", ts},
          {"dur", dur}};
}

// `dims` and `types` as the JSON text of args' Input Dims and Input type.
json cpu_op(const std::string& name, double ts, double dur, const std::string& dims,
            const std::string& types) {
  return {{"ph", "X"},
          {"cat", "cpu_op"},
          {"name", name},
          {"pid", 1},
          {"tid", 1},
          {"ts", ts},
          {"dur", dur},
          {"args",
           {{"External id", 7},
            {"Input Dims", json::parse(dims)},
            {"Input type", json::parse(types)}}}};
}

// The object form export_chrome_trace writes.
std::string trace_text(const json& events, json extra = json::object()) {
  json t = {{"schemaVersion", 1}, {"traceEvents", events}};
  for (auto& [key, value] : extra.items())
    t[key] = value;
  return t.dump();
}

std::string error_of(const std::string& text, const std::string& source = "t.json") {
  try {
    parse_profiler_trace(text, source);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string read_error(const fs::path& path) {
  try {
    read_profiler_trace(path);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

void write_gzip(const fs::path& path, const std::string& text) {
  gzFile f = gzopen(path.string().c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string& name_of(const ProfilerTrace& t, std::uint32_t id) {
  return t.names.at(id);
}

// Two kernels and a copy, their launches, a range, and events the reader passes over.
json small_events() {
  return json::array({
      range_event("attn(F)", 100.0, 50.0),
      launch_event(11, 110.0),
      launch_event(12, 120.5, 1, 2, "cuda_driver"),
      launch_event(13, 130.0),
      kernel_event("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 200.0, 12.5, 11,
                   7, 0),
      kernel_event("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 205.0, 40.25, 12, 31, 0),
      kernel_event("Memcpy DtoD (Device -> Device)", 260.0, 1.75, 13, 7, 0, "gpu_memcpy"),
      // A flow arrow, an instant event and a kernel without a duration: not kept.
      {{"ph", "f"},
       {"cat", "ac2g"},
       {"name", "ac2g"},
       {"id", 11},
       {"pid", 0},
       {"tid", 7},
       {"ts", 200.0}},
      {{"ph", "i"}, {"cat", "kernel"}, {"name", "marker"}, {"pid", 0}, {"tid", 7}, {"ts", 1.0}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "no_dur"}, {"pid", 0}, {"tid", 7}, {"ts", 1.0}},
      // A runtime call without a correlation id (cudaStreamSynchronize): no launch.
      {{"ph", "X"},
       {"cat", "cuda_runtime"},
       {"name", "cudaStreamSynchronize"},
       {"pid", 1},
       {"tid", 1},
       {"ts", 300.0},
       {"dur", 2.0},
       {"args", json::object()}},
  });
}

TEST(TraceReader, KeepsKernelsLaunchesAndRanges) {
  const ProfilerTrace t = parse_profiler_trace(trace_text(small_events()), "small.json");
  EXPECT_EQ(t.source, "small.json");
  EXPECT_EQ(t.events, 11u);  // every event, kept or not
  ASSERT_EQ(t.kernels.size(), 3u);
  const TraceKernel& gemm = t.kernels[0];
  EXPECT_EQ(name_of(t, gemm.name), "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
  EXPECT_EQ(gemm.kind, KernelKind::gemm);
  EXPECT_EQ(gemm.start, 200.0);
  EXPECT_EQ(gemm.duration, 12.5);
  EXPECT_EQ(gemm.stream, 7);
  EXPECT_EQ(gemm.device, 0);
  EXPECT_EQ(gemm.correlation, 11);
  EXPECT_EQ(t.kernels[1].kind, KernelKind::collective);
  EXPECT_EQ(t.kernels[1].stream, 31);
  EXPECT_EQ(t.kernels[1].correlation, 12);
  EXPECT_EQ(t.kernels[2].kind, KernelKind::memcpy);
  EXPECT_EQ(t.kernels[2].duration, 1.75);
  EXPECT_DOUBLE_EQ(t.kernel_time(), 12.5 + 40.25 + 1.75);

  ASSERT_EQ(t.launches.size(), 3u);
  EXPECT_EQ(t.launches[0].correlation, 11);
  EXPECT_EQ(t.launches[0].time, 110.0);
  EXPECT_EQ(t.launches[1].correlation, 12);  // cuda_driver launches count too
  EXPECT_EQ(t.launches[1].pid, 1);
  EXPECT_EQ(t.launches[1].tid, 2);
  EXPECT_EQ(t.launches[1].time, 120.5);

  ASSERT_EQ(t.ranges.size(), 1u);
  EXPECT_EQ(name_of(t, t.ranges[0].name), "attn(F)");
  EXPECT_EQ(t.ranges[0].pid, 1);
  EXPECT_EQ(t.ranges[0].tid, 1);
  EXPECT_EQ(t.ranges[0].start, 100.0);
  EXPECT_EQ(t.ranges[0].duration, 50.0);
  EXPECT_TRUE(t.gemms.empty());
  // Neither section present: nothing known.
  EXPECT_TRUE(t.devices.empty());
  EXPECT_EQ(t.gpu(), "");
  EXPECT_EQ(t.rank, -1);
  EXPECT_EQ(t.world_size, -1);
}

TEST(TraceReader, NamesAreKeptOnce) {
  json events = json::array();
  for (int i = 0; i < 3; ++i) {
    events.push_back(range_event("mlp(B)", 10.0 * i, 5.0));
    events.push_back(kernel_event("rotary_kernel", 100.0 + i, 0.5, -1));
  }
  const ProfilerTrace t = parse_profiler_trace(trace_text(events), "t.json");
  EXPECT_EQ(t.names.size(), 2u);
  ASSERT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.kernels[0].name, t.kernels[2].name);
  EXPECT_EQ(t.ranges[0].name, t.ranges[2].name);
  EXPECT_NE(t.ranges[0].name, t.kernels[0].name);
  EXPECT_EQ(t.kernels[1].kind, KernelKind::elementwise);
}

TEST(TraceReader, KernelWithoutCorrelationKeepsMinusOne) {
  json k = kernel_event("rotary_kernel", 5.0, 1.0, 3);
  k["args"].erase("correlation");
  k["args"].erase("stream");
  const ProfilerTrace t = parse_profiler_trace(trace_text(json::array({k})), "t.json");
  ASSERT_EQ(t.kernels.size(), 1u);
  EXPECT_EQ(t.kernels[0].correlation, -1);
  EXPECT_EQ(t.kernels[0].stream, -1);
}

TEST(TraceReader, DevicePropertiesAndDistributedInfo) {
  json events = json::array();
  // Two kernels on device 1, one on device 0: the trace ran on device 1's GPU.
  events.push_back(kernel_event("gemm_a", 1.0, 1.0, 1, 7, 1));
  events.push_back(kernel_event("gemm_b", 2.0, 1.0, 2, 7, 1));
  events.push_back(kernel_event("gemm_c", 3.0, 1.0, 3, 7, 0));
  const json devices = json::array(
      {{{"id", 0},
        {"name", "NVIDIA H100 80GB HBM3"},
        {"totalGlobalMem", 85021163520},
        {"computeMajor", 9}},
       {{"id", 1}, {"name", "NVIDIA H800"}, {"totalGlobalMem", 85021163520}, {"computeMajor", 9}}});
  const json distributed = {{"backend", "nccl"}, {"rank", 5}, {"world_size", 64}};
  const ProfilerTrace t = parse_profiler_trace(
      trace_text(events, {{"deviceProperties", devices}, {"distributedInfo", distributed}}),
      "t.json");
  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_EQ(t.devices[0], (std::pair<std::int64_t, std::string>{0, "NVIDIA H100 80GB HBM3"}));
  EXPECT_EQ(t.devices[1], (std::pair<std::int64_t, std::string>{1, "NVIDIA H800"}));
  EXPECT_EQ(t.gpu(), "NVIDIA H800");
  EXPECT_EQ(t.rank, 5);
  EXPECT_EQ(t.world_size, 64);

  // Kernels on a device the list does not name: the first listed.
  json other = json::array({kernel_event("gemm_a", 1.0, 1.0, 1, 7, 3)});
  const ProfilerTrace u =
      parse_profiler_trace(trace_text(other, {{"deviceProperties", devices}}), "u.json");
  EXPECT_EQ(u.gpu(), "NVIDIA H100 80GB HBM3");
}

TEST(TraceReader, TopLevelArrayForm) {
  // The Chrome format's other form: the events alone, in an array.
  const ProfilerTrace t = parse_profiler_trace(small_events().dump(), "array.json");
  EXPECT_EQ(t.events, 11u);
  EXPECT_EQ(t.kernels.size(), 3u);
  EXPECT_EQ(t.launches.size(), 3u);
  EXPECT_EQ(t.ranges.size(), 1u);
}

TEST(TraceReader, TextProcessAndThreadIds) {
  // Kineto writes the profiler's own spans with pid "Spans"; Megatron's traces carry text tids.
  const json events = json::array({
      range_event("ProfilerStep#3", 0.0, 100.0, "Spans", "PyTorch Profiler"),
      range_event("attn(F)", 10.0, 10.0, "Spans", "PyTorch Profiler"),
      range_event("mlp(F)", 30.0, 10.0, "Other", "PyTorch Profiler"),
      range_event("mlp(B)", 50.0, 10.0, 1, 1),
      launch_event(1, 12.0, "Spans", "PyTorch Profiler"),
      kernel_event("gemm", 20.0, 1.0, 1),
  });
  const ProfilerTrace t = parse_profiler_trace(trace_text(events), "t.json");
  ASSERT_EQ(t.ranges.size(), 4u);
  // The same text is the same id, different texts differ, and none is a numeric id's.
  EXPECT_EQ(t.ranges[0].pid, t.ranges[1].pid);
  EXPECT_EQ(t.ranges[0].tid, t.ranges[1].tid);
  EXPECT_NE(t.ranges[0].pid, t.ranges[2].pid);
  EXPECT_EQ(t.ranges[2].tid, t.ranges[0].tid);
  EXPECT_NE(t.ranges[0].pid, t.ranges[3].pid);
  EXPECT_NE(t.ranges[0].tid, t.ranges[3].tid);
  EXPECT_LT(t.ranges[0].pid, 0);
  EXPECT_EQ(t.ranges[3].pid, 1);
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.launches[0].pid, t.ranges[0].pid);
  EXPECT_EQ(t.launches[0].tid, t.ranges[0].tid);
}

TEST(TraceReader, InputDimsOfGemmOps) {
  json events = json::array({kernel_event("gemm", 1.0, 1.0, 1)});
  // mm(A[m,k], B[k,n]).
  events.push_back(cpu_op("aten::mm", 10.0, 5.0, "[[256, 512], [512, 1024]]",
                          R"(["c10::BFloat16", "c10::BFloat16"])"));
  // addmm(bias[n], A[m,k], B[k,n]): the product's operands second and third.
  events.push_back(cpu_op("aten::addmm", 20.0, 6.0, "[[96], [64, 48], [48, 96], [], []]",
                          R"(["float", "float", "float", "Scalar", "Scalar"])"));
  // bmm(A[b,m,k], B[b,k,n]).
  events.push_back(cpu_op("aten::bmm", 30.0, 7.0, "[[8, 128, 64], [8, 64, 32]]",
                          R"(["c10::Half", "c10::Half"])"));
  // baddbmm(C, A[b,m,k], B[b,k,n]).
  events.push_back(
      cpu_op("aten::baddbmm", 35.0, 7.5, "[[4, 16, 8], [4, 16, 24], [4, 24, 8], [], []]",
             R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])"));
  // linear(x[b,s,k], W[n,k], bias[n]): every leading dimension of x is a row.
  events.push_back(cpu_op("aten::linear", 40.0, 8.0, "[[2, 4096, 7168], [1536, 7168], []]",
                          R"(["c10::BFloat16", "c10::BFloat16", ""])"));
  // Not GEMMs, or operands that do not multiply: not kept.
  events.push_back(cpu_op("aten::add", 50.0, 1.0, "[[4, 4], [4, 4]]", R"(["float", "float"])"));
  events.push_back(cpu_op("aten::mm", 60.0, 1.0, "[[4, 5], [6, 7]]", R"(["float", "float"])"));
  events.push_back(
      cpu_op("aten::bmm", 70.0, 1.0, "[[2, 4, 5], [3, 5, 7]]", R"(["float", "float"])"));
  events.push_back(cpu_op("aten::mm", 80.0, 1.0, "[[4, 5]]", R"(["float"])"));
  const ProfilerTrace t = parse_profiler_trace(trace_text(events), "t.json");
  ASSERT_EQ(t.gemms.size(), 5u);

  const ShapedGemm& mm = t.gemms[0];
  EXPECT_EQ(mm.pid, 1);
  EXPECT_EQ(mm.tid, 1);
  EXPECT_EQ(mm.start, 10.0);
  EXPECT_EQ(mm.duration, 5.0);
  EXPECT_EQ(std::make_tuple(mm.m, mm.n, mm.k, mm.batch), std::make_tuple(256, 1024, 512, 1));
  EXPECT_EQ(mm.dtype, "bf16");

  const ShapedGemm& addmm = t.gemms[1];
  EXPECT_EQ(std::make_tuple(addmm.m, addmm.n, addmm.k, addmm.batch),
            std::make_tuple(64, 96, 48, 1));
  EXPECT_EQ(addmm.dtype, "fp32");  // the dtype of A, not of the bias

  const ShapedGemm& bmm = t.gemms[2];
  EXPECT_EQ(std::make_tuple(bmm.m, bmm.n, bmm.k, bmm.batch), std::make_tuple(128, 32, 64, 8));
  EXPECT_EQ(bmm.dtype, "fp16");

  const ShapedGemm& baddbmm = t.gemms[3];
  EXPECT_EQ(std::make_tuple(baddbmm.m, baddbmm.n, baddbmm.k, baddbmm.batch),
            std::make_tuple(16, 8, 24, 4));

  const ShapedGemm& linear = t.gemms[4];
  EXPECT_EQ(std::make_tuple(linear.m, linear.n, linear.k, linear.batch),
            std::make_tuple(2 * 4096, 1536, 7168, 1));
  EXPECT_EQ(linear.dtype, "bf16");
  EXPECT_EQ(linear.start, 40.0);
}

TEST(TraceReader, InputTypeAbsentOrUnknownLeavesTheDtypeEmpty) {
  json events = json::array({kernel_event("gemm", 1.0, 1.0, 1)});
  json op = cpu_op("aten::mm", 10.0, 5.0, "[[2, 3], [3, 4]]", "[]");
  op["args"].erase("Input type");
  events.push_back(op);
  events.push_back(cpu_op("aten::mm", 20.0, 5.0, "[[2, 3], [3, 4]]",
                          R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn"])"));
  const ProfilerTrace t = parse_profiler_trace(trace_text(events), "t.json");
  ASSERT_EQ(t.gemms.size(), 2u);
  EXPECT_EQ(t.gemms[0].dtype, "");
  EXPECT_EQ(t.gemms[1].dtype, "");
  EXPECT_EQ(std::make_tuple(t.gemms[1].m, t.gemms[1].n, t.gemms[1].k), std::make_tuple(2, 4, 3));
}

TEST(TraceReader, ErrorsNameTheSource) {
  const std::string valid = trace_text(small_events());

  const std::string not_json = error_of("this is not JSON", "bad.json");
  EXPECT_NE(not_json.find("bad.json"), std::string::npos) << not_json;
  EXPECT_NE(not_json.find("not a complete JSON trace"), std::string::npos) << not_json;

  // Cut in half: the error is at the byte after the last one there is (1-based: size + 1).
  const std::string half = valid.substr(0, valid.size() / 2);
  try {
    parse_profiler_trace(half, "cut.json");
    ADD_FAILURE() << "a trace cut in half parsed";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.source(), "cut.json");
    EXPECT_EQ(e.field(), "byte " + std::to_string(half.size() + 1)) << e.what();
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }

  const std::string no_events = error_of(R"({"schemaVersion": 1, "deviceProperties": []})");
  EXPECT_NE(no_events.find("t.json: traceEvents: missing"), std::string::npos) << no_events;
  EXPECT_NE(error_of("42").find("traceEvents: missing"), std::string::npos);

  // A CPU-only trace: five events, none a GPU kernel.
  json cpu_only = json::array();
  for (int i = 0; i < 5; ++i)
    cpu_only.push_back(range_event("attn(F)", 10.0 * i, 5.0));
  const std::string no_kernels = error_of(trace_text(cpu_only), "cpu.json");
  EXPECT_NE(no_kernels.find("cpu.json: traceEvents: no GPU kernels among its 5 events"),
            std::string::npos)
      << no_kernels;
  EXPECT_NE(error_of("[]").find("no GPU kernels among its 0 events"), std::string::npos);
}

TEST(TraceReader, ReadsPlainAndCompressedFilesAlike) {
  const fs::path dir = testing::scratch_dir();
  const std::string text = trace_text(
      small_events(), {{"deviceProperties", json::array({{{"id", 0}, {"name", "NVIDIA H800"}}})}});
  write_file(dir / "trace.json", text);
  write_gzip(dir / "trace.json.gz", text);
  // A compressed file is smaller than its text, so the second really went through zlib.
  EXPECT_LT(fs::file_size(dir / "trace.json.gz"), fs::file_size(dir / "trace.json"));

  const ProfilerTrace plain = read_profiler_trace(dir / "trace.json");
  const ProfilerTrace packed = read_profiler_trace(dir / "trace.json.gz");
  EXPECT_EQ(plain.source, (dir / "trace.json").string());
  EXPECT_EQ(packed.source, (dir / "trace.json.gz").string());
  for (const ProfilerTrace* t : {&plain, &packed}) {
    EXPECT_EQ(t->events, 11u);
    ASSERT_EQ(t->kernels.size(), 3u);
    EXPECT_EQ(t->launches.size(), 3u);
    EXPECT_EQ(t->ranges.size(), 1u);
    EXPECT_EQ(t->gpu(), "NVIDIA H800");
    EXPECT_DOUBLE_EQ(t->kernel_time(), 12.5 + 40.25 + 1.75);
    EXPECT_EQ(t->names, plain.names);
  }
}

TEST(TraceReader, FileErrorsNameTheFile) {
  const fs::path dir = testing::scratch_dir();
  const std::string text = trace_text(small_events());

  const fs::path missing = dir / "missing.json";
  const std::string no_file = read_error(missing);
  EXPECT_NE(no_file.find(missing.string()), std::string::npos) << no_file;
  EXPECT_NE(no_file.find("cannot be read"), std::string::npos) << no_file;
  EXPECT_NE(read_error(dir).find("cannot be read"), std::string::npos);  // a directory

  // A file cut in half, plain: the byte after its last.
  const fs::path cut = dir / "cut.json";
  const std::string half = text.substr(0, text.size() / 2);
  write_file(cut, half);
  const std::string cut_error = read_error(cut);
  EXPECT_NE(cut_error.find(cut.string() + ": byte " + std::to_string(half.size() + 1) + ":"),
            std::string::npos)
      << cut_error;

  // The same text compressed and cut: zlib finds the stream ends early.
  const fs::path gz = dir / "t.json.gz";
  write_gzip(gz, text);
  const std::string packed = read_bytes(gz);
  write_file(dir / "cut.json.gz", packed.substr(0, packed.size() / 2));
  const std::string cut_gz = read_error(dir / "cut.json.gz");
  EXPECT_NE(
      cut_gz.find((dir / "cut.json.gz").string() + ": file: corrupt or cut short compressed data"),
      std::string::npos)
      << cut_gz;
  EXPECT_NE(cut_gz.find("unexpected end of file"), std::string::npos) << cut_gz;  // zlib's words

  // Corrupt compressed data: the gzip header kept, the deflate stream overwritten.
  std::string corrupt = packed;
  for (std::size_t i = 12; i < corrupt.size() - 8; ++i)
    corrupt[i] = static_cast<char>(0xff);
  write_file(dir / "corrupt.json.gz", corrupt);
  const std::string corrupt_error = read_error(dir / "corrupt.json.gz");
  EXPECT_NE(corrupt_error.find((dir / "corrupt.json.gz").string() +
                               ": file: corrupt or cut short compressed data"),
            std::string::npos)
      << corrupt_error;

  // Text that is not JSON, in a file.
  write_file(dir / "notes.json", "profiler output follows\n");
  const std::string not_json = read_error(dir / "notes.json");
  EXPECT_NE(not_json.find((dir / "notes.json").string() + ": byte "), std::string::npos)
      << not_json;
}

TEST(TraceReader, ReportsProgressEvery64MiB) {
  // A plain trace just over 64 MiB (one long annotation name pads it): one report, at a read
  // position past 64 MiB, with the file's size as the total.
  const fs::path path = testing::scratch_dir() / "big.json";
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  json events = small_events();
  events.push_back(range_event(std::string(65 * kMiB, 'x'), 0.0, 1.0));
  write_file(path, trace_text(events));
  const std::uint64_t size = fs::file_size(path);
  ASSERT_GT(size, 65 * kMiB);
  ASSERT_LT(size, 128 * kMiB);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reports;
  const ProfilerTrace t = read_profiler_trace(
      path, [&](std::uint64_t read, std::uint64_t total) { reports.emplace_back(read, total); });
  EXPECT_EQ(t.ranges.size(), 2u);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_GE(reports[0].first, 64 * kMiB);
  EXPECT_LE(reports[0].first, size);
  EXPECT_EQ(reports[0].second, size);
  fs::remove(path);
}

}  // namespace
}  // namespace pipesim::calibrate
