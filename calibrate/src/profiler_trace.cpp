#include "pipesim/calibrate/profiler_trace.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "pipesim/core/config_error.hpp"

namespace pipesim::calibrate {
namespace {

using json = nlohmann::json;

// The GEMM ops whose Input Dims give m, n, k: (A, B) operands first in each.
enum class GemmOp { none, mm, addmm, bmm, baddbmm, linear };

GemmOp gemm_op(std::string_view name) {
  if (name == "aten::mm") return GemmOp::mm;
  if (name == "aten::addmm") return GemmOp::addmm;
  if (name == "aten::bmm") return GemmOp::bmm;
  if (name == "aten::baddbmm") return GemmOp::baddbmm;
  if (name == "aten::linear") return GemmOp::linear;
  return GemmOp::none;
}

std::string dtype_of(std::string_view input_type) {
  if (input_type == "c10::BFloat16") return "bf16";
  if (input_type == "c10::Half") return "fp16";
  if (input_type == "float") return "fp32";
  return "";
}

// m, n, k of a GEMM op from its operands' dims; false when they do not form one.
bool gemm_shape(GemmOp op, const std::vector<std::vector<std::int64_t>>& dims, ShapedGemm& g) {
  // addmm(bias, A, B), baddbmm(C, A, B): the product's operands come second and third.
  const std::size_t a = op == GemmOp::addmm || op == GemmOp::baddbmm ? 1 : 0;
  if (dims.size() < a + 2) return false;
  const auto& A = dims[a];
  const auto& B = dims[a + 1];
  if (op == GemmOp::linear) {
    // linear(x[..., k], W[n, k]): every leading dimension of x is a row.
    if (A.empty() || B.size() != 2 || A.back() != B[1]) return false;
    g.m = 1;
    for (std::size_t i = 0; i + 1 < A.size(); ++i)
      g.m *= A[i];
    g.k = B[1];
    g.n = B[0];
  } else if (op == GemmOp::bmm || op == GemmOp::baddbmm) {
    if (A.size() != 3 || B.size() != 3 || A[0] != B[0] || A[2] != B[1]) return false;
    g.batch = A[0];
    g.m = A[1];
    g.k = A[2];
    g.n = B[2];
  } else {
    if (A.size() != 2 || B.size() != 2 || A[1] != B[0]) return false;
    g.m = A[0];
    g.k = A[1];
    g.n = B[1];
  }
  return g.m > 0 && g.n > 0 && g.k > 0 && g.batch > 0;
}

// Streams the trace's events into a ProfilerTrace, keeping only what calibration reads.
class TraceSax {
 public:
  explicit TraceSax(ProfilerTrace& out) : out_(out) {}

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v), v); }
  bool number_unsigned(json::number_unsigned_t v) {
    return number(static_cast<double>(v), static_cast<std::int64_t>(v));
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    // An id written as a float: whole values in range are ids, anything else matches none.
    const bool id = v >= -9.0e18 && v <= 9.0e18;
    return number(v, id ? static_cast<std::int64_t>(v) : -1);
  }
  bool binary(json::binary_t&) { return true; }

  bool string(json::string_t& v) {
    switch (top()) {
      case Frame::event:
        if (key_ == "ph") {
          event_.ph = v;
        } else if (key_ == "cat") {
          event_.cat = v;
        } else if (key_ == "name") {
          event_.name = std::move(v);
        } else if (key_ == "pid") {
          event_.pid = text_id(v);
        } else if (key_ == "tid") {
          event_.tid = text_id(v);
        }
        break;
      case Frame::input_types:
        event_.input_types.push_back(std::move(v));
        break;
      case Frame::device:
        if (key_ == "name") device_name_ = std::move(v);
        break;
      default:
        break;
    }
    return true;
  }

  bool start_object(std::size_t) {
    if (stack_.empty()) {
      stack_.push_back(Frame::top_object);
      return true;
    }
    switch (top()) {
      case Frame::top_array:
      case Frame::events:
        event_ = Event{};
        stack_.push_back(Frame::event);
        break;
      case Frame::event:
        stack_.push_back(key_ == "args" ? Frame::args : Frame::skip);
        break;
      case Frame::devices:
        device_id_ = -1;
        device_name_.clear();
        stack_.push_back(Frame::device);
        break;
      case Frame::top_object:
        stack_.push_back(key_ == "distributedInfo" ? Frame::distributed : Frame::skip);
        break;
      default:
        stack_.push_back(Frame::skip);
    }
    return true;
  }

  bool end_object() {
    const Frame f = top();
    stack_.pop_back();
    if (f == Frame::event) finish_event();
    if (f == Frame::device) out_.devices.emplace_back(device_id_, std::move(device_name_));
    return true;
  }

  bool start_array(std::size_t) {
    if (stack_.empty()) {
      stack_.push_back(Frame::top_array);
      saw_events_ = true;
      return true;
    }
    Frame next = Frame::skip;
    switch (top()) {
      case Frame::top_object:
        if (key_ == "traceEvents") {
          next = Frame::events;
          saw_events_ = true;
        } else if (key_ == "deviceProperties") {
          next = Frame::devices;
        }
        break;
      case Frame::args:
        if (key_ == "Input Dims") next = Frame::input_dims;
        if (key_ == "Input type") next = Frame::input_types;
        break;
      case Frame::input_dims:
        event_.dims.emplace_back();
        next = Frame::input_dim;
        break;
      default:
        break;
    }
    stack_.push_back(next);
    return true;
  }

  bool end_array() {
    stack_.pop_back();
    return true;
  }

  bool key(json::string_t& k) {
    key_ = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const json::exception& e) {
    error_position_ = position;
    error_ = e.what();
    return false;
  }

  bool saw_events() const { return saw_events_; }
  std::size_t error_position() const { return error_position_; }
  const std::string& error() const { return error_; }

 private:
  enum class Frame {
    top_object,
    top_array,
    events,
    event,
    args,
    input_dims,
    input_dim,
    input_types,
    devices,
    device,
    distributed,
    skip
  };

  struct Event {
    std::string ph, cat, name;
    std::int64_t pid = 0, tid = 0;
    double ts = 0, dur = 0;
    bool has_ts = false, has_dur = false;
    std::int64_t correlation = -1, stream = -1, device = -1;
    std::vector<std::vector<std::int64_t>> dims;
    std::vector<std::string> input_types;
  };

  // No frame is open while the document is one scalar (42, "text"): it is skipped, and the
  // trace is then missing its traceEvents.
  Frame top() const { return stack_.empty() ? Frame::skip : stack_.back(); }

  bool number(double v, std::int64_t i) {
    switch (top()) {
      case Frame::event:
        if (key_ == "ts") {
          event_.ts = v;
          event_.has_ts = true;
        } else if (key_ == "dur") {
          event_.dur = v;
          event_.has_dur = true;
        } else if (key_ == "pid") {
          event_.pid = i;
        } else if (key_ == "tid") {
          event_.tid = i;
        }
        break;
      case Frame::args:
        if (key_ == "correlation") {
          event_.correlation = i;
        } else if (key_ == "stream") {
          event_.stream = i;
        } else if (key_ == "device") {
          event_.device = i;
        }
        break;
      case Frame::input_dim:
        event_.dims.back().push_back(i);
        break;
      case Frame::device:
        if (key_ == "id") device_id_ = i;
        break;
      case Frame::distributed:
        if (key_ == "rank") out_.rank = static_cast<int>(i);
        if (key_ == "world_size") out_.world_size = static_cast<int>(i);
        break;
      default:
        break;
    }
    return true;
  }

  // A pid or tid written as text ("Spans", "PyTorch Profiler"): its own negative id.
  std::int64_t text_id(const std::string& text) {
    const auto [it, added] =
        text_ids_.try_emplace(text, -static_cast<std::int64_t>(text_ids_.size()) - 1);
    return it->second;
  }

  std::uint32_t intern(std::string&& name) {
    const auto [it, added] =
        name_ids_.try_emplace(std::move(name), static_cast<std::uint32_t>(out_.names.size()));
    if (added) {
      out_.names.push_back(it->first);
      kinds_.push_back(std::nullopt);
    }
    return it->second;
  }

  void finish_event() {
    ++out_.events;
    Event& e = event_;
    const bool complete = e.ph == "X" && e.has_ts && e.has_dur && e.dur >= 0;
    if (complete && (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset")) {
      TraceKernel k;
      k.name = intern(std::move(e.name));
      auto& kind = kinds_[k.name];
      if (!kind) kind = classify_kernel(out_.names[k.name], e.cat);
      k.kind = *kind;
      k.start = e.ts;
      k.duration = e.dur;
      k.stream = e.stream;
      k.device = e.device;
      k.correlation = e.correlation;
      out_.kernels.push_back(k);
    } else if ((e.cat == "cuda_runtime" || e.cat == "cuda_driver") && e.correlation >= 0 &&
               e.has_ts) {
      out_.launches.push_back({e.correlation, e.pid, e.tid, e.ts});
    } else if (complete && e.cat == "user_annotation") {
      out_.ranges.push_back({intern(std::move(e.name)), e.pid, e.tid, e.ts, e.dur});
    } else if (complete && e.cat == "cpu_op" && !e.dims.empty()) {
      if (const GemmOp op = gemm_op(e.name); op != GemmOp::none) {
        ShapedGemm g;
        g.pid = e.pid;
        g.tid = e.tid;
        g.start = e.ts;
        g.duration = e.dur;
        if (gemm_shape(op, e.dims, g)) {
          const std::size_t a = op == GemmOp::addmm || op == GemmOp::baddbmm ? 1 : 0;
          if (e.input_types.size() > a) g.dtype = dtype_of(e.input_types[a]);
          out_.gemms.push_back(std::move(g));
        }
      }
    }
  }

  ProfilerTrace& out_;
  std::vector<Frame> stack_;
  std::string key_;
  Event event_;
  std::int64_t device_id_ = -1;
  std::string device_name_;
  bool saw_events_ = false;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  std::vector<std::optional<KernelKind>> kinds_;
  std::unordered_map<std::string, std::int64_t> text_ids_;
  std::size_t error_position_ = 0;
  std::string error_;
};

