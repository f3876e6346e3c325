#pragma once
// A shipped profile's text, and what parsing it says after one edit: the profile tests' way of
// writing a bad document as "this shipped file, with one value changed".

#include <cstdlib>
#include <fstream>
#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::hardware::test_support {

//! The source tree (PIPESIM_SOURCE_DIR, set by pipesim_add_test), or ".".
inline std::string source_dir() {
  const char* root = std::getenv("PIPESIM_SOURCE_DIR");
  return root ? root : ".";
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

//! hardware/<name>.yaml of the source tree.
inline std::string shipped_text(const std::string& name) {
  return read_text(source_dir() + "/hardware/" + name + ".yaml");
}

//! The error parse_profile gives for `text` with its first `from` replaced by `to`, read as
//! `source` ("accepted" when it loads).
inline std::string error_after_edit(std::string text, const std::string& from,
                                    const std::string& to, const std::string& source) {
  const auto at = text.find(from);
  if (at == std::string::npos) return "test bug: '" + from + "' not in the profile";
  text.replace(at, from.size(), to);
  try {
    parse_profile(text, source);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace pipesim::hardware::test_support
