#include "pipesim/sweep/part_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <set>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::sweep {
namespace {

constexpr std::string_view kMagic = "# pipesim-part";
// A sweep row is a few hundred bytes; a longer one means the file is not a part (a binary file
// without line breaks would otherwise be read whole).
constexpr size_t kMaxRowBytes = size_t{1} << 20;

std::string columns_line() {
  std::vector<std::string> columns = scenario::csv_columns();
  columns.insert(columns.begin(), "grid_index");
  return report::csv_line(columns);
}

std::optional<size_t> parse_index(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The fields of one CSV record (pipesim's quoting, report/csv.hpp), without its line end.
std::vector<std::string> split_fields(std::string_view record) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < record.size(); ++i) {
    const char c = record[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < record.size() && record[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

// `key=value` → value, or nullopt when the token is not that key's.
std::optional<std::string_view> value_of(std::string_view token, std::string_view key) {
  if (token.size() <= key.size() || !token.starts_with(key) || token[key.size()] != '=') {
    return std::nullopt;
  }
  return token.substr(key.size() + 1);
}

}  // namespace

std::string spec_fingerprint(const SweepGrid& grid) {
  // The text hashed: one line per option, so two specs share a fingerprint only when every
  // option, value and given flag matches (a separator byte no value can hold splits the values).
  const std::set<std::string> given(grid.given().begin(), grid.given().end());
  std::string text = fmt::format("pipesim-sweep-spec 1\npipesim {}\n", core::version);
  const auto& options = scenario::options();
  for (size_t i = 0; i < options.size(); ++i) {
    text += options[i].name();
    text += given.contains(options[i].name()) ? "\tgiven\t" : "\tdefault\t";
    for (const std::string& v : grid.values()[i])
      text += v + '\x1f';
    text += '\n';
  }
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", hash);
}

PartHeader part_header(const SweepGrid& grid, Shard shard) {
  return {std::string(core::version), spec_fingerprint(grid), grid.size(), shard};
}

std::string part_preamble(const PartHeader& h) {
  return fmt::format("{} {} pipesim={} spec={} points={} shard={}/{}\n", kMagic, kPartFormat,
                     h.version, h.spec, h.points, h.shard.index, h.shard.count) +
         columns_line();
}

std::string part_line(size_t index, const scenario::SweepRow& row) {
  return fmt::format("{},", index) + report::csv_line(report::row_fields(row));
}

PartReader::PartReader(const std::filesystem::path& path)
    : path_(path.string()), in_(path, std::ios::binary) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw core::ConfigError(path_, "file", "is a directory, not a part file");
  }
  if (!in_) {
    throw core::ConfigError(path_, "file", fmt::format("cannot open: {}", std::strerror(errno)));
  }
  std::string first;
  bool ended = false;
  if (!read_line(first, ended) || !ended) fail(1, "no header line: not a pipesim part file");
  complete_bytes_ = first.size() + 1;
  if (first.starts_with("\xEF\xBB\xBF")) first.erase(0, 3);  // an editor's byte order mark
  if (!first.starts_with(kMagic)) {
    fail(1, fmt::format("not a pipesim part file (the first line must start with '{} {}')", kMagic,
                        kPartFormat));
  }
  std::vector<std::string_view> tokens;
  for (size_t at = 0; at <= first.size();) {
    const size_t space = std::min(first.find(' ', at), first.size());
    tokens.push_back(std::string_view(first).substr(at, space - at));
    at = space + 1;
  }
  if (tokens.size() < 3 || tokens[2] != std::to_string(kPartFormat)) {
    fail(1, fmt::format("part format '{}'; this pipesim reads format {}",
                        tokens.size() < 3 ? "" : tokens[2], kPartFormat));
  }
  const char* const expected =
      "must be '# pipesim-part 1 pipesim=VERSION spec=HEX points=N shard=i/K'";
  if (tokens.size() != 7) fail(1, expected);
  const auto version = value_of(tokens[3], "pipesim");
  const auto spec = value_of(tokens[4], "spec");
  const auto points = value_of(tokens[5], "points");
  const auto shard = value_of(tokens[6], "shard");
  if (!version || !spec || !points || !shard) fail(1, expected);
  if (spec->size() != 16 || !std::all_of(spec->begin(), spec->end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    fail(1, fmt::format("spec: must be 16 hex digits, got '{}'", *spec));
  }
  const auto n = parse_index(*points);
  if (!n || *n > kMaxSweepPoints) {
    fail(1, fmt::format("points: must be a whole number in [0, {}], got '{}'", kMaxSweepPoints,
                        *points));
  }
  header_ = {std::string(*version), std::string(*spec), *n,
             parse_shard(path_, "line 1: shard", *shard)};
  if (header_.version != core::version) {
    fail(1, fmt::format("written by pipesim {}, this is pipesim {}: parts and journals are read "
                        "by the version that wrote them",
                        header_.version, core::version));
  }
  std::string second;
  if (!read_line(second, ended) || !ended) fail(2, "no column line (truncated)");
  if (second + '\n' != columns_line()) {
    fail(2, "the columns are not grid_index and this pipesim's sweep columns");
  }
  complete_bytes_ += second.size() + 1;
  line_ = 3;
  width_ = scenario::csv_columns().size() + 1;
}

bool PartReader::read_line(std::string& text, bool& ended) {
  text.clear();
  ended = false;
  std::streambuf& buf = *in_.rdbuf();
  while (true) {
    const auto c = buf.sbumpc();
    if (c == std::char_traits<char>::eof()) return !text.empty();
    if (c == '\n') {
      ended = true;
      return true;
    }
    if (text.size() >= kMaxRowBytes) {
      fail(line_, fmt::format("longer than {} bytes: not a pipesim part file", kMaxRowBytes));
    }
    text += static_cast<char>(c);
  }
}

bool PartReader::next(PartRow& row, bool tail_ok) {
  const size_t start = line_;
  std::string record, text;
  bool ended = false;
  bool quoted = false;  // inside a quoted field that goes on past a line break
  size_t bytes = 0;
  while (true) {
    if (!read_line(text, ended)) {
      if (record.empty() && !quoted) return false;
      ended = false;  // the file ended inside a quoted field
    }
    bytes += text.size() + (ended ? 1 : 0);
    record += text;
    quoted ^= std::count(text.begin(), text.end(), '"') % 2 == 1;
    if (!ended) {
      if (tail_ok) {
        half_line_ = true;
        return false;
      }
      fail(start, "the last row has no line end: the file is truncated");
    }
    ++line_;
    if (!quoted) break;
    if (record.size() >= kMaxRowBytes) {
      fail(start, fmt::format("longer than {} bytes: not a pipesim part file", kMaxRowBytes));
    }
    record += '\n';
  }
  if (record.empty()) fail(start, "empty line: not a part row");
  row.fields = split_fields(record);
  row.line = start;
  if (row.fields.size() != width_) {
    fail(start, fmt::format("has {} fields, the header has {}", row.fields.size(), width_));
  }
  const auto index = parse_index(row.fields.front());
  if (!index) {
    fail(start, fmt::format("grid_index: must be a whole number, got '{}'", row.fields.front()));
  }
  row.index = *index;
  row.fields.erase(row.fields.begin());
  complete_bytes_ += bytes;
  return true;
}

void PartReader::fail(size_t line, std::string_view problem) const {
  throw core::ConfigError(path_, fmt::format("line {}", line), problem);
}

}  // namespace pipesim::sweep
