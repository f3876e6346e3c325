#include "pipesim/sweep/sweep_shard.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <string>

#include "pipesim/core/config_error.hpp"

namespace pipesim::sweep {
namespace {

// Decimal digits only (from_chars takes no sign, space or hex prefix for an unsigned type).
std::optional<size_t> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Shard parse_shard(std::string_view source, std::string_view field, std::string_view text) {
  const size_t slash = text.find('/');
  const auto i = parse_count(text.substr(0, slash));
  const auto k =
      slash == std::string_view::npos ? std::nullopt : parse_count(text.substr(slash + 1));
  if (!i || !k) {
    throw core::ConfigError(
        source, field,
        fmt::format("must be i/K, shard i of K with 0 <= i < K (e.g. 0/4), got '{}'", text));
  }
  if (*k < 1 || *k > kMaxShards) {
    throw core::ConfigError(source, field,
                            fmt::format("K must be in [1, {}], got '{}'", kMaxShards, text));
  }
  if (*i >= *k) {
    throw core::ConfigError(
        source, field, fmt::format("i must be in [0, {}] for K = {}, got '{}'", *k - 1, *k, text));
  }
  return {*i, *k};
}

}  // namespace pipesim::sweep
