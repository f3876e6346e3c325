#include "pipesim/sweep/sweep_stream.hpp"

#include "pipesim/core/assert.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/sweep/part_file.hpp"
#include "pipesim/sweep/sweep_journal.hpp"

namespace pipesim::sweep {

MakeRow shard_rows(const SweepGrid& grid, Shard shard, scenario::SpecCache& specs,
                   const DescribeError& describe) {
  return [&grid, shard, &specs, describe](size_t position) {
    return evaluate(grid, shard.grid_index(position), specs, describe);
  };
}

size_t stream_shard(const SweepGrid& grid, Shard shard, size_t first, const StreamOptions& options,
                    const RenderRow& render, const TextSink& write) {
  const size_t total = shard.size(grid.size());
  if (first >= total) {
    if (options.on_progress) options.on_progress(total, total);
    return 0;
  }
  ReorderWindow window(first, options.window, write);
  scenario::SpecCache specs;
  RowJob job;
  job.first = first;
  job.end = total;
  job.make_row = shard_rows(grid, shard, specs, options.describe);
  job.put = [&](size_t position, scenario::SweepRow row) {
    window.put(position, render(shard.grid_index(position), row));
  };
  job.window = &window;
  job.jobs = options.jobs;
  if (options.on_progress) {
    job.on_progress = [&](size_t done) { options.on_progress(first + done, total); };
  }
  run_rows(job, options.evaluator);
  return window.peak_held();
}

void sweep_to_stream(const SweepGrid& grid, Shard shard, SweepOutput kind,
                     const StreamOptions& options, const TextSink& write) {
  PIPESIM_ASSERT(kind == SweepOutput::Part || shard == Shard{}, "a CSV holds the whole grid");
  if (kind == SweepOutput::Part) {
    write(part_preamble(part_header(grid, shard)));
    stream_shard(grid, shard, 0, options, part_line, write);
    return;
  }
  write(report::csv_line(scenario::csv_columns()));
  stream_shard(
      grid, shard, 0, options,
      [](size_t, const scenario::SweepRow& row) {
        return report::csv_line(report::row_fields(row));
      },
      write);
}

void sweep_to_file(const SweepGrid& grid, Shard shard, SweepOutput kind,
                   const std::filesystem::path& output, bool resume, const StreamOptions& options) {
  PIPESIM_ASSERT(kind == SweepOutput::Part || shard == Shard{}, "a CSV holds the whole grid");
  const PartHeader header = part_header(grid, shard);
  const std::filesystem::path path = journal_path(output);
  std::error_code ec;
  SweepJournal journal = resume && std::filesystem::exists(path, ec)
                             ? SweepJournal::resume(path, header)
                             : SweepJournal::create(path, header);
  stream_shard(grid, shard, journal.done(), options, part_line,
               [&](std::string_view rows) { journal.append(rows); });
  journal.close();
  core::AtomicFileWriter out(output);
  const TextSink to_output = [&](std::string_view text) { out.write(text); };
  if (kind == SweepOutput::Csv) {
    merge_parts({path}, to_output);
  } else {
    copy_part(path, header, to_output);
  }
  out.commit();
  if (!std::filesystem::remove(path, ec) || ec) {
    throw core::ConfigError(path.string(), "journal",
                            "written into the output, but cannot be removed: " + ec.message());
  }
}

}  // namespace pipesim::sweep