// The checks every parsed trace gets, whatever it was read from.
void check_parsed(const TraceSax& sax, bool parsed, const ProfilerTrace& trace) {
  if (!parsed) {
    throw core::ConfigError(
        trace.source, fmt::format("byte {}", sax.error_position()),
        fmt::format("not a complete JSON trace (cut short or corrupt): {}", sax.error()));
  }
  if (!sax.saw_events()) {
    throw core::ConfigError(trace.source, "traceEvents",
                            "missing: not a Chrome-format profiler trace (torch.profiler's "
                            "export_chrome_trace writes an object with a traceEvents array)");
  }
  if (trace.kernels.empty()) {
    throw core::ConfigError(
        trace.source, "traceEvents",
        fmt::format("no GPU kernels among its {} events (cat 'kernel'): profile with "
                    "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]",
                    trace.events));
  }
}

// A file read through zlib's gz reader in blocks: gzip files are decompressed, any other file
// is passed through as it is. Reports progress in bytes of the file read.
class GzSource {
 public:
  GzSource(const std::filesystem::path& path, const ReadProgress& progress)
      : source_(path.string()), progress_(progress) {
    std::error_code ec;
    size_ = std::filesystem::file_size(path, ec);
    if (ec || std::filesystem::is_directory(path, ec)) {
      throw core::ConfigError(source_, "file", "cannot be read: no such file");
    }
    file_.reset(gzopen(source_.c_str(), "rb"));
    if (file_ == nullptr) throw core::ConfigError(source_, "file", "cannot be opened");
    gzbuffer(file_.get(), 1 << 18);
    fill();
  }
  GzSource(const GzSource&) = delete;
  GzSource& operator=(const GzSource&) = delete;

