#pragma once
// User errors: bad input named by where it came from, the field and the allowed range.
// Raised at the boundary (CLI, YAML, CSV); the CLI prints what() on one line, exits 2.
// Control characters in any part are escaped (core::printable), so what() is always one line.

#include <stdexcept>
#include <string>
#include <string_view>

namespace pipesim::core {

class ConfigError : public std::runtime_error {
 public:
  //! `source` is a file path or "command line"; `field` the key or flag; `problem` says what is
  //! wrong and what is allowed, e.g. "must be in [1, 4096], got 0".
  ConfigError(std::string_view source, std::string_view field, std::string_view problem);
  //! A message that already names its source.
  explicit ConfigError(const std::string& message);
};

}  // namespace pipesim::core
