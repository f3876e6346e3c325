#include "pipesim/report/text_table.hpp"

#include <algorithm>
#include <charconv>

namespace pipesim::report {
namespace {

bool is_number(const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc{} && end == s.data() + s.size();
}

}  // namespace

std::string render_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c)
    width[c] = header[c].size();
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells, bool is_header) {
    std::string out;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      const std::string pad(width[c] - cell.size(), ' ');
      const bool last = c + 1 == width.size();
      if (c > 0) out += "  ";
      if (!is_header && is_number(cell)) {
        out += pad + cell;
      } else {
        out += cell + (last ? "" : pad);
      }
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  std::string out = line(header, true);
  for (const auto& row : rows)
    out += line(row, false);
  return out;
}

}  // namespace pipesim::report