  bool exhausted() const { return pos_ == end_; }
  const char& current() const { return buffer_[pos_]; }
  void advance() {
    if (++pos_ == end_) fill();
  }

 private:
  static constexpr std::uint64_t kProgressStep = std::uint64_t{64} << 20;

  void fill() {
    const int n = gzread(file_.get(), buffer_.data(), static_cast<unsigned>(buffer_.size()));
    int code = Z_OK;
    const char* why = gzerror(file_.get(), &code);
    if (n < 0 || (n == 0 && code != Z_OK)) {
      throw core::ConfigError(source_, "file",
                              fmt::format("corrupt or cut short compressed data: {}",
                                          why != nullptr ? why : "gzread failed"));
    }
    pos_ = 0;
    end_ = static_cast<std::size_t>(n);
    if (progress_) {
      const auto read = static_cast<std::uint64_t>(std::max<z_off_t>(gzoffset(file_.get()), 0));
      if (read >= next_report_) {
        progress_(read, size_);
        next_report_ = read + kProgressStep;
      }
    }
  }

  // Closed however the object ends, also when the constructor's first block throws.
  struct GzClose {
    void operator()(gzFile file) const { gzclose(file); }
  };

  std::string source_;
  ReadProgress progress_;
  std::unique_ptr<gzFile_s, GzClose> file_;
  std::uint64_t size_ = 0;
  std::uint64_t next_report_ = kProgressStep;
  std::array<char, 1 << 16> buffer_{};
  std::size_t pos_ = 0, end_ = 0;
};

