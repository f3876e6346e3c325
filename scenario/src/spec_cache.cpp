#include "pipesim/scenario/spec_cache.hpp"

#include "pipesim/core/config_error.hpp"

namespace pipesim::scenario {
namespace {

template <typename T, typename Loader>
std::shared_ptr<const T> find_or_load(std::mutex& mutex,
                                      std::map<std::string, std::shared_ptr<const T>>& cache,
                                      const Loader& load, const std::string& name) {
  std::lock_guard lock(mutex);  // held while loading: each file is read once
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, std::make_shared<const T>(load(name))).first;
  return it->second;
}

}  // namespace

SpecCache::SpecCache() : SpecCache(&models::load_model, &hardware::load_profile) {}

SpecCache::SpecCache(ModelLoader load_model, HardwareLoader load_hardware)
    : load_model_(std::move(load_model)), load_hardware_(std::move(load_hardware)) {}

std::shared_ptr<const models::ModelSpec> SpecCache::model(const std::string& name_or_path) {
  return find_or_load(mutex_, models_, load_model_, name_or_path);
}

std::shared_ptr<const hardware::HardwareProfile> SpecCache::hardware(
    const std::string& name_or_path) {
  return find_or_load(mutex_, hardware_, load_hardware_, name_or_path);
}

void SpecCache::attach(Scenario& s) {
  if (s.perf.model.empty() || s.perf.hardware.empty()) return;
  try {
    s.perf.model_spec = model(s.perf.model);
    s.perf.hardware_profile = hardware(s.perf.hardware);
  } catch (const core::ConfigError&) {
    s.perf.model_spec.reset();
    s.perf.hardware_profile.reset();
  }
}

}  // namespace pipesim::scenario
