#pragma once
// The used / ignored / unknown lists of a configuration read from another framework
// (Megatron-LM's arguments, torchtitan's keys), in JSON and text, in one shape for both.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pipesim::cli {

struct ArgumentLists {
  std::string title;   //!< "Megatron-LM arguments", "torchtitan config"
  std::string source;  //!< the file, or a named source
  std::vector<std::string> used, ignored, unknown;  //!< each as the framework spells it
};

//! `{source, used, ignored, unknown}`.
nlohmann::ordered_json argument_lists_json(const ArgumentLists& lists);

//! "TITLE (SOURCE)" and a line per list: "  used      13: a b c".
std::string argument_lists_text(const ArgumentLists& lists);

}  // namespace pipesim::cli
