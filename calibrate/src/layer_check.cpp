#include "pipesim/calibrate/layer_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "csv_cells.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/cost/kernel_time.hpp"

namespace pipesim::calibrate {
namespace {

// |predicted − measured| / measured above this is a unit slip, not a model error.
constexpr double kMaxRelativeError = 100.0;

}  // namespace

std::string direction_name(LayerDirection d) {
  return d == LayerDirection::forward ? "forward" : "backward";
}

double predict_kernel_seconds(const ComputeParameters& p, const LayerKernel& kernel,
                              const std::string& dtype) {
  return cost::kernel_time(kernel, p, dtype);
}

double predict_layer_seconds(const ComputeParameters& p, const LayerShape& shape,
                             LayerDirection direction, const std::string& dtype) {
  return cost::kernel_time(layer_kernels(shape, direction), p, dtype);
}

std::vector<LayerMeasurement> parse_layer_times(std::string_view text, const std::string& source) {
  text = core::strip_bom(text);
  constexpr std::array<std::string_view, 8> kColumns = {"b",     "s",         "h",      "heads",
                                                        "dtype", "direction", "kernel", "seconds"};
  std::vector<LayerMeasurement> out;
  std::vector<std::string_view> header;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string_view line =
        csv::trim(text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const csv::RowContext ctx{source, line_no};
    if (header.empty()) {
      header = csv::split(line);
      for (size_t c = 0; c < kColumns.size(); ++c) {
        if (c >= header.size() || header[c] != kColumns[c]) {
          throw core::ConfigError(
              source, fmt::format("line {}, header", line_no),
              fmt::format("missing column '{}' at position {} (the header must "
                          "start with b,s,h,heads,dtype,direction,kernel,seconds)",
                          kColumns[c], c + 1));
        }
      }
      continue;
    }
    const auto cells = csv::split(line);
    if (cells.size() != header.size()) {
      ctx.fail(cells.size() < header.size() ? header[cells.size()] : "(extra)",
               fmt::format("row has {} cells, the header has {}", cells.size(), header.size()));
    }
    LayerMeasurement m;
    m.line = line_no;
    m.shape.batch = csv::parse_count(ctx, "b", cells[0]);
    m.shape.seq = csv::parse_count(ctx, "s", cells[1]);
    m.shape.hidden = csv::parse_count(ctx, "h", cells[2]);
    m.shape.heads = csv::parse_count(ctx, "heads", cells[3]);
    if (m.shape.batch < 1 || m.shape.seq < 1 || m.shape.heads < 1 ||
        m.shape.hidden % m.shape.heads != 0) {
      ctx.fail("heads", "b, s, heads must be >= 1 and heads must divide h");
    }
    // One GPU's layer: bounds that keep every kernel's FLOPs and bytes (b·heads·s² attention
    // scores, b·s·4h activations) exact in 64-bit integers (fuzzing found s = 2·10^14).
    const auto check = [&](std::string_view column, std::int64_t v, std::int64_t hi) {
      if (v > hi) ctx.fail(column, fmt::format("must be at most {}, got {}", hi, v));
    };
    check("b", m.shape.batch, std::int64_t{1} << 16);
    check("s", m.shape.seq, std::int64_t{1} << 20);
    check("h", m.shape.hidden, std::int64_t{1} << 18);
    // In that order, each product fits: b·s ≤ 2^36, then b·s·s·heads ≤ 2^24·2^20·2^18.
    const std::int64_t tokens = m.shape.batch * m.shape.seq;
    if (tokens > (std::int64_t{1} << 24) ||
        tokens * m.shape.seq * m.shape.heads > (std::int64_t{1} << 52)) {
      ctx.fail("s", fmt::format("b·heads·s² = {}·{}·{}² attention scores or b·s tokens are beyond "
                                "one GPU's layer (at most 2^52 scores, 2^24 tokens)",
                                m.shape.batch, m.shape.heads, m.shape.seq));
    }
    m.dtype = std::string(cells[4]);
    m.shape.elem_bytes = m.dtype == "fp32" ? 4 : 2;
    if (cells[5] == "forward") {
      m.direction = LayerDirection::forward;
    } else if (cells[5] == "backward") {
      m.direction = LayerDirection::backward;
    } else {
      ctx.fail("direction", fmt::format("must be forward or backward, got '{}'", cells[5]));
    }
    m.kernel = std::string(cells[6]);
    m.seconds = csv::parse_seconds(ctx, cells[7]);
    out.push_back(std::move(m));
  }
  if (out.empty()) throw core::ConfigError(source, "line 1", "no layer measurements");
  return out;
}

std::vector<LayerMeasurement> read_layer_times(const std::filesystem::path& path) {
  return parse_layer_times(core::read_text_file(path), path.string());
}

LayerCheck check_layers(const ComputeParameters& p, const std::vector<LayerMeasurement>& measured,
                        bool include_kernels) {
  LayerCheck check;
  for (const LayerMeasurement& m : measured) {
    LayerComparison c;
    c.measured = m;
    if (m.kernel == "total") {
      c.predicted = predict_layer_seconds(p, m.shape, m.direction, m.dtype);
    } else if (include_kernels) {
      const auto kernels = layer_kernels(m.shape, m.direction);
      const auto it = std::find_if(kernels.begin(), kernels.end(),
                                   [&](const LayerKernel& k) { return k.name == m.kernel; });
      if (it == kernels.end()) {
        throw core::ConfigError("layer times", fmt::format("line {}, column 'kernel'", m.line),
                                fmt::format("unknown kernel '{}'", m.kernel));
      }
      c.predicted = predict_kernel_seconds(p, *it, m.dtype);
    } else {
      continue;
    }
    c.relative_error = (c.predicted - m.seconds) / m.seconds;
    // A prediction 1000x off (or not finite) is not an error to report as a percentage: the
    // shape, the dtype's peak or the time column is wrong by a unit.
    if (!std::isfinite(c.relative_error) || std::abs(c.relative_error) > kMaxRelativeError) {
      throw core::ConfigError(
          "layer times", fmt::format("line {}", m.line),
          fmt::format("predicted {:.3g} s against measured {:.3g} s: more than {}x off; check "
                      "the units of the seconds column and the profile",
                      c.predicted, m.seconds, kMaxRelativeError));
    }
    check.rows.push_back(std::move(c));
  }
  std::vector<double> abs_errors;
  for (const auto& c : check.rows) {
    if (c.measured.kernel == "total") abs_errors.push_back(std::abs(c.relative_error));
  }
  if (!abs_errors.empty()) {
    std::sort(abs_errors.begin(), abs_errors.end());
    const size_t h = abs_errors.size() / 2;
    check.median_abs_error =
        abs_errors.size() % 2 ? abs_errors[h] : 0.5 * (abs_errors[h - 1] + abs_errors[h]);
  }
  return check;
}

}  // namespace pipesim::calibrate
