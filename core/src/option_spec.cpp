#include "pipesim/core/option_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim::core {
namespace {

[[noreturn]] void bad(std::string_view option, const std::string& problem) {
  throw ConfigError::option(option, problem);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : "|") + i;
  return out;
}

const std::vector<std::string>& on_off() {
  static const std::vector<std::string> names{"on", "off"};
  return names;
}

std::string real_range(double lo, double hi, bool lo_inclusive) {
  return fmt::format("{}{}, {}]", lo_inclusive ? "[" : "(", lo, hi);
}

void require_integer_range(std::string_view option, long value, long lo, long hi) {
  if (value < lo || value > hi)
    bad(option, fmt::format("must be in [{}, {}], got {}", lo, hi, value));
}

void require_real_range(std::string_view option, double value, double lo, double hi,
                        bool lo_inclusive) {
  if (value < lo || (!lo_inclusive && value == lo) || value > hi) {
    bad(option, fmt::format("must be in {}, got {}", real_range(lo, hi, lo_inclusive), value));
  }
}

}  // namespace

int parse_int(std::string_view option, std::string_view text, long lo, long hi) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    bad(option, fmt::format("expected an integer in [{}, {}], got '{}'", lo, hi, text));
  }
  require_integer_range(option, value, lo, hi);
  return static_cast<int>(value);
}

double parse_double(std::string_view option, std::string_view text, double lo, double hi,
                    bool lo_inclusive) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    bad(option,
        fmt::format("expected a number in {}, got '{}'", real_range(lo, hi, lo_inclusive), text));
  }
  require_real_range(option, value, lo, hi, lo_inclusive);
  return value == 0.0 ? 0.0 : value;  // -0 is 0: printed back as 0, never "-0"
}

std::string parse_choice(std::string_view option, std::string_view text,
                         const std::vector<std::string>& choices) {
  for (const auto& c : choices) {
    if (c == text) return c;
  }
  bad(option, fmt::format("must be one of {}, got '{}'", joined(choices), text));
}

OptionValue OptionSpec::parse(std::string_view text) const {
  switch (kind) {
    case ValueKind::Integer:
      return std::int64_t{parse_int(name, text, static_cast<long>(lo), static_cast<long>(hi))};
    case ValueKind::Real:
      return parse_double(name, text, lo, hi, lo_inclusive);
    case ValueKind::Switch:
      return parse_choice(name, text, on_off()) == "on";
    case ValueKind::Choice:
      return parse_choice(name, text, choices);
    case ValueKind::Text:
      return std::string(text);
  }
  PIPESIM_ASSERT(false, "unknown value kind");
  return {};
}

OptionValue OptionSpec::check(const OptionValue& value) const {
  const auto wrong_kind = [&]() -> OptionValue {
    bad(name, fmt::format("expected {}", kind == ValueKind::Integer  ? "an integer"
                                         : kind == ValueKind::Real   ? "a number"
                                         : kind == ValueKind::Switch ? "on or off"
                                                                     : "a text"));
  };
  switch (kind) {
    case ValueKind::Integer: {
      const auto* v = std::get_if<std::int64_t>(&value);
      if (v == nullptr) return wrong_kind();
      require_integer_range(name, static_cast<long>(*v), static_cast<long>(lo),
                            static_cast<long>(hi));
      return *v;
    }
    case ValueKind::Real: {
      double v = 0.0;
      if (const auto* i = std::get_if<std::int64_t>(&value)) {
        v = static_cast<double>(*i);
      } else if (const auto* d = std::get_if<double>(&value)) {
        v = *d;
      } else {
        return wrong_kind();
      }
      if (!std::isfinite(v)) {
        bad(name,
            fmt::format("expected a number in {}, got {}", real_range(lo, hi, lo_inclusive), v));
      }
      require_real_range(name, v, lo, hi, lo_inclusive);
      return v == 0.0 ? 0.0 : v;
    }
    case ValueKind::Switch:
      if (const auto* b = std::get_if<bool>(&value)) return *b;
      if (const auto* s = std::get_if<std::string>(&value)) return parse(*s);
      return wrong_kind();
    case ValueKind::Choice:
    case ValueKind::Text:
      if (const auto* s = std::get_if<std::string>(&value)) return parse(*s);
      return wrong_kind();
  }
  PIPESIM_ASSERT(false, "unknown value kind");
  return {};
}

