#include "pipesim/calibrate/hockney.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <set>
#include <stdexcept>

namespace pipesim::calibrate {

double bus_factor(std::string_view benchmark, int gpus) {
  const double n = gpus;
  if (benchmark == "all_reduce") return 2.0 * (n - 1.0) / n;
  if (benchmark == "all_gather" || benchmark == "reduce_scatter") return (n - 1.0) / n;
  return 1.0;
}

HockneyFit fit_hockney(const std::vector<HockneyPoint>& points) {
  std::set<double> sizes;
  for (const HockneyPoint& p : points) {
    if (!(p.seconds > 0) || !(p.bytes >= 0) || !(p.factor > 0)) {
      throw std::invalid_argument("Hockney points need seconds > 0, bytes >= 0, factor > 0");
    }
    sizes.insert(p.bytes);
  }
  if (sizes.size() < 2) throw std::invalid_argument("needs samples at 2 distinct message sizes");

  // Rows divided by t: minimise the relative residual (α + x·f·S)/t − 1, x = 1/β.
  const auto n = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const HockneyPoint& p = points[static_cast<size_t>(i)];
    a(i, 0) = 1.0 / p.seconds;
    a(i, 1) = p.factor * p.bytes / p.seconds;
  }
  Eigen::Vector2d sol = a.colPivHouseholderQr().solve(b);
  if (sol(0) < 0) {  // latency cannot be negative: pin α = 0, refit the bandwidth alone
    sol(0) = 0.0;
    sol(1) = a.col(1).dot(b) / a.col(1).squaredNorm();
  }
  if (!(sol(1) > 0) || !std::isfinite(sol(1))) {
    throw std::invalid_argument(
        "the fitted bandwidth is not positive (times do not grow with size)");
  }
  HockneyFit fit;
  fit.alpha = sol(0);
  fit.beta = 1.0 / sol(1);
  fit.samples = points.size();
  fit.rms_rel_error = std::sqrt((a * sol - b).squaredNorm() / static_cast<double>(n));
  return fit;
}

}  // namespace pipesim::calibrate
