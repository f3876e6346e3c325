#pragma once
// The words of an option's list value ("core_attn,mlp" or "attn moe_router"): the text split at
// any of `separators`, empty words dropped, in order.

#include <string>
#include <string_view>
#include <vector>

namespace pipesim::core {

inline std::vector<std::string> split_words(std::string_view text, std::string_view separators) {
  std::vector<std::string> words;
  std::string word;
  for (const char ch : text) {
    if (separators.find(ch) == std::string_view::npos) {
      word += ch;
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

}  // namespace pipesim::core
