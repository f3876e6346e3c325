#include "pipesim/calibrate/profile_yaml.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"

namespace pipesim::calibrate {

hardware::HardwareProfile load_base_profile(const std::string& name_or_path) {
  return hardware::load_profile(name_or_path);
}

namespace {

// "" for a GPU name that names no GPU: empty, "unknown", or marked synthetic.
std::string real_gpu(const std::string& gpu) {
  const bool named = !gpu.empty() && gpu != "unknown" && gpu.find("synthetic") == std::string::npos;
  return named ? gpu : std::string();
}

// The shipped profiles made for `gpu`, as "name" strings, and every shipped profile with its GPU
// for messages.
struct ShippedMatch {
  std::vector<std::string> matching;
  std::vector<std::string> all;  //!< "name (gpu)"
};

ShippedMatch shipped_for(const std::string& gpu) {
  ShippedMatch m;
  for (const std::string& name : hardware::shipped_profiles()) {
    const std::string profile_gpu = hardware::load_profile(name).provenance.gpu;
    if (profile_gpu == gpu) m.matching.push_back(name);
    m.all.push_back(fmt::format("{} ({})", name, profile_gpu));
  }
  return m;
}

}  // namespace

std::string measured_gpu(const SampleSet& samples) {
  return real_gpu(samples.meta("gpu", ""));
}

hardware::HardwareProfile choose_base_profile(const SampleSet& samples,
                                              const std::string& name_or_path) {
  const std::string gpu = measured_gpu(samples);
  if (name_or_path.empty()) {
    if (gpu.empty()) {
      throw core::ConfigError::option(
          "base",
          fmt::format("required: the samples {} do not name the GPU they were measured on "
                      "(gpu: {}); give the profile of that GPU (shipped: {}) or a YAML path",
                      samples.source, samples.meta("gpu", "absent"),
                      fmt::join(hardware::shipped_profiles(), ", ")));
    }
    const ShippedMatch shipped = shipped_for(gpu);
    if (shipped.matching.size() != 1) {
      throw core::ConfigError::option(
          "base",
          fmt::format("required: {} shipped profile is for '{}', the GPU of the samples (shipped: "
                      "{}); give one, or a YAML profile of this GPU",
                      shipped.matching.empty() ? "no" : "more than one", gpu,
                      fmt::join(shipped.all, ", ")));
    }
    return load_base_profile(shipped.matching.front());
  }
  hardware::HardwareProfile base = load_base_profile(name_or_path);
  const std::string base_gpu = real_gpu(base.provenance.gpu);
  if (!gpu.empty() && !base_gpu.empty() && base_gpu != gpu) {
    const ShippedMatch shipped = shipped_for(gpu);
    throw core::ConfigError(
        samples.source, "gpu",
        fmt::format("measured on '{}', but the base profile '{}' is for '{}' (its memory, peaks "
                    "and links would be another GPU's); use a base profile for '{}' ({})",
                    gpu, base.name, base_gpu, gpu,
                    shipped.matching.empty()
                        ? "no shipped profile is for it: write one"
                        : fmt::format("shipped: {}", fmt::join(shipped.matching, ", "))));
  }
  return base;
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
