#include "argument_lists.hpp"

#include <fmt/format.h>

namespace pipesim::cli {

nlohmann::ordered_json argument_lists_json(const ArgumentLists& lists) {
  nlohmann::ordered_json j;
  j["source"] = lists.source;
  j["used"] = lists.used;
  j["ignored"] = lists.ignored;
  j["unknown"] = lists.unknown;
  return j;
}

std::string argument_lists_text(const ArgumentLists& lists) {
  std::string out = fmt::format("{} ({})\n", lists.title, lists.source);
  const auto line = [&](const char* what, const std::vector<std::string>& names) {
    std::string list;
    for (const std::string& n : names)
      list += " " + n;
    out += fmt::format("  {:<8} {:>3}:{}\n", what, names.size(), list);
  };
  line("used", lists.used);
  line("ignored", lists.ignored);
  line("unknown", lists.unknown);
  return out;
}

}  // namespace pipesim::cli
