// The shipped-data search (core/shipped_files.hpp): each branch of the order
// $PIPESIM_DATA_DIR → <exe dir>/../share/pipesim → source tree, and the errors when it fails.

#include "pipesim/core/shipped_files.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "pipesim/core/config_error.hpp"

namespace fs = std::filesystem;
using pipesim::core::ConfigError;
using pipesim::core::DataDirSearch;
using pipesim::core::find_data_dir;

namespace {

// A scratch tree per test: prefix/bin/pipesim, prefix/share/pipesim/models/m.yaml, src/.
class ShippedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("pipesim-shipped-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "prefix/bin");
    fs::create_directories(root_ / "prefix/share/pipesim/models");
    std::ofstream(root_ / "prefix/share/pipesim/models/m.yaml") << "name: m\n";
    fs::create_directories(root_ / "src/models");
    fs::create_directories(root_ / "env");
  }
  void TearDown() override { fs::remove_all(root_); }

  DataDirSearch search() const {
    return {std::nullopt, {}, root_ / "prefix/bin/pipesim", "../share/pipesim", root_ / "src"};
  }

  fs::path root_;
};

std::string error_of(const DataDirSearch& s) {
  try {
    find_data_dir(s);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(ShippedFiles, EnvironmentWinsOverEverything) {
  DataDirSearch s = search();
  s.env = (root_ / "env").string();
  EXPECT_EQ(find_data_dir(s), root_ / "env");
}

TEST_F(ShippedFiles, EmptyEnvironmentCountsAsUnset) {
  DataDirSearch s = search();
  s.env = "";
  EXPECT_EQ(find_data_dir(s), root_ / "prefix/share/pipesim");
}

TEST_F(ShippedFiles, EnvironmentNamingNoDirectoryIsAnErrorNotAFallThrough) {
  DataDirSearch s = search();
  s.env = (root_ / "missing").string();
  EXPECT_EQ(error_of(s), "environment: PIPESIM_DATA_DIR: '" + (root_ / "missing").string() +
                             "' is not a directory (it must hold models/ and hardware/)");
}

TEST_F(ShippedFiles, TheInstallationAProgramWasBuiltAgainstWinsOverTheExecutable) {
  // An embedding program lives in its own prefix: the pipesim it found with find_package
  // provides the data, not <program>/../share/pipesim (which here has a model too).
  fs::create_directories(root_ / "pipesim-prefix/share/pipesim/models");
  DataDirSearch s = search();
  s.installed = root_ / "pipesim-prefix/share/pipesim";
  EXPECT_EQ(find_data_dir(s), root_ / "pipesim-prefix/share/pipesim");
  s.env = (root_ / "env").string();  // the environment still overrides it
  EXPECT_EQ(find_data_dir(s), root_ / "env");
}

TEST_F(ShippedFiles, AnInstallationThatIsGoneFallsThroughAndIsNamed) {
  DataDirSearch s = search();
  s.installed = root_ / "removed/share/pipesim";
  EXPECT_EQ(find_data_dir(s), root_ / "prefix/share/pipesim");
  fs::remove_all(root_ / "prefix/share");
  fs::remove_all(root_ / "src");
  EXPECT_NE(error_of(s).find((root_ / "removed/share/pipesim").string() + ", "), std::string::npos)
      << error_of(s);
}

TEST_F(ShippedFiles, TheLibraryAloneDefinesNoInstallation) {
  // Only a find_package consumer compiles installed_data_dir(); this test links the library.
  EXPECT_TRUE(&pipesim::core::installed_data_dir == nullptr);
}

TEST_F(ShippedFiles, InstalledLayoutIsFoundRelativeToTheExecutable) {
  EXPECT_EQ(find_data_dir(search()), root_ / "prefix/share/pipesim");
}

TEST_F(ShippedFiles, MovedPrefixIsFoundAtItsNewPlace) {
  fs::rename(root_ / "prefix", root_ / "moved");
  DataDirSearch s = search();
  s.executable = root_ / "moved/bin/pipesim";
  EXPECT_EQ(find_data_dir(s), root_ / "moved/share/pipesim");
}

TEST_F(ShippedFiles, SourceTreeIsTheLastFallback) {
  fs::remove_all(root_ / "prefix/share");
  EXPECT_EQ(find_data_dir(search()), root_ / "src");
}

TEST_F(ShippedFiles, NothingFoundNamesEveryPlaceLookedIn) {
  fs::remove_all(root_ / "prefix/share");
  fs::remove_all(root_ / "src");
  EXPECT_EQ(error_of(search()),
            "shipped data: no folder with models/ and hardware/ found (looked in: "
            "$PIPESIM_DATA_DIR (unset), " +
                (root_ / "prefix/share/pipesim").string() + ", " + (root_ / "src").string() +
                "); set PIPESIM_DATA_DIR to one");
}

// Sets $PIPESIM_DATA_DIR for one scope (each ctest case is its own process).
class ScopedDataDir {
 public:
  explicit ScopedDataDir(const fs::path& dir) { ::setenv("PIPESIM_DATA_DIR", dir.c_str(), 1); }
  ~ScopedDataDir() { ::unsetenv("PIPESIM_DATA_DIR"); }
  ScopedDataDir(const ScopedDataDir&) = delete;
  ScopedDataDir& operator=(const ScopedDataDir&) = delete;
};

std::string resolve_error(const std::string& name) {
  try {
    pipesim::core::resolve_shipped_yaml(name, "models", "model", "model");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(ShippedFiles, ThisProcessHonoursTheEnvironmentVariable) {
  const fs::path data = root_ / "prefix/share/pipesim";
  const ScopedDataDir scoped(data);
  EXPECT_EQ(pipesim::core::shipped_data_dir(), data);
  EXPECT_EQ(pipesim::core::shipped_names_in("models"), std::vector<std::string>{"m"});
  EXPECT_EQ(pipesim::core::resolve_shipped_yaml("m", "models", "model", "model"),
            (data / "models/m.yaml").string());
  EXPECT_EQ(resolve_error("nope"),
            "model: unknown model 'nope' (shipped: m; or a path to a YAML file)");
}

TEST_F(ShippedFiles, AMissingFolderInTheDataDirIsNamed) {
  const fs::path data = root_ / "prefix/share/pipesim";
  const ScopedDataDir scoped(data);
  try {
    pipesim::core::shipped_names_in("hardware");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              data.string() + ": hardware: missing: the shipped data has no such folder");
  }
}

TEST_F(ShippedFiles, APathNeedsNoDataDir) {
  const ScopedDataDir scoped(root_ / "missing");
  EXPECT_EQ(pipesim::core::resolve_shipped_yaml("some/where.yaml", "models", "model", "model"),
            "some/where.yaml");
  EXPECT_EQ(pipesim::core::resolve_shipped_yaml("here.yml", "models", "model", "model"),
            "here.yml");
}

}  // namespace
