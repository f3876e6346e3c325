#include "pipesim/calibrate/efficiency_curve.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pipesim::calibrate {

namespace {

// Hat function of knot j over the knot vector: 1 at knots[j], 0 at its neighbours, and flat
// (clamped) beyond the first and last knot, matching EfficiencyCurve::at.
double hat(const std::vector<double>& knots, size_t j, double x) {
  const double kj = knots[j];
  if (x <= kj) {
    if (j == 0) return 1.0;
    const double prev = knots[j - 1];
    return x <= prev ? 0.0 : (x - prev) / (kj - prev);
  }
  if (j + 1 == knots.size()) return 1.0;
  const double next = knots[j + 1];
  return x >= next ? 0.0 : (next - x) / (next - kj);
}

}  // namespace

CurveFit fit_efficiency_curve(const std::vector<std::pair<double, double>>& size_efficiency) {
  if (size_efficiency.size() < 2) {
    throw std::invalid_argument("needs at least 2 samples to fit an efficiency curve");
  }
  double min_size = INFINITY, max_size = -INFINITY;
  for (const auto& [size, eff] : size_efficiency) {
    if (!(size > 0) || !std::isfinite(eff)) throw std::invalid_argument("sizes must be > 0");
    min_size = std::min(min_size, size);
    max_size = std::max(max_size, size);
  }
  const double lo = std::log10(min_size), hi = std::log10(max_size);
  if (hi - lo < 1e-9) throw std::invalid_argument("needs samples at 2 distinct sizes");
  // Knots at the smallest and largest measured size and at every whole decade between them
  // (none closer than a quarter decade to an end): the table never extrapolates beyond data.
  std::vector<double> knots{lo};
  for (double d = std::ceil(lo + 0.25); d < hi - 0.25; d += 1.0)
    knots.push_back(d);
  knots.push_back(hi);

  // Drop knots whose hat carries less than half a sample's weight, then refit, until stable.
  const auto n = static_cast<Eigen::Index>(size_efficiency.size());
  Eigen::MatrixXd a;
  for (;;) {
    a.setZero(n, static_cast<Eigen::Index>(knots.size()));
    for (Eigen::Index i = 0; i < n; ++i) {
      const double x = std::log10(size_efficiency[static_cast<size_t>(i)].first);
      for (size_t j = 0; j < knots.size(); ++j)
        a(i, static_cast<Eigen::Index>(j)) = hat(knots, j, x);
    }
    std::vector<double> kept;
    for (size_t j = 0; j < knots.size(); ++j) {
      if (a.col(static_cast<Eigen::Index>(j)).sum() >= 0.5) kept.push_back(knots[j]);
    }
    if (kept.size() == knots.size() || kept.size() < 2) break;
    knots = kept;
  }
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i)
    b(i) = size_efficiency[static_cast<size_t>(i)].second;
  const Eigen::VectorXd values = a.colPivHouseholderQr().solve(b);

  CurveFit fit;
  fit.samples = size_efficiency.size();
  std::vector<std::pair<double, double>> points;
  for (size_t j = 0; j < knots.size(); ++j) {
    double v = values(static_cast<Eigen::Index>(j));
    if (!std::isfinite(v))
      throw std::invalid_argument("the fit is not finite (degenerate samples)");
    if (v < kMinEfficiency || v > 1.0) {
      fit.clamped = true;
      v = std::clamp(v, kMinEfficiency, 1.0);
    }
    // The end knots are the smallest and largest measured sizes, exactly (10^log10 would not
    // give them back bit for bit); the inner ones whole decades.
    const double size = knots[j] == lo   ? min_size
                        : knots[j] == hi ? max_size
                                         : std::pow(10.0, knots[j]);
    points.emplace_back(size, v);
  }
  fit.curve = EfficiencyCurve{std::move(points)};
  double sq = 0.0;
  for (const auto& [size, eff] : size_efficiency)
    sq += std::pow(fit.curve.at(size) - eff, 2);
  fit.rms_error = std::sqrt(sq / static_cast<double>(size_efficiency.size()));
  return fit;
}

}  // namespace pipesim::calibrate