// The characters of a GzSource as the input iterator nlohmann's parser reads (a default one is
// the end): a plain buffer access per character rather than a stream's virtual calls.
class GzIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  GzIterator() = default;
  explicit GzIterator(GzSource& source) : source_(&source) {}
  reference operator*() const { return source_->current(); }
  GzIterator& operator++() {
    source_->advance();
    return *this;
  }
  bool operator==(const GzIterator& o) const { return at_end() == o.at_end(); }

 private:
  bool at_end() const { return source_ == nullptr || source_->exhausted(); }
  GzSource* source_ = nullptr;
};

}  // namespace

std::string ProfilerTrace::gpu() const {
  std::map<std::int64_t, std::size_t> per_device;
  for (const TraceKernel& k : kernels)
    ++per_device[k.device];
  std::int64_t busiest = -1;
  std::size_t most = 0;
  for (const auto& [device, count] : per_device) {
    if (count > most) {
      busiest = device;
      most = count;
    }
  }
  for (const auto& [id, name] : devices) {
    if (id == busiest) return name;
  }
  return devices.empty() ? std::string() : devices.front().second;
}

double ProfilerTrace::kernel_time() const {
  double total = 0;
  for (const TraceKernel& k : kernels)
    total += k.duration;
  return total;
}

ProfilerTrace read_profiler_trace(const std::filesystem::path& path, const ReadProgress& progress) {
  ProfilerTrace trace;
  trace.source = path.string();
  GzSource source(path, progress);
  TraceSax sax(trace);
  const bool parsed = json::sax_parse(GzIterator(source), GzIterator(), &sax);
  check_parsed(sax, parsed, trace);
  return trace;
}

ProfilerTrace parse_profiler_trace(std::string_view text, const std::string& source) {
  ProfilerTrace trace;
  trace.source = source;
  TraceSax sax(trace);
  const bool parsed = json::sax_parse(text.begin(), text.end(), &sax);
  check_parsed(sax, parsed, trace);
  return trace;
}

}  // namespace pipesim::calibrate
