// Renderings of a validation (validation/validation_report.hpp).

#include "pipesim/validation/validation_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "pipesim/core/version.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/text_table.hpp"

namespace pipesim::validation {
namespace {

// Every rendering states the sign convention of its errors (PointResult::error()).
constexpr const char* kErrorSign =
    "error: + = optimistic (predicted faster, or less memory, than measured) for every metric; "
    "throughput: predicted / measured - 1, time and memory: 1 - predicted / measured";

std::string sig4(double v) {
  return fmt::format("{:.4g}", v);
}

std::string percent(double fraction) {
  return fmt::format("{:+.1f}", 100 * fraction);
}

std::string predicted_text(const PointResult& p) {
  if (!p.predicted) return "";
  if (p.metric == ValidationMetric::OutOfMemory) return *p.predicted > 0 ? "oom" : "fits";
  return sig4(*p.predicted);
}

std::string measured_text(const PointResult& p) {
  if (p.metric == ValidationMetric::OutOfMemory) return p.measured > 0 ? "oom" : "fits";
  return sig4(p.measured);
}

std::string stats_text(const ErrorStats& s) {
  if (s.points == 0) return "-";
  return fmt::format("{:.1f}% / {:.1f}% / {:+.1f}% ({})", 100 * s.median_abs, 100 * s.max_abs,
                     100 * s.mean_signed, s.points);
}

nlohmann::json stats_json(const ErrorStats& s) {
  return {{"points", s.points},
          {"median_abs_error", s.median_abs},
          {"max_abs_error", s.max_abs},
          {"mean_signed_error", s.mean_signed},
          {"worst", s.worst}};
}

nlohmann::json source_json(const SourceSummary& s, const char* key = "source") {
  return {{key, s.source},
          {"speed", stats_json(s.all)},
          {"held_out", stats_json(s.held_out)},
          {"fitted", stats_json(s.fitted)},
          {"exact", stats_json(s.exact)},
          {"memory", stats_json(s.memory)},
          {"not_expressible", s.not_expressible},
          {"failed", s.failed}};
}

}  // namespace

std::string validation_text(const std::vector<PointResult>& points,
                            const ValidationSummary& summary) {
  std::vector<std::vector<std::string>> rows;
  for (const PointResult& p : points) {
    const auto e = p.error();
    std::string flags = std::string(expressible_name(p.expressible));
    if (p.fitted) flags += ", fitted";
    rows.push_back({p.id, std::string(metric_name(p.metric)), measured_text(p), predicted_text(p),
                    e ? percent(*e) : "", flags, p.status == "ok" ? "" : p.status});
  }
  std::string text = std::string(kErrorSign) + "\n\n";
  text += report::render_table(
      {"run", "metric", "measured", "predicted", "error %", "expressed", "status"}, rows);

  const auto statistics = [](const char* first, const std::vector<SourceSummary>& groups,
                             const SourceSummary& overall) {
    std::vector<std::vector<std::string>> table;
    const auto add = [&](const SourceSummary& s) {
      table.push_back({s.source, stats_text(s.all), stats_text(s.fitted), stats_text(s.held_out),
                       stats_text(s.exact), stats_text(s.memory), std::to_string(s.not_expressible),
                       std::to_string(s.failed)});
    };
    for (const SourceSummary& s : groups)
      add(s);
    add(overall);
    return report::render_table({first, "speed", "speed, fitted", "speed, not fitted",
                                 "speed, exact runs", "peak memory", "not expressible", "failed"},
                                table);
  };
  text +=
      "\n|error|: median / max / mean signed error (points); speed = throughput and time "
      "metrics\n";
  text += statistics("source", summary.sources, summary.overall);
  text += "\nper GPU generation (of the run's hardware profile)\n";
  text += statistics("generation", summary.generations, summary.overall);
  if (!summary.rankings.empty()) {
    std::vector<std::vector<std::string>> ranks;
    std::vector<std::vector<std::string>> tied;
    for (const RankingAgreement& r : summary.rankings) {
      ranks.push_back({r.group, r.metric, std::to_string(r.runs), r.same_order ? "yes" : "no",
                       fmt::format("{:.2f}", r.kendall_tau), std::to_string(r.ties.size()),
                       fmt::format("{:.1f}%", 100 * r.median_ratio_error)});
      for (const TiedPair& t : r.ties) {
        tied.push_back(
            {r.group, t.first, sig4(t.first_measured), t.second, sig4(t.second_measured)});
      }
    }
    text += "\nranking within runs measured side by side (pairs within their reading error tie)\n";
    text += report::render_table({"group", "metric", "runs", "same order", "Kendall tau b",
                                  "tied pairs", "median ratio error"},
                                 ranks);
    if (!tied.empty()) {
      text += "\ntied pairs (measured within their reading error: not ranked)\n";
      text += report::render_table({"group", "run", "measured", "run", "measured"}, tied);
    }
  }
  return text;
}

std::string validation_csv(const std::vector<PointResult>& points) {
  std::string out = report::csv_line({"id", "source", "expressible", "fitted", "compare_group",
                                      "metric", "unit", "measured", "predicted", "error_percent",
                                      "status", "gpu_generation", "gpus", "reading_error_percent"});
  for (const PointResult& p : points) {
    const auto e = p.error();
    out += report::csv_line({p.id, p.source, std::string(expressible_name(p.expressible)),
                             p.fitted ? "true" : "false", p.compare_group,
                             std::string(metric_name(p.metric)), std::string(metric_unit(p.metric)),
                             sig4(p.measured), p.predicted ? sig4(*p.predicted) : "",
                             e ? fmt::format("{:.2f}", 100 * *e) : "", p.status, p.gpu_generation,
                             p.gpus > 0 ? sig4(p.gpus) : "", sig4(100 * p.reading_error)});
  }
  return out;
}

std::string validation_json(const std::vector<PointResult>& points,
                            const ValidationSummary& summary) {
  nlohmann::json j;
  j["pipesim_version"] = core::version;
  j["error_sign"] = kErrorSign;
  nlohmann::json list = nlohmann::json::array();
  for (const PointResult& p : points) {
    nlohmann::json item = {{"id", p.id},
                           {"source", p.source},
                           {"expressible", expressible_name(p.expressible)},
                           {"fitted", p.fitted},
                           {"gpu_generation", p.gpu_generation},
                           {"reading_error", p.reading_error},
                           {"metric", metric_name(p.metric)},
                           {"unit", metric_unit(p.metric)},
                           {"measured", p.measured},
                           {"status", p.status}};
    if (!p.compare_group.empty()) item["compare_group"] = p.compare_group;
    if (p.predicted) item["predicted"] = *p.predicted;
    if (p.gpus > 0) item["gpus"] = p.gpus;
    if (const auto e = p.error()) item["error"] = *e;
    list.push_back(std::move(item));
  }
  j["points"] = std::move(list);
  nlohmann::json sources = nlohmann::json::array();
  for (const SourceSummary& s : summary.sources)
    sources.push_back(source_json(s));
  j["sources"] = std::move(sources);
  nlohmann::json generations = nlohmann::json::array();
  for (const SourceSummary& s : summary.generations)
    generations.push_back(source_json(s, "gpu_generation"));
  j["gpu_generations"] = std::move(generations);
  j["overall"] = source_json(summary.overall);
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankingAgreement& r : summary.rankings) {
    nlohmann::json tied = nlohmann::json::array();
    for (const TiedPair& t : r.ties) {
      tied.push_back({{"first", t.first},
                      {"first_measured", t.first_measured},
                      {"second", t.second},
                      {"second_measured", t.second_measured}});
    }
    ranks.push_back({{"group", r.group},
                     {"metric", r.metric},
                     {"runs", r.runs},
                     {"same_order", r.same_order},
                     {"kendall_tau", r.kendall_tau},
                     {"ties", std::move(tied)},
                     {"median_ratio_error", r.median_ratio_error}});
  }
  j["rankings"] = std::move(ranks);
  return j.dump(2) + "\n";
}

}  // namespace pipesim::validation
