#pragma once
// How `pipesim calibrate` shows its results: the fitted parameters (JSON, text) and the layer
// check (text table, CSV, JSON). Every format carries schema_version and is deterministic.

#include <nlohmann/json.hpp>
#include <string>

#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/calibrate/profile_yaml.hpp"
#include "pipesim/calibrate/trace_check.hpp"

namespace pipesim::calibrate {

nlohmann::json fit_to_json(const CalibrationFit& fit, const hardware::Provenance& provenance,
                           const std::string& samples_source);
std::string fit_to_text(const CalibrationFit& fit, const hardware::Provenance& provenance);

nlohmann::json layer_check_to_json(const LayerCheck& check);
std::string layer_check_to_text(const LayerCheck& check);
std::string layer_check_to_csv(const LayerCheck& check);

//! The trace beside the prediction (docs/schema: calibrate_trace): the trace's GPU, kernels and
//! their time, `ops: [{kind, phase, kernels, ranges, measured_s, predicted_s}]`, phases,
//! streams, overlap, unrecognised kernel names, findings.
nlohmann::json trace_check_to_json(const TraceCheck& check);
//! The same as a text report: findings first, then the table by phase (biggest difference
//! first within the listing of each phase), streams and unrecognised kernels.
std::string trace_check_to_text(const TraceCheck& check);

}  // namespace pipesim::calibrate
