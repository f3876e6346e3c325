#pragma once
// A typed option, declared once: its neutral name (`micro_batches`, never a front end's
// spelling), the kind of value it takes, its default, its range or choices and a one-line help.
// Option tables (a scheme's own options in the schedule registry, the scenario's in
// scenario::options()) are lists of these; the CLI, Python, sweep files and reports read them.
//
// Text syntax, the same for every option: integers are decimal digits with an optional leading
// '-' (no '+', hex, exponent or spaces); reals are decimal with an optional fraction and
// exponent (1e-3), finite, and -0 is 0; a switch is `on` or `off`; a choice one of its names.
// A bad value throws ConfigError::option naming the option and the allowed range.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pipesim::core {

enum class ValueKind : std::uint8_t {
  Integer,  //!< a whole number in [lo, hi]
  Real,     //!< a finite real in [lo, hi], or (lo, hi] when !lo_inclusive
  Switch,   //!< on | off
  Choice,   //!< one of `choices`
  Text,     //!< any text (a name or a path)
};

//! A typed value: Integer → std::int64_t, Real → double, Switch → bool, Choice and Text →
//! std::string.
using OptionValue = std::variant<std::int64_t, double, bool, std::string>;

struct OptionSpec {
  std::string name;  //!< neutral, e.g. "micro_batches"
  ValueKind kind = ValueKind::Integer;
  //! The default as a user would type it; "" = the option has no value unless given (a choice
  //! whose absence means "the model's", a text such as a model name).
  std::string default_text;
  double lo = 0.0;  //!< Integer, Real: the range
  double hi = 0.0;
  bool lo_inclusive = true;
  std::vector<std::string> choices;  //!< Choice: the names, in the order help lists them
  std::string help;                  //!< one line
  //! What a run that does not take this option behaves as having, for tables that show every
  //! option (a schedule without `pipelines` runs one pipeline: "1"); "" = nothing.
  std::string unused_text;
  //! How help shows the value ("SLOTS", "NAME|PATH"); "" = from the kind (INT, NUMBER, on|off,
  //! the choices).
  std::string value_name;

  //! The value of `text`; throws ConfigError::option naming this option and what is allowed.
  OptionValue parse(std::string_view text) const;
  //! `value` checked against this option's kind and range (a typed value from a binding or a
  //! table, where an integer may stand for a real); throws as parse() does.
  OptionValue check(const OptionValue& value) const;
  //! The text a user would type for `value`: parse(format(v)) == v (shortest round trip).
  std::string format(const OptionValue& value) const;
  //! "INT", "NUMBER", "on|off", "direct|doubling|halving", or value_name when set.
  std::string type_name() const;
};

//! Factories for the common kinds.
OptionSpec integer_option(std::string name, long lo, long hi, std::string default_text,
                          std::string help);
OptionSpec real_option(std::string name, double lo, double hi, std::string default_text,
                       std::string help, bool lo_inclusive = true);
OptionSpec switch_option(std::string name, bool default_on, std::string help);
OptionSpec choice_option(std::string name, std::vector<std::string> choices,
                         std::string default_text, std::string help);
OptionSpec text_option(std::string name, std::string default_text, std::string help);

//! `spec` with unused_text set to `text`.
OptionSpec with_unused_text(OptionSpec spec, std::string text);

//! Option values by name, in name order (so equal sets compare and print equal). Small: a
//! scheme has a handful of options.
class OptionValues {
 public:
  //! The value of `name`, or nullptr when it is not set.
  const OptionValue* find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  void set(std::string_view name, OptionValue value);
  void erase(std::string_view name);
  bool empty() const { return values_.empty(); }
  //! Typed reads of a value that is set (asserted) and of that kind.
  std::int64_t integer(std::string_view name) const;
  double real(std::string_view name) const;
  bool on(std::string_view name) const;
  const std::string& text(std::string_view name) const;
  const std::vector<std::pair<std::string, OptionValue>>& items() const { return values_; }
  friend bool operator==(const OptionValues&, const OptionValues&) = default;

 private:
  std::vector<std::pair<std::string, OptionValue>> values_;
};

//! The number syntax above, for values that are not table options (a command's own flags).
//! Throw ConfigError::option(option, ...) naming the allowed range.
int parse_int(std::string_view option, std::string_view text, long lo, long hi);
double parse_double(std::string_view option, std::string_view text, double lo, double hi,
                    bool lo_inclusive = true);
std::string parse_choice(std::string_view option, std::string_view text,
                         const std::vector<std::string>& choices);

}  // namespace pipesim::core
