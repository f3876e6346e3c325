#pragma once
// Distinct types for quantities whose swap would be a silent bug (seconds vs bytes vs FLOPs).
// Same-unit arithmetic and scaling are allowed; mixing units needs an explicit .value.

#include <compare>

namespace pipesim::core {

template <class Tag>
struct Quantity {
  double value = 0.0;

  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}

  constexpr auto operator<=>(const Quantity&) const = default;
  constexpr Quantity operator+(Quantity o) const { return Quantity(value + o.value); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value - o.value); }
  constexpr Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value -= o.value;
    return *this;
  }
  constexpr Quantity operator*(double k) const { return Quantity(value * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value / k); }
  constexpr double operator/(Quantity o) const { return value / o.value; }
  friend constexpr Quantity operator*(double k, Quantity q) { return Quantity(k * q.value); }
};

using Seconds = Quantity<struct SecondsTag>;
using Bytes = Quantity<struct BytesTag>;
using Flops = Quantity<struct FlopsTag>;

}  // namespace pipesim::core
