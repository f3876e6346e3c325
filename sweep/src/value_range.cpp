#include "pipesim/sweep/value_range.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "pipesim/core/config_error.hpp"

namespace pipesim::sweep {
namespace {

struct Context {
  std::string_view source;
  std::string_view field;
  [[noreturn]] void fail(const std::string& problem) const {
    throw core::ConfigError(source, field, problem);
  }
};

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find(sep, begin);
    parts.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

double number(const Context& ctx, std::string_view range, std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    ctx.fail(
        fmt::format("range '{}': '{}' is not a number (ranges are start:end, "
                    "start:end:+step or start:end:xfactor)",
                    range, text));
  }
  return value;
}

std::string format_value(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

void expand_range(const Context& ctx, std::string_view item, std::vector<std::string>& out) {
  const auto parts = split(item, ':');
  if (parts.size() > 3) {
    ctx.fail(
        fmt::format("range '{}' has more than three parts (start:end[:+step|:xfactor])", item));
  }
  const double start = number(ctx, item, trim(parts[0]));
  const double end = number(ctx, item, trim(parts[1]));
  if (start > end)
    ctx.fail(fmt::format("range '{}' is empty: start {} > end {}", item, start, end));
  bool geometric = false;
  double step = 1.0;
  if (parts.size() == 3) {
    const std::string_view s = trim(parts[2]);
    if (s.empty() || (s.front() != '+' && s.front() != 'x' && s.front() != '*')) {
      ctx.fail(fmt::format("range '{}': step '{}' must be +STEP or xFACTOR", item, s));
    }
    geometric = s.front() != '+';
    step = number(ctx, item, s.substr(1));
    if (geometric && !(step > 1.0)) {
      ctx.fail(fmt::format("range '{}': factor must be > 1, got {}", item, step));
    }
    if (!geometric && !(step > 0.0)) {
      ctx.fail(fmt::format("range '{}': step must be > 0, got {}", item, step));
    }
    if (geometric && !(start > 0.0)) {
      ctx.fail(fmt::format("range '{}': a geometric range must start > 0, got {}", item, start));
    }
  }
  // Values are computed from the start, not accumulated, so 0:1:+0.1 ends exactly at 1.
  const double tolerance = 1e-9 * std::max(1.0, std::abs(end));
  for (size_t i = 0;; ++i) {
    const double v = geometric ? start * std::pow(step, static_cast<double>(i))
                               : start + step * static_cast<double>(i);
    if (v > end + tolerance) break;
    if (out.size() >= kMaxValuesPerOption) {
      ctx.fail(fmt::format("range '{}' has more than {} values", item, kMaxValuesPerOption));
    }
    out.push_back(format_value(std::abs(v - end) <= tolerance ? end : v));
  }
}

}  // namespace

std::vector<std::string> expand_values(std::string_view source, std::string_view field,
                                       std::string_view text) {
  const Context ctx{source, field};
  std::vector<std::string> values;
  for (std::string_view raw : split(text, ',')) {
    const std::string_view item = trim(raw);
    if (item.empty()) {
      ctx.fail(fmt::format("empty item in list '{}' (write values as a,b,c)", text));
    }
    if (item.find(':') == std::string_view::npos) {
      if (values.size() >= kMaxValuesPerOption) {
        ctx.fail(fmt::format("list has more than {} values", kMaxValuesPerOption));
      }
      values.emplace_back(item);
    } else {
      expand_range(ctx, item, values);
    }
  }
  return values;
}

std::vector<std::string> expand_option_values(std::string_view option, std::string_view text) {
  try {
    return expand_values("", option, text);
  } catch (const core::ConfigError& e) {
    throw core::ConfigError::option(option, e.problem());
  }
}

}  // namespace pipesim::sweep
