#pragma once
// Model and hardware files loaded once per sweep or search and shared read-only: every
// configuration that names `gpt2-1.3b` gets the same const ModelSpec, across points and
// threads. (Reloading them for each configuration cost ~29% of a search's CPU.)

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {

class SpecCache {
 public:
  using ModelLoader = std::function<models::ModelSpec(const std::string& name_or_path)>;
  using HardwareLoader = std::function<hardware::HardwareProfile(const std::string& name_or_path)>;

  //! Loads with models::load_model and hardware::load_profile.
  SpecCache();
  //! Loads with the given functions (tests count the calls).
  SpecCache(ModelLoader load_model, HardwareLoader load_hardware);

  //! The loaded model / profile for a name or path, loaded on first use. Throws what the
  //! loader throws (core::ConfigError); a failed load is not cached. Thread-safe.
  std::shared_ptr<const models::ModelSpec> model(const std::string& name_or_path);
  std::shared_ptr<const hardware::HardwareProfile> hardware(const std::string& name_or_path);

  //! Points the scenario's real-cost part at the shared, loaded files when it names both.
  //! A file that fails to load is left to simulate(), which reports it in its usual order.
  void attach(Scenario& scenario);

 private:
  ModelLoader load_model_;
  HardwareLoader load_hardware_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const models::ModelSpec>> models_;
  std::map<std::string, std::shared_ptr<const hardware::HardwareProfile>> hardware_;
};

}  // namespace pipesim::scenario
