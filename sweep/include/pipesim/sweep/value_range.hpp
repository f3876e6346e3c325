#pragma once
// The value lists `sweep`, `compare` and sweep files take for any run option:
//   4,8,16        a comma list (items kept in the order given)
//   8:64:x2       a geometric range: 8, 16, 32, 64 (factor > 1)
//   1:9:+2        an arithmetic range: 1, 3, 5, 7, 9 (step > 0)
//   2:5           an arithmetic range with step 1: 2, 3, 4, 5
// Items of a comma list may themselves be ranges (`1,4:16:x2`). Ranges are ascending and
// include their end when it falls on the grid. Range values are written back as text in the
// shortest form that round-trips (integers without a decimal point).

#include <string>
#include <string_view>
#include <vector>

namespace pipesim::sweep {

//! Most values one option may expand to; more is almost surely a typo.
inline constexpr size_t kMaxValuesPerOption = 100000;

//! Expands `text` into its values. Throws core::ConfigError(source, field, ...) for an empty
//! item, a malformed or empty range, a non-positive step or a factor <= 1.
std::vector<std::string> expand_values(std::string_view source, std::string_view field,
                                       std::string_view text);
//! The same for a value a front end was given for option `option`: the error is
//! core::ConfigError::option(option, ...), which the front end spells.
std::vector<std::string> expand_option_values(std::string_view option, std::string_view text);

}  // namespace pipesim::sweep
