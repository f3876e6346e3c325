#pragma once
// CSV as pipesim writes and reads it (RFC 4180): comma separated, '\n' line ends, a field is
// quoted when it holds a comma, a quote or a line break, and quotes inside it are doubled.

#include <string>
#include <string_view>
#include <vector>

namespace pipesim::report {

//! `field`, quoted when it needs to be.
std::string csv_field(std::string_view field);

//! The fields joined by commas, each quoted when it needs to be, and a '\n'.
std::string csv_line(const std::vector<std::string>& fields);

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  //!< each as wide as the header

  //! Index of column `name`; throws core::ConfigError(source, name, ...) listing the columns.
  size_t column(std::string_view source, std::string_view name) const;
};

//! Parses `text`; throws core::ConfigError naming `source` and the line for an unterminated
//! quote, an empty file or a row whose width differs from the header's.
CsvTable parse_csv(std::string_view source, std::string_view text);

}  // namespace pipesim::report
