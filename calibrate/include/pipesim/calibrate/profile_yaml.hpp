#pragma once
// Reading a base hardware profile and writing the calibrated one (schema_version 1,
// /tmp/profile_schema.md → hardware/README.md once hardware/ lands).
//
// Interim: hardware/ (HardwareProfile, its YAML load/save and validation) is being written on a
// parallel branch. Until it is merged, calibrate/ reads just the fields it needs and writes the
// calibrated profile by editing the base document node by node, so every key it does not fit is
// carried over verbatim. Switch both to hardware::load/save when they exist.

#include <filesystem>
#include <string>

#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/compute_parameters.hpp"

namespace pipesim::calibrate {

struct BaseProfile {
  std::filesystem::path path;
  std::string name;
  std::string text;  //!< the YAML document, kept to copy what is not fitted
  ComputeParameters compute;
};

//! Loads the fields calibrate/ needs. Throws core::ConfigError naming file and field.
BaseProfile load_base_profile(const std::filesystem::path& path);

struct Provenance {
  std::string gpu, driver, cuda, date, tool_version;
};

//! Provenance from the samples' `# key: value` lines ("unknown" where absent), tool version
//! from this build.
Provenance provenance_from(const SampleSet& samples);

//! The calibrated profile as YAML: the base document with fitted values in place,
//! provenance.source = calibration, name and samples path set. Deterministic.
std::string calibrated_profile_yaml(const BaseProfile& base, const CalibrationFit& fit,
                                    const Provenance& provenance, const std::string& name,
                                    const std::string& samples_path);

}  // namespace pipesim::calibrate
