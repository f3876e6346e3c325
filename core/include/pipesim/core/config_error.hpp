#pragma once
// User errors: bad input named by where it came from, the field and the allowed range.
// Two kinds of field:
//  - a key of a file or a named source ("model.yaml: hidden: must be > 0, got 0");
//  - an option, named neutrally (`micro_batches`): library code never spells a front end's
//    flag. A front end re-spells it with describe(): the CLI says `--micro-batches`, Python
//    `micro_batches=`.
// The CLI prints one line and exits 2. Control characters in any part are escaped
// (core::printable), so every message is one line.

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pipesim::core {

class ConfigError : public std::runtime_error {
 public:
  //! `source` is a file path or another named source; `field` the key; `problem` says what is
  //! wrong and what is allowed, e.g. "must be in [1, 4096], got 0".
  ConfigError(std::string_view source, std::string_view field, std::string_view problem);
  //! A message that already names its source.
  explicit ConfigError(const std::string& message);

  //! A bad option value: `option` is its neutral name. `context` names the rule's owner when
  //! it is not the option alone ("schedule chimera"), else empty. what() is
  //! "[context: ]option: problem".
  static ConfigError option(std::string_view option, std::string_view problem,
                            std::string_view context = {});

  bool is_option() const { return is_option_; }
  //! The file or named source, or for an option error its context ("" = none).
  const std::string& source() const { return source_; }
  //! The key, or the option's neutral name.
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

  //! The one line a front end shows: an option error as "<context or `options_source`>:
  //! <spell(option)>: <problem>", anything else as what().
  std::string describe(std::string_view options_source,
                       const std::function<std::string(std::string_view option)>& spell) const;

 private:
  ConfigError(std::string_view source, std::string_view field, std::string_view problem,
              bool is_option);
  std::string source_, field_, problem_;
  bool is_option_ = false;
};

}  // namespace pipesim::core
