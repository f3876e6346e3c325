#pragma once
// What `pipesim validate` prints: every point predicted vs measured, then the per-source and
// overall error statistics and the ranking agreement — as text, CSV (one row per point) or
// JSON (points and summary). Pure functions of the results.

#include <string>
#include <vector>

#include "pipesim/validation/validation.hpp"

namespace pipesim::validation {

std::string validation_text(const std::vector<PointResult>& points,
                            const ValidationSummary& summary);

//! Header: id, source, expressible, fitted, compare_group, metric, unit, measured, predicted,
//! error_percent, status, gpu_generation, gpus, reading_error_percent. Numbers with 4 significant
//! digits (the table is a regression artefact: it must not churn with the last bit of a double).
std::string validation_csv(const std::vector<PointResult>& points);

std::string validation_json(const std::vector<PointResult>& points,
                            const ValidationSummary& summary);

}  // namespace pipesim::validation
