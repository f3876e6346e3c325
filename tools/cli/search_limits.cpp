#include "search_limits.hpp"

namespace pipesim::cli {

SearchLimits search_limits(const std::string& /*model*/, const std::string& /*hardware*/) {
  return {};  // the performance model fills this in
}

}  // namespace pipesim::cli
