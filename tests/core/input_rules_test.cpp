// Input rules shared by every reader: printable echoes, text files (BOM, directories), the task
// budget. The failures once found at this layer, each with its exact input.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "pipesim/core/budget.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/printable.hpp"
#include "pipesim/core/text_file.hpp"

namespace pipesim::core {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("pipesim-input-" + std::to_string(::getpid()) + "-" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  return dir / name;
}

TEST(Printable, EscapesEveryControlByteAndKeepsTextAndUtf8) {
  EXPECT_EQ(printable("plain name-1.yaml"), "plain name-1.yaml");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable(std::string_view("\x1b[31m\0\x7f", 7)), "\\x1b[31m\\x00\\x7f");
  EXPECT_EQ(printable("h\xc3\xa9"), "h\xc3\xa9");  // é stays é
  for (int c = 0; c < 256; ++c) {
    const std::string out = printable(std::string(1, static_cast<char>(c)));
    for (const char o : out) {
      const auto u = static_cast<unsigned char>(o);
      EXPECT_TRUE(u >= 0x20 && u != 0x7f) << "byte " << c << " escaped to " << out;
    }
  }
}

TEST(Printable, ConfigErrorsAreAlwaysOneLine) {
  const ConfigError e("bad\nfile.yaml", "key\r", "got '\x1b]0;title\x07'");
  const std::string what = e.what();
  EXPECT_EQ(what, "bad\\nfile.yaml: key\\r: got '\\x1b]0;title\\x07'");
  EXPECT_EQ(std::string(ConfigError(std::string("two\nlines")).what()), "two\\nlines");
}

TEST(TextFile, StripsALeadingByteOrderMarkOnly) {
  EXPECT_EQ(strip_bom("\xEF\xBB\xBFworkers 1"), "workers 1");
  EXPECT_EQ(strip_bom("workers 1\xEF\xBB\xBF"), "workers 1\xEF\xBB\xBF");
  EXPECT_EQ(strip_bom("\xEF\xBB"), "\xEF\xBB");
  const fs::path p = scratch("bom.txt");
  std::ofstream(p) << "\xEF\xBB\xBFname: x\n";
  EXPECT_EQ(read_text_file(p), "name: x\n");
}

void expect_file_error(const fs::path& p, const std::string& fragment) {
  try {
    read_text_file(p);
    ADD_FAILURE() << "read " << p;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(p.string() + ": file: "), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(TextFile, DirectoriesAndMissingFilesAreConfigErrors) {
  // `sweep --file <a directory>` aborted with std::__ios_failure.
  expect_file_error(scratch("x").parent_path(), "is a directory");
  expect_file_error(scratch("missing.yaml"), "cannot open: No such file or directory");
}

TEST(Budget, RefusesAboveTheLimitWithTheEstimate) {
  EXPECT_NO_THROW(check_task_budget("command line", "run", 1e6, Budget{}));
  EXPECT_NO_THROW(check_task_budget("command line", "run", kDefaultMaxTasks, Budget{}));
  try {
    check_task_budget("command line", "run", 4.3e9, Budget{});
    FAIL() << "accepted 4.3e9 tasks";
  } catch (const BudgetError& e) {
    EXPECT_DOUBLE_EQ(e.estimate(), 4.3e9);
    EXPECT_DOUBLE_EQ(e.limit(), kDefaultMaxTasks);
    const std::string what = e.what();
    EXPECT_NE(what.find("4.3e+09 tasks"), std::string::npos) << what;
    EXPECT_NE(what.find("430 GB"), std::string::npos) << what;
    EXPECT_NE(what.find("budget of 2e+07"), std::string::npos) << what;
  }
  EXPECT_THROW(check_task_budget("x", "run", 11, Budget{10}), BudgetError);
  EXPECT_THROW(check_task_budget("x", "run", std::nan(""), Budget{}), BudgetError);
  // Callers that know only ConfigError still catch it (one line, not an abort).
  EXPECT_THROW(check_task_budget("x", "run", 1e300, Budget{}), ConfigError);
}

}  // namespace
}  // namespace pipesim::core
