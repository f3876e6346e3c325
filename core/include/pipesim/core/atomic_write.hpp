#pragma once
// Every output file goes through here: written to a temporary file beside the target, flushed,
// then renamed over it, so an interrupted run never leaves a half-written CSV or JSON.

#include <filesystem>
#include <string_view>

namespace pipesim::core {

//! Writes `content` to `path` atomically. Throws ConfigError naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace pipesim::core
