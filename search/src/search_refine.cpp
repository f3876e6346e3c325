#include "pipesim/search/search_refine.hpp"

#include <algorithm>

#include "pipesim/scenario/options.hpp"

namespace pipesim::search {
namespace {

const std::string& default_text(const std::string& option) {
  static const std::string kNone;
  const scenario::Option* o = scenario::find_option(option);
  return o != nullptr ? o->spec.default_text : kNone;
}

std::string value_of(const Candidate& c, const std::string& option) {
  const auto it = c.options.find(option);
  return it != c.options.end() ? it->second : default_text(option);
}

}  // namespace

std::string candidate_key(const Candidate& c) {
  std::string key;
  for (const auto& [name, value] : c.options) {
    if (name != "recompute" && value == default_text(name)) continue;
    key += name;
    key += '=';
    key += value;
    key += '\n';
  }
  return key;
}

Candidate with_option(Candidate c, const std::string& option, const std::string& value) {
  if (option != "recompute" && value == default_text(option)) {
    c.options.erase(option);
  } else {
    c.options[option] = value;
  }
  if (option == "recompute" && value != "selective") c.options.erase("recompute_modules");
  c.pruned.clear();
  c.pruned_for_memory = false;
  c.memory_bound = 0.0;
  c.rule.clear();
  return c;
}

bool knob_applies(const Candidate& c, const std::string& option) {
  if (option == "recompute_modules") return value_of(c, "recompute") == "selective";
  if (option == "moe_dispatcher" || option == "moe_overlap") {
    return value_of(c, "expert_parallel") != "1";
  }
  return true;
}

std::vector<Candidate> neighbours(const Candidate& start, const std::vector<SearchKnob>& knobs,
                                  std::set<std::string>& seen) {
  std::vector<Candidate> out;
  seen.insert(candidate_key(start));
  // With every other knob at its first-pass value, another recomputation mode is a first-pass
  // candidate, simulated already.
  const bool first_pass = std::all_of(knobs.begin(), knobs.end(), [&](const SearchKnob& k) {
    return k.option == "recompute" || value_of(start, k.option) == k.values.front();
  });
  for (const SearchKnob& knob : knobs) {
    if (first_pass && knob.option == "recompute") continue;
    const std::string current = value_of(start, knob.option);
    for (const std::string& value : knob.values) {
      if (value == current || !knob_applies(start, knob.option)) continue;
      Candidate c = with_option(start, knob.option, value);
      if (seen.insert(candidate_key(c)).second) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace pipesim::search
