#include "pipesim/scenario/read_settings.hpp"

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::scenario {

const ReadSetting* conflicting_setting(const std::vector<ReadSetting>& settings,
                                       const std::string& option, const std::string& text) {
  for (const ReadSetting& s : settings) {
    if (s.option == option && s.text != text) return &s;
  }
  return nullptr;
}

std::string normal_text(const std::string& option, const std::string& text) {
  const Option* o = find_option(option);
  if (o == nullptr) return text;
  try {
    return o->spec.format(o->spec.parse(text));
  } catch (const core::ConfigError&) {
    return text;
  }
}

void merge_setting(std::map<std::string, std::string>& texts, const ReadSetting& s,
                   const std::string& reader, const std::string& source) {
  const auto it = texts.find(s.option);
  if (it == texts.end()) {
    texts[s.option] = s.text;
  } else if (normal_text(s.option, it->second) != normal_text(s.option, s.text)) {
    throw core::ConfigError::option(
        s.option, fmt::format("is {}, but {} {} in {} gives {}", it->second, reader, s.argument,
                              source, s.text));
  }
}

long single_integer(const std::map<std::string, std::string>& texts, const std::string& option) {
  const auto it = texts.find(option);
  const Option* o = find_option(option);
  const std::string text = it == texts.end() ? o->spec.default_text : it->second;
  try {
    return std::get<std::int64_t>(o->spec.parse(text));
  } catch (const core::ConfigError&) {
    throw core::ConfigError::option(
        option, fmt::format("must be one integer with a configuration's world size or global "
                            "batch size (W and N follow from it), got '{}'",
                            text));
  }
}

void derive_option(std::map<std::string, std::string>& texts, const std::string& option,
                   const std::string& text, const std::string& rule) {
  const auto it = texts.find(option);
  if (it != texts.end() && normal_text(option, it->second) != normal_text(option, text)) {
    throw core::ConfigError::option(option,
                                    fmt::format("is {}, but {} gives {}", it->second, rule, text));
  }
  texts[option] = text;
}

}  // namespace pipesim::scenario
