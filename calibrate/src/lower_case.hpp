#pragma once
// ASCII lower case, how kernel names, annotations and GPU names are compared. Private to the
// library.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace pipesim::calibrate {

inline std::string lower_case(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace pipesim::calibrate