std::string OptionSpec::format(const OptionValue& value) const {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>) {
          return v ? "on" : "off";
        } else if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

std::string OptionSpec::type_name() const {
  if (!value_name.empty()) return value_name;
  switch (kind) {
    case ValueKind::Integer:
      return "INT";
    case ValueKind::Real:
      return "NUMBER";
    case ValueKind::Switch:
      return joined(on_off());
    case ValueKind::Choice:
      return joined(choices);
    case ValueKind::Text:
      return "TEXT";
  }
  return {};
}

OptionSpec integer_option(std::string name, long lo, long hi, std::string default_text,
                          std::string help) {
  OptionSpec o;
  o.name = std::move(name);
  o.kind = ValueKind::Integer;
  o.lo = static_cast<double>(lo);
  o.hi = static_cast<double>(hi);
  o.default_text = std::move(default_text);
  o.help = std::move(help);
  return o;
}

OptionSpec real_option(std::string name, double lo, double hi, std::string default_text,
                       std::string help, bool lo_inclusive) {
  OptionSpec o;
  o.name = std::move(name);
  o.kind = ValueKind::Real;
  o.lo = lo;
  o.hi = hi;
  o.lo_inclusive = lo_inclusive;
  o.default_text = std::move(default_text);
  o.help = std::move(help);
  return o;
}

OptionSpec switch_option(std::string name, bool default_on, std::string help) {
  OptionSpec o;
  o.name = std::move(name);
  o.kind = ValueKind::Switch;
  o.default_text = default_on ? "on" : "off";
  o.help = std::move(help);
  return o;
}

OptionSpec choice_option(std::string name, std::vector<std::string> choices,
                         std::string default_text, std::string help) {
  OptionSpec o;
  o.name = std::move(name);
  o.kind = ValueKind::Choice;
  o.choices = std::move(choices);
  o.default_text = std::move(default_text);
  o.help = std::move(help);
  return o;
}

OptionSpec text_option(std::string name, std::string default_text, std::string help) {
  OptionSpec o;
  o.name = std::move(name);
  o.kind = ValueKind::Text;
  o.default_text = std::move(default_text);
  o.help = std::move(help);
  return o;
}

OptionSpec with_unused_text(OptionSpec spec, std::string text) {
  spec.unused_text = std::move(text);
  return spec;
}

const OptionValue* OptionValues::find(std::string_view name) const {
  const auto it =
      std::lower_bound(values_.begin(), values_.end(), name,
                       [](const auto& item, std::string_view n) { return item.first < n; });
  return it != values_.end() && it->first == name ? &it->second : nullptr;
}

void OptionValues::set(std::string_view name, OptionValue value) {
  const auto it =
      std::lower_bound(values_.begin(), values_.end(), name,
                       [](const auto& item, std::string_view n) { return item.first < n; });
  if (it != values_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    values_.emplace(it, std::string(name), std::move(value));
  }
}

void OptionValues::erase(std::string_view name) {
  std::erase_if(values_, [&](const auto& item) { return item.first == name; });
}

namespace {

template <class T>
const T& typed(const OptionValues& values, std::string_view name) {
  const OptionValue* v = values.find(name);
  PIPESIM_ASSERT(v != nullptr && std::holds_alternative<T>(*v), "option read as the wrong kind");
  return std::get<T>(*v);
}

}  // namespace

std::int64_t OptionValues::integer(std::string_view name) const {
  return typed<std::int64_t>(*this, name);
}
double OptionValues::real(std::string_view name) const {
  return typed<double>(*this, name);
}
bool OptionValues::on(std::string_view name) const {
  return typed<bool>(*this, name);
}
const std::string& OptionValues::text(std::string_view name) const {
  return typed<std::string>(*this, name);
}

}  // namespace pipesim::core
