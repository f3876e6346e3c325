#include "flags.hpp"

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::cli {

std::string cli_names(const scenario::Option& option) {
  std::string names = flag_of(option.name());
  if (!option.short_name.empty()) names += ",-" + option.short_name;
  for (const std::string& alias : option.aliases)
    names += "," + flag_of(alias);
  return names;
}

CLI::Option* add_scenario_option(CLI::App& cmd, const scenario::Option& option, std::string& text,
                                 bool list) {
  const std::string type = option.spec.type_name();
  CLI::Option* o = cmd.add_option(cli_names(option), text, option.spec.help);
  const std::string shown = list ? fmt::format("LIST<{}>", type) : type;
  o->type_name(shown)->group(option.group);
  // An option may be given more than once under its names (`-D 16
  // --pipeline-model-parallel-size 16`): the texts are joined by newlines and given_text()
  // takes them when they agree.
  o->multi_option_policy(CLI::MultiOptionPolicy::Join);
  const std::string d = scenario::default_help(option);
  if (option.spec.kind == core::ValueKind::Switch) {
    // A bare switch means on (given_text). CLI11 would fill a bare option with its default
    // string, so the default is shown through the option text instead.
    o->expected(0, 1)->option_text(d.empty() ? fmt::format("[{}]", shown)
                                             : fmt::format("[{}] [{}]", shown, d));
  } else if (!d.empty()) {
    o->default_str(d);
  }
  return o;
}

std::string given_text(const scenario::Option& option, const std::string& text) {
  const auto one = [&](const std::string& t) {
    return option.spec.kind == core::ValueKind::Switch && t.empty() ? std::string("on") : t;
  };
  const size_t newline = text.find('\n');
  if (newline == std::string::npos) return one(text);
  // Given more than once: every value must be the first (compared as the option reads them).
  const auto normal = [&](const std::string& t) {
    try {
      return option.spec.format(option.spec.parse(t));
    } catch (const core::ConfigError&) {
      return t;
    }
  };
  const std::string first = one(text.substr(0, newline));
  size_t start = newline + 1;
  while (true) {
    const size_t end = text.find('\n', start);
    const std::string next = one(text.substr(start, end == std::string::npos ? end : end - start));
    if (normal(next) != normal(first)) {
      throw core::ConfigError::option(
          option.name(),
          fmt::format("given twice with different values: '{}' and '{}'", first, next));
    }
    if (end == std::string::npos) return first;
    start = end + 1;
  }
}

const char* list_syntax_note() {
  return "LIST<T>: one value, a comma list a,b,c, or a range a:b (step 1), a:b:+step, "
         "a:b:xfactor (ascending, end included when on the grid), or a mix 1,4:16:x2.";
}

}  // namespace pipesim::cli
