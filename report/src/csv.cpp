#include "pipesim/report/csv.hpp"

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::report {

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(fields[i]);
  }
  return out + "\n";
}

size_t CsvTable::column(std::string_view source, std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  std::string names;
  for (const auto& h : header)
    names += (names.empty() ? "" : ", ") + h;
  throw core::ConfigError(source, name, fmt::format("no such column; columns are {}", names));
}

CsvTable parse_csv(std::string_view source, std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  size_t line = 1;
  size_t i = 0;
  auto end_record = [&] {
    record.push_back(std::move(field));
    field.clear();
    records.push_back(std::move(record));
    record.clear();
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"' && field.empty()) {
      const size_t opened = line;
      ++i;
      while (true) {
        if (i >= text.size()) {
          throw core::ConfigError(source, fmt::format("line {}", opened), "unterminated quote");
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        field += text[i++];
      }
      continue;
    }
    if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      end_record();
      ++line;
    } else if (c != '\r') {
      field += c;
    }
    ++i;
  }
  if (!field.empty() || !record.empty()) end_record();
  if (records.empty()) throw core::ConfigError(source, "line 1", "empty file, expected a header");
  CsvTable table;
  table.header = std::move(records.front());
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header.size()) {
      throw core::ConfigError(
          source, fmt::format("row {}", r + 1),
          fmt::format("has {} fields, the header has {}", records[r].size(), table.header.size()));
    }
    table.rows.push_back(std::move(records[r]));
  }
  return table;
}

}  // namespace pipesim::report
