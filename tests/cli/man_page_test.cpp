// pipesim(1) is generated from the registered options: it has every section a manual page
// needs, renders without warnings, and names every option of the table, every alias and every
// derived option; the completion script offers the shipped models and hardware profiles.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../support/cli_invoke.hpp"
#include "cli/flags.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/derived.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::cli {
namespace {

using pipesim::testing::ScratchDir;
const auto invoke = &pipesim::testing::invoke_cli;

// "--micro-batches" as roff writes it: "\-\-micro\-batches".
std::string roff_flag(const std::string& flag) {
  std::string out;
  for (char c : flag)
    out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

// Output and exit status of a shell command.
std::pair<int, std::string> shell(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    out.append(buffer, n);
  return {::pclose(pipe), out};
}

TEST(ManPage, HasEverySectionAndEveryOption) {
  const auto r = invoke({"--man-page"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string& page = r.out;
  for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXAMPLES",
                              "EXIT STATUS", "ENVIRONMENT", "FILES"}) {
    EXPECT_NE(page.find(std::string(".SH ") + section + "\n"), std::string::npos) << section;
  }
  for (const scenario::Option& o : scenario::options()) {
    EXPECT_NE(page.find("\\fB" + roff_flag(flag_of(o.name())) + "\\fR"), std::string::npos)
        << o.name();
    for (const std::string& alias : o.aliases)
      EXPECT_NE(page.find(roff_flag(flag_of(alias))), std::string::npos) << alias;
  }
  for (const core::OptionSpec& d : scenario::derived_options())
    EXPECT_NE(page.find(roff_flag(flag_of(d.name))), std::string::npos) << d.name;
  for (const char* command : {"simulate", "sweep", "compare", "search", "plot", "list"})
    EXPECT_NE(page.find(std::string(".SS ") + command + "\n"), std::string::npos) << command;
  EXPECT_NE(page.find("\\-\\-max\\-tasks"), std::string::npos);
}

TEST(ManPage, RendersWithoutWarnings) {
  if (shell("command -v groff >/dev/null 2>&1").first != 0) {
    GTEST_SKIP() << "groff is not installed; the sections are checked by HasEverySection";
  }
  ScratchDir dir;
  const std::string page = dir.write("pipesim.1", invoke({"--man-page"}).out);
  // -k: preconv, as man(1) runs it (the help holds UTF-8); -P-cbou: plain text, no
  // overstriking; -ww: every warning, to a file.
  const auto [status, text] =
      shell("groff -k -man -Tutf8 -P-cbou -ww '" + page + "' 2>'" + dir.file("warnings") + "'");
  EXPECT_EQ(status, 0);
  EXPECT_EQ(ScratchDir::read(dir.file("warnings")), "");
  EXPECT_NE(text.find("EXIT STATUS"), std::string::npos);
  EXPECT_NE(text.find("--micro-batches"), std::string::npos);  // \- renders as an ASCII hyphen
}

TEST(Completion, OffersShippedModelAndHardwareNames) {
  const auto r = invoke({"--completion-bash"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string models, profiles;
  for (const std::string& m : models::shipped_models())
    models += (models.empty() ? "" : " ") + m;
  for (const std::string& h : hardware::shipped_profiles())
    profiles += (profiles.empty() ? "" : " ") + h;
  ASSERT_FALSE(models.empty());
  EXPECT_NE(r.out.find("\"simulate:--model\") words=\"" + models + "\""), std::string::npos);
  EXPECT_NE(r.out.find("\"simulate:--hardware\") words=\"" + profiles + "\""), std::string::npos);
  if (shell("command -v bash >/dev/null 2>&1").first == 0) {
    ScratchDir dir;
    const std::string script = dir.write("pipesim.bash", r.out);
    // What bash offers after `pipesim simulate --model gpt`.
    const auto [status, offered] =
        shell("bash -c 'source \"" + script +
              "\"; COMP_WORDS=(pipesim simulate --model gpt); COMP_CWORD=3; _pipesim; "
              "printf \"%s\\n\" \"${COMPREPLY[@]}\"'");
    EXPECT_EQ(status, 0);
    EXPECT_NE(offered.find("gpt2-1.3b\n"), std::string::npos) << offered;
    EXPECT_EQ(offered.find("bert-48"), std::string::npos) << offered;  // filtered by the prefix
  }
}

}  // namespace
}  // namespace pipesim::cli
