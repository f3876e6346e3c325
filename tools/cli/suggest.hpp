#pragma once
// Did-you-mean for the command line: the known spelling closest to an unknown one.

#include <string>
#include <string_view>
#include <vector>

namespace pipesim::cli {

//! The candidate nearest to `word` by edit distance (Levenshtein, case-insensitive), if it is
//! near enough to be a typo: at most 2 edits, or a third of the word's length for long words.
//! "" when none is. Ties go to the first candidate, so the answer is deterministic.
std::string closest_spelling(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace pipesim::cli
