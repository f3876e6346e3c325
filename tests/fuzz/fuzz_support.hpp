#pragma once
// libFuzzer harness support: each harness feeds the fuzzer's bytes to one parser. A
// core::ConfigError (or its BudgetError) is the parser saying "bad input" — the contract; any
// other exception escapes and libFuzzer reports it as a crash, as it does for ASan/UBSan
// findings, aborts and timeouts.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipesim/core/config_error.hpp"

namespace pipesim::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

template <class Fn>
void expect_only_config_errors(Fn&& fn) {
  try {
    fn();
  } catch (const core::ConfigError&) {
  }
}

}  // namespace pipesim::fuzz
