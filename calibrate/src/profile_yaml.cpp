#include "pipesim/calibrate/profile_yaml.hpp"

#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"

namespace pipesim::calibrate {

hardware::HardwareProfile load_base_profile(const std::string& name_or_path) {
  return hardware::load_profile(name_or_path);
}

hardware::Provenance provenance_from(const SampleSet& samples, const std::string& base_name) {
  hardware::Provenance p;
  p.source = "calibration";
  p.references = {"base profile " + base_name,
                  "Hockney 1994 (alpha-beta); nccl-tests busbw factors; BabelStream copy/triad"};
  p.gpu = samples.meta("gpu", "unknown");
  p.driver = samples.meta("driver", "unknown");
  p.cuda = samples.meta("cuda_runtime", "unknown");
  p.date = samples.meta("date", "unknown");
  p.tool_version = "pipesim " + std::string(core::version);
  return p;
}

hardware::HardwareProfile calibrated_profile(const hardware::HardwareProfile& base,
                                             const CalibrationFit& fit,
                                             const hardware::Provenance& provenance,
                                             const std::string& name,
                                             const std::string& samples_path) {
  hardware::HardwareProfile p = base;
  p.name = name;
  p.description = base.description + " (calibrated: pipesim calibrate)";
  p.provenance = provenance;
  p.gpu = apply_fit(base.gpu, fit);
  if (fit.intra_node)
    p.intra_node = {fit.intra_node->hockney.alpha, fit.intra_node->profile_beta()};
  // The profile's fitted collectives are t = α + n/β at the GPU count measured (hardware/ uses
  // them as they are), so the bus bandwidth is converted back with its busbw factor.
  for (const auto& [coll, link] : fit.collectives) {
    p.fitted[coll]["intra_node"] = {link.hockney.alpha, link.profile_beta()};
  }
  p.samples = samples_path;
  // What calibration writes must load with --hardware: same name rule, same bounds. Parsing the
  // written form is the one check that cannot drift from the loader.
  if (const std::string why = hardware::check_profile_name(name); !why.empty()) {
    throw core::ConfigError("calibrated profile", "name", why);
  }
  try {
    hardware::parse_profile(hardware::to_yaml(p), "calibrated profile");
  } catch (const core::ConfigError& e) {
    throw core::ConfigError(std::string("the fit gives an invalid profile: ") + e.what());
  }
  return p;
}

}  // namespace pipesim::calibrate
