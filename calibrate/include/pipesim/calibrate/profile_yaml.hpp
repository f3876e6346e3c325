#pragma once
// The hardware profile in and out of calibration: the base profile is loaded, and the calibrated
// one written, through hardware/ (HardwareProfile, schema_version 1, strict YAML load/save);
// this file only decides which fields a calibration changes.

#include <string>

#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/samples.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::calibrate {

//! A shipped profile name or a YAML path (hardware::load_profile; strict, core::ConfigError).
hardware::HardwareProfile load_base_profile(const std::string& name_or_path);

//! The GPU the samples were measured on (their `# gpu:` line), or "" when they name none
//! (absent, "unknown", or synthetic samples).
std::string measured_gpu(const SampleSet& samples);

//! The base profile of a calibration, which supplies the peaks, memory and links that are not
//! measured, so it must describe the GPU the samples come from:
//!  - `name_or_path` empty: the shipped profile whose provenance.gpu is the samples' GPU;
//!    ConfigError("command line", "base", ...) when the samples name no GPU or none matches;
//!  - given: that profile, refused (ConfigError(samples, "gpu", ...)) when the samples name a GPU
//!    and the profile's provenance names another.
hardware::HardwareProfile choose_base_profile(const SampleSet& samples,
                                              const std::string& name_or_path);

//! Provenance from the samples' `# key: value` lines ("unknown" where absent), source
//! calibration, tool version from this build.
hardware::Provenance provenance_from(const SampleSet& samples, const std::string& base_name);

//! `base` with the fitted values in place, provenance, name and samples path set; everything not
//! measured stays the base's. Save it with hardware::save_profile. Throws core::ConfigError when
//! `name` breaks hardware::check_profile_name or the result would not load (a value outside the
//! profile's physical bounds), so calibration never writes a profile --hardware rejects.
hardware::HardwareProfile calibrated_profile(const hardware::HardwareProfile& base,
                                             const CalibrationFit& fit,
                                             const hardware::Provenance& provenance,
                                             const std::string& name,
                                             const std::string& samples_path);

}  // namespace pipesim::calibrate
