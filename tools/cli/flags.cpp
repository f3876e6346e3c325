#include "flags.hpp"

#include <fmt/format.h>

namespace pipesim::cli {

std::string cli_names(const scenario::Option& option) {
  const std::string flag = flag_of(option.name());
  return option.short_name.empty() ? flag : fmt::format("{},-{}", flag, option.short_name);
}

CLI::Option* add_scenario_option(CLI::App& cmd, const scenario::Option& option, std::string& text,
                                 bool list) {
  const std::string type = option.spec.type_name();
  CLI::Option* o = cmd.add_option(cli_names(option), text, option.spec.help);
  o->type_name(list ? fmt::format("LIST<{}>", type) : type)->group(option.group);
  if (const std::string d = scenario::default_help(option); !d.empty()) o->default_str(d);
  return o;
}

const char* list_syntax_note() {
  return "LIST<T>: one value, a comma list a,b,c, or a range a:b (step 1), a:b:+step, "
         "a:b:xfactor (ascending, end included when on the grid), or a mix 1,4:16:x2.";
}

}  // namespace pipesim::cli
