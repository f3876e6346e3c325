// Planted violations: check_sources.py must report both (ctest lint_sources_catch_planted).
#include <stdexcept>
#include <string>

bool planted(const std::string& name) {
  if (name == "chimera") throw std::runtime_error("command line: --stages: planted");
  return name.starts_with("zb-");
}
