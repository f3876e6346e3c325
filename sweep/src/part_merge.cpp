#include "pipesim/sweep/part_merge.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>

#include "pipesim/core/config_error.hpp"
#include "pipesim/report/csv.hpp"

namespace pipesim::sweep {
namespace {

// The row of `reader`'s position `position`, which must hold grid index `index`.
PartRow expect_row(PartReader& reader, size_t position, size_t index) {
  const PartHeader& h = reader.header();
  PartRow row;
  if (!reader.next(row)) {
    reader.fail(reader.line(),
                fmt::format("ends after {} of the shard's {} rows: grid index {} is missing "
                            "(truncated?)",
                            position, h.shard.size(h.points), index));
  }
  if (row.index > index) {
    reader.fail(row.line, fmt::format("grid index {} where {} was expected: rows are missing",
                                      row.index, index));
  }
  if (row.index < index) {
    reader.fail(row.line, fmt::format("grid index {} again or out of order where {} was "
                                      "expected: a duplicate row",
                                      row.index, index));
  }
  return row;
}

// After the shard's last row: nothing may follow.
void expect_end(PartReader& reader) {
  PartRow row;
  if (!reader.next(row)) return;
  const PartHeader& h = reader.header();
  reader.fail(row.line,
              row.index >= h.points
                  ? fmt::format("grid index {} is beyond the grid's {} points", row.index, h.points)
                  : fmt::format("grid index {} again after the shard's last row: a "
                                "duplicate row",
                                row.index));
}

}  // namespace

void merge_parts(const std::vector<std::filesystem::path>& parts, const TextSink& write) {
  if (parts.empty()) throw core::ConfigError("merge", "parts", "no part file given");
  std::vector<std::unique_ptr<PartReader>> readers;
  std::map<size_t, size_t> by_shard;  // shard index → reader; a map: K may far exceed the parts
  for (const auto& path : parts) {
    readers.push_back(std::make_unique<PartReader>(path));
    const PartReader& r = *readers.back();
    const PartReader& first = *readers.front();
    const PartHeader& h = r.header();
    if (h.spec != first.header().spec || h.points != first.header().points) {
      r.fail(1, fmt::format("from another sweep than {} (spec {} with {} points, not {} with {})",
                            first.path(), h.spec, h.points, first.header().spec,
                            first.header().points));
    }
    if (h.shard.count != first.header().shard.count) {
      r.fail(1, fmt::format("shard {}/{}, but {} is one of {} shards", h.shard.index, h.shard.count,
                            first.path(), first.header().shard.count));
    }
    const auto [at, fresh] = by_shard.emplace(h.shard.index, readers.size() - 1);
    if (!fresh) {
      r.fail(1, fmt::format("shard {}/{} again: {} holds it too", h.shard.index, h.shard.count,
                            readers[at->second]->path()));
    }
  }
  const PartHeader& spec = readers.front()->header();
  const size_t k = spec.shard.count;
  for (size_t s = 0; s < k && by_shard.size() < k; ++s) {
    if (!by_shard.contains(s)) {
      throw core::ConfigError(
          "merge", fmt::format("shard {}/{}", s, k),
          fmt::format("missing: the {} part files given hold {} of the {} shards", parts.size(),
                      by_shard.size(), k));
    }
  }
  write(report::csv_line(scenario::csv_columns()));
  std::vector<PartReader*> of_shard(by_shard.size());
  for (const auto& [s, r] : by_shard)
    of_shard[s] = readers[r].get();
  for (size_t j = 0; j < spec.points; ++j) {
    write(report::csv_line(expect_row(*of_shard[j % k], j / k, j).fields));
  }
  for (PartReader* r : of_shard)
    expect_end(*r);
}

void copy_part(const std::filesystem::path& path, const PartHeader& expected,
               const TextSink& write) {
  PartReader reader(path);
  if (reader.header() != expected) reader.fail(1, "the header is not this sweep's");
  write(part_preamble(expected));
  const Shard shard = expected.shard;
  for (size_t p = 0; p < shard.size(expected.points); ++p) {
    const size_t index = shard.grid_index(p);
    write(fmt::format("{},", index) + report::csv_line(expect_row(reader, p, index).fields));
  }
  expect_end(reader);
}

}  // namespace pipesim::sweep
