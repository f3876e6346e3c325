#include "pipesim/calibrate/samples.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "csv_cells.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"

namespace pipesim::calibrate {
namespace {

constexpr std::array<std::string_view, 8> kColumns = {"benchmark", "dtype", "m",    "n",
                                                      "k",         "bytes", "gpus", "seconds"};
using csv::parse_count;
using csv::parse_real;
using csv::RowContext;
using csv::split;
using csv::trim;

}  // namespace

std::vector<Sample> SampleSet::measured(std::string_view benchmark, std::string_view dtype) const {
  std::vector<Sample> out;
  for (const Sample& s : rows) {
    if (s.benchmark == benchmark && s.seconds && (dtype.empty() || s.dtype == dtype)) {
      out.push_back(s);
    }
  }
  return out;
}

std::string SampleSet::meta(const std::string& key, const std::string& fallback) const {
  const auto it = metadata.find(key);
  return it == metadata.end() || it->second.empty() ? fallback : it->second;
}

SampleSet parse_samples(std::string_view text, const std::string& source) {
  text = core::strip_bom(text);
  SampleSet set;
  set.source = source;
  std::vector<std::string_view> header;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string_view raw =
        text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == '#') {  // provenance: "# key: value"
      const std::string_view body = trim(line.substr(1));
      const size_t colon = body.find(':');
      if (colon != std::string_view::npos) {
        set.metadata[std::string(trim(body.substr(0, colon)))] =
            std::string(trim(body.substr(colon + 1)));
      }
      continue;
    }
    const RowContext ctx{source, line_no};
    if (header.empty()) {
      header = split(line);
      for (size_t c = 0; c < kColumns.size(); ++c) {
        if (c >= header.size() || header[c] != kColumns[c]) {
          throw core::ConfigError(
              source, fmt::format("line {}, header", line_no),
              fmt::format("missing column '{}' at position {} (the header must start with "
                          "benchmark,dtype,m,n,k,bytes,gpus,seconds)",
                          kColumns[c], c + 1));
        }
      }
      continue;
    }
    const std::vector<std::string_view> cells = split(line);
    const auto column = [&](std::string_view name) -> std::optional<std::size_t> {
      const auto it = std::find(header.begin() + kColumns.size(), header.end(), name);
      if (it == header.end()) return std::nullopt;
      return static_cast<std::size_t>(it - header.begin());
    };
    if (cells.size() != header.size()) {
      ctx.fail(cells.size() < header.size() ? header[cells.size()] : "(extra)",
               fmt::format("row has {} cells, the header has {}", cells.size(), header.size()));
    }
    Sample s;
    s.line = line_no;
    s.benchmark = std::string(cells[0]);
    if (s.benchmark.empty()) ctx.fail("benchmark", "must not be empty");
    s.dtype = std::string(cells[1]);
    s.m = parse_count(ctx, "m", cells[2]);
    s.n = parse_count(ctx, "n", cells[3]);
    s.k = parse_count(ctx, "k", cells[4]);
    s.bytes = parse_real(ctx, "bytes", cells[5]);
    if (!(s.bytes >= 0 && s.bytes <= csv::kMaxBytes)) {
      ctx.fail("bytes", fmt::format("must be in [0, {:g}], got {}", csv::kMaxBytes, cells[5]));
    }
    const std::int64_t gpus = parse_count(ctx, "gpus", cells[6]);
    if (gpus < 1 || gpus > 1'000'000)
      ctx.fail("gpus", fmt::format("must be in [1, 1000000], got {}", gpus));
    s.gpus = static_cast<int>(gpus);
    if (cells[7] != "NA") {
      const double t = csv::parse_seconds(ctx, cells[7], " (or NA when not measurable)");
      s.seconds = t;
    }
    if (const auto c = column("flops"); c && !cells[*c].empty()) {
      const double flops = parse_real(ctx, "flops", cells[*c]);
      if (!(flops > 0 && flops <= 1e21)) {
        ctx.fail("flops", fmt::format("must be in (0, 1e21], got {}", cells[*c]));
      }
      s.flops = flops;
    }
    if (const auto c = column("source")) s.source = std::string(cells[*c]);
    set.rows.push_back(std::move(s));
  }
  if (header.empty()) {
    throw core::ConfigError(source, "line 1",
                            "empty samples file: expected the header "
                            "benchmark,dtype,m,n,k,bytes,gpus,seconds");
  }
  if (set.rows.empty()) {
    throw core::ConfigError(source, fmt::format("line {}", line_no),
                            "no sample rows after the header");
  }
  return set;
}

SampleSet read_samples(const std::filesystem::path& path) {
  return parse_samples(core::read_text_file(path), path.string());
}

std::string samples_to_csv(const SampleSet& samples) {
  std::string out;
  for (const auto& [key, value] : samples.metadata)
    out += fmt::format("# {}: {}\n", key, value);
  out += "benchmark,dtype,m,n,k,bytes,gpus,seconds,flops,source\n";
  for (const Sample& s : samples.rows) {
    out += fmt::format("{},{},{},{},{},{:.17g},{},{},{},{}\n", s.benchmark, s.dtype, s.m, s.n, s.k,
                       s.bytes, s.gpus, s.seconds ? fmt::format("{:.17g}", *s.seconds) : "NA",
                       s.flops ? fmt::format("{:.17g}", *s.flops) : "", s.source);
  }
  return out;
}

}  // namespace pipesim::calibrate
