#pragma once
// Cell-level helpers shared by the two CSV readers of calibrate/ (samples, layer times): split a
// line, and parse a cell or fail with a core::ConfigError naming file, line and column.
// Private to the library.

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/core/config_error.hpp"

namespace pipesim::calibrate::csv {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

inline std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> cells;
  size_t start = 0;
  for (;;) {
    const size_t comma = line.find(',', start);
    cells.push_back(trim(
        line.substr(start, comma == std::string_view::npos ? line.size() - start : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

struct RowContext {
  const std::string& source;
  int line;
  [[noreturn]] void fail(std::string_view column, const std::string& problem) const {
    throw core::ConfigError(source, fmt::format("line {}, column '{}'", line, column), problem);
  }
};

inline std::int64_t parse_count(const RowContext& ctx, std::string_view column,
                                std::string_view cell) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size()) {
    ctx.fail(column, fmt::format("must be a non-negative integer, got '{}'", cell));
  }
  if (value < 0) ctx.fail(column, fmt::format("must be a non-negative integer, got {}", value));
  return value;
}

inline double parse_real(const RowContext& ctx, std::string_view column, std::string_view cell) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size() ||
      !std::isfinite(value)) {
    ctx.fail(column, fmt::format("must be a finite number, got '{}'", cell));
  }
  return value;
}

//! Plausible times of one measured operation: a kernel cannot run in under a nanosecond, and an
//! hour per operation is a unit slip (ms or µs written as s goes the other way).
inline constexpr double kMinSeconds = 1e-9;
inline constexpr double kMaxSeconds = 3600.0;
//! Bytes moved by one benchmark operation (1 PB is far beyond any GPU's memory).
inline constexpr double kMaxBytes = 1e15;

inline double parse_seconds(const RowContext& ctx, std::string_view cell,
                            std::string_view also_allowed = {}) {
  const double t = parse_real(ctx, "seconds", cell);
  if (!(t >= kMinSeconds && t <= kMaxSeconds)) {
    ctx.fail("seconds", fmt::format("must be in [{}, {}]{}, got {}", kMinSeconds, kMaxSeconds,
                                    also_allowed, cell));
  }
  return t;
}

}  // namespace pipesim::calibrate::csv
