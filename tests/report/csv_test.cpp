// CSV writing and reading: quoting where needed, and the reader gets back what was written.

#include "pipesim/report/csv.hpp"

#include <gtest/gtest.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::report {
namespace {

TEST(Csv, QuotesOnlyFieldsThatNeedIt) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_line({"x", "", "y,z"}), "x,,\"y,z\"\n");
}

TEST(Csv, ParseReadsBackWhatWasWritten) {
  const std::vector<std::string> header{"name", "note", "value"};
  const std::vector<std::string> row{"invalid: a, b", "quote \" and\nnewline", ""};
  const CsvTable t = parse_csv("t.csv", csv_line(header) + csv_line(row));
  EXPECT_EQ(t.header, header);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0], row);
  EXPECT_EQ(t.column("t.csv", "value"), 2u);
}

TEST(Csv, ErrorsNameFileAndPlace) {
  auto message = [](const std::string& text) {
    try {
      parse_csv("t.csv", text);
    } catch (const core::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(""), "t.csv: line 1: empty file, expected a header");
  EXPECT_EQ(message("a,b\n1,2,3\n"), "t.csv: row 2: has 3 fields, the header has 2");
  EXPECT_EQ(message("a,b\n\"1,2\n"), "t.csv: line 2: unterminated quote");
  const CsvTable t = parse_csv("t.csv", "a,b\n1,2\n");
  EXPECT_THROW(t.column("t.csv", "c"), core::ConfigError);
}

}  // namespace
}  // namespace pipesim::report
