#include "pipesim/models/layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "pipesim/core/config_error.hpp"

namespace pipesim::models {
namespace {

constexpr std::string_view kOption = "layout";
constexpr std::string_view kAllowed = "E t m L | * ( ) ,";
constexpr int kMaxDepth = 64;  // nesting deeper than any layout needs; bounds the recursion

//! One expanded symbol and the 0-based position in the text it was written at.
struct Symbol {
  char c;
  std::size_t pos;
};

[[noreturn]] void fail(std::size_t pos, std::string_view problem) {
  throw core::ConfigError::option(kOption, fmt::format("position {}: {}", pos + 1, problem));
}

bool is_symbol(char c) {
  return c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|';
}

// Recursive descent over: sequence := (item [`*` count] | `,`)*, item := symbol | `(` sequence `)`.
// Megatron-LM unrolls with two regular expressions (groups without nesting, then single
// symbols); nested groups are accepted here as the natural generalisation.
class Expander {
 public:
  explicit Expander(std::string_view text) : text_(text) {}

  std::vector<Symbol> run() {
    std::vector<Symbol> out = sequence(0);
    if (i_ < text_.size()) fail(i_, "')' without a matching '('");
    return out;
  }

 private:
  std::vector<Symbol> sequence(int depth) {
    std::vector<Symbol> out;
    while (i_ < text_.size() && text_[i_] != ')') {
      const char c = text_[i_];
      if (c == ',') {
        ++i_;
        continue;
      }
      std::vector<Symbol> item;
      if (c == '(') {
        const std::size_t open = i_++;
        if (depth + 1 > kMaxDepth) fail(open, fmt::format("groups nest deeper than {}", kMaxDepth));
        item = sequence(depth + 1);
        if (i_ >= text_.size()) fail(open, "'(' is never closed");
        ++i_;
      } else if (is_symbol(c)) {
        item.push_back({c, i_++});
      } else if (c == '*') {
        fail(i_, "'*' must follow a symbol or a group");
      } else {
        fail(i_, fmt::format("unknown symbol '{}' (allowed: {})", c, kAllowed));
      }
      const long n = repeat_count();
      const long total = static_cast<long>(out.size()) + n * static_cast<long>(item.size());
      if (total > kMaxLayoutSymbols) {
        fail(i_ - 1, fmt::format("expands to more than {} symbols", kMaxLayoutSymbols));
      }
      for (long r = 0; r < n; ++r)
        out.insert(out.end(), item.begin(), item.end());
    }
    return out;
  }

  // `*n` after an item (n ≥ 0), or 1 when none follows.
  long repeat_count() {
    if (i_ >= text_.size() || text_[i_] != '*') return 1;
    const std::size_t star = i_++;
    long n = 0;
    const std::size_t first = i_;
    while (i_ < text_.size() && text_[i_] >= '0' && text_[i_] <= '9') {
      n = n * 10 + (text_[i_] - '0');
      if (n > kMaxLayoutSymbols)
        fail(first, fmt::format("repeat count exceeds {}", kMaxLayoutSymbols));
      ++i_;
    }
    if (i_ == first) fail(star, "'*' needs a repeat count (a whole number)");
    return n;
  }

  std::string_view text_;
  std::size_t i_ = 0;
};

}  // namespace

std::vector<LayoutStage> parse_layout(std::string_view text) {
  std::vector<LayoutStage> stages(1);
  for (const Symbol& s : Expander(text).run()) {
    LayoutStage& st = stages.back();
    switch (s.c) {
      case '|':
        stages.emplace_back();
        break;
      case 'E':
        ++st.embedding;
        break;
      case 't':
        ++st.transformer;
        break;
      case 'm':
        ++st.mtp;
        break;
      default:
        ++st.loss;
        break;
    }
  }
  return stages;
}

std::vector<StageLayers> layout_partition(const ModelSpec& m, std::string_view text, int stages) {
  const std::vector<Symbol> symbols = Expander(text).run();
  const auto count = [&](char c) {
    return std::count_if(symbols.begin(), symbols.end(), [c](const Symbol& s) { return s.c == c; });
  };
  const long given = count('|') + 1;
  if (given != stages) {
    throw core::ConfigError::option(
        kOption, fmt::format("has {} virtual stages, the schedule has D·v = {} (one per `|`-"
                             "separated part; empty parts count)",
                             given, stages));
  }
  // The first and the last symbol that is not a stage separator.
  const auto layer = [](const Symbol& s) { return s.c != '|'; };
  const auto first = std::find_if(symbols.begin(), symbols.end(), layer);
  const auto last = std::find_if(symbols.rbegin(), symbols.rend(), layer);
  for (char c : {'E', 'L'}) {
    if (count(c) != 1) {
      throw core::ConfigError::option(
          kOption, fmt::format("holds '{}' ({}) {} times; it must appear exactly once", c,
                               c == 'E' ? "the embedding" : "the loss", count(c)));
    }
  }
  if (first->c != 'E') fail(first->pos, "the embedding 'E' must be the first layer");
  if (last->c != 'L') fail(last->pos, "the loss 'L' must be the last layer");
  if (count('t') != m.layers) {
    throw core::ConfigError::option(
        kOption, fmt::format("places {} transformer layers 't'; model {} has {}", count('t'),
                             m.name, m.layers));
  }
  if (count('m') != m.mtp_layers) {
    throw core::ConfigError::option(
        kOption, fmt::format("places {} multi-token-prediction layers 'm'; model {} has {}",
                             count('m'), m.name, m.mtp_layers));
  }
  const auto first_mtp =
      std::find_if(symbols.begin(), symbols.end(), [](const Symbol& s) { return s.c == 'm'; });
  const auto late =
      std::find_if(first_mtp, symbols.end(), [](const Symbol& s) { return s.c == 't'; });
  if (late != symbols.end()) fail(late->pos, "transformer layers must come before the MTP layers");

  std::vector<StageLayers> out(static_cast<std::size_t>(stages));
  std::size_t s = 0;
  int layer_index = 0;
  out[0].first_layer = 0;
  for (const Symbol& sym : symbols) {
    StageLayers& st = out[s];
    switch (sym.c) {
      case '|':
        ++s;
        out[s].first_layer = layer_index;
        break;
      case 'E':
        st.embedding = true;
        break;
      case 'L':
        st.head = true;
        break;
      case 'm':
        ++st.mtp_layers;
        break;
      default:
        ++st.layers;
        ++layer_index;
        break;
    }
  }
  return out;
}

}  // namespace pipesim::models
