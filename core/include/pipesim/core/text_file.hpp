#pragma once
// Every input file (YAML, schedule text, CSV) is read through here, so every reader follows the
// same rules: a directory, a missing or unreadable file and a read error are ConfigErrors naming
// the path; a leading UTF-8 byte order mark is accepted and dropped (editors on Windows write
// one); files above kMaxInputBytes are refused before they are read.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace pipesim::core {

//! Inputs are hand-written or tool-written text: 256 MiB is far above any real one.
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

//! `text` without a leading UTF-8 BOM (EF BB BF).
std::string_view strip_bom(std::string_view text);

//! The whole file, BOM stripped. Throws ConfigError(path, "file", ...) when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace pipesim::core
