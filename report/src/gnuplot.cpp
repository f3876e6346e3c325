#include "pipesim/report/gnuplot.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/config_error.hpp"

extern char** environ;

namespace pipesim::report {
namespace {

namespace fs = std::filesystem;

// Text is never "enhanced": an underscore in `micro_batches` stays an underscore.
std::string terminal_for(const fs::path& figure) {
  const std::string ext = figure.extension().string();
  if (ext == ".svg") {
    return "set terminal svg size 900,560 dynamic noenhanced font 'Helvetica,12' "
           "background rgb 'white'";
  }
  if (ext == ".png") {
    return "set terminal pngcairo size 1100,690 noenhanced font 'Helvetica,11' "
           "background rgb 'white'";
  }
  if (ext == ".pdf") return "set terminal pdfcairo size 7in,4.4in noenhanced font 'Helvetica,10'";
  throw core::ConfigError(
      figure.string(), "figure",
      fmt::format("extension must be .svg, .png or .pdf, got '{}'", ext.empty() ? "none" : ext));
}

std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  const size_t nl = text.find_last_of('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

struct SpawnResult {
  int exit_code = 0;
  std::string stderr_text;
};

// Runs argv in `dir` with stdout discarded and stderr captured. Throws ConfigError when the
// program cannot be started.
SpawnResult spawn(const std::string& program, std::vector<std::string> args, const fs::path& dir,
                  const std::string& script) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) {
    throw core::ConfigError("gnuplot", "pipe", std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::vector<char*> argv;
  args.insert(args.begin(), program);
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (rc != 0) {
    ::close(pipe_fds[0]);
    throw core::ConfigError(
        fmt::format("{}: cannot run '{}' ({}); install gnuplot (tools/install-deps.sh) or name "
                    "its path (gnuplot option); the script is in {}",
                    rc == ENOENT ? "gnuplot not found" : "gnuplot failed to start", program,
                    std::strerror(rc), script));
  }
  SpawnResult result;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) result.stderr_text.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // posix_spawnp reports a failed exec of an existing path as exit code 127.
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace

std::string gnuplot_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string render_figure(const std::string& figure_path, const GnuplotFigure& fig,
                          const std::string& gnuplot) {
  const fs::path figure = fs::absolute(figure_path);
  const std::string terminal = terminal_for(figure);
  const std::string name = figure.filename().string();
  if (name.find_first_of("'\"\\") != std::string::npos) {
    throw core::ConfigError::option("output",
                                    fmt::format("figure name '{}' must not hold quotes", name));
  }
  const fs::path dir = figure.parent_path();
  const fs::path script = fs::path(figure).replace_extension(".gp");
  const fs::path data = fs::path(figure).replace_extension(".dat");
  std::string text = fmt::format(
      "# Written by pipesim. Restyle freely, then rerun `gnuplot {}` in this folder.\n"
      "if (!exists(\"outfile\")) outfile = {}\n"
      "datafile = {}\n"
      "{}\n"
      "set output outfile\n",
      script.filename().string(), gnuplot_string(name), gnuplot_string(data.filename().string()),
      terminal);
  text += fig.body;
  core::write_file_atomically(data, fig.data);
  core::write_file_atomically(script, text);

  const std::string temp =
      fmt::format(".{}.{}.tmp{}", figure.stem().string(), ::getpid(), figure.extension().string());
  const SpawnResult r =
      spawn(gnuplot, {"-e", fmt::format("outfile='{}'", temp), script.filename().string()}, dir,
            script.string());
  std::error_code ec;
  const fs::path rendered = dir / temp;
  if (r.exit_code != 0 || !fs::exists(rendered) || fs::file_size(rendered, ec) == 0) {
    fs::remove(rendered, ec);
    const std::string why = last_line(r.stderr_text);
    throw core::ConfigError(
        fmt::format("gnuplot failed (exit {}) rendering {}{}{}; the script is in {}", r.exit_code,
                    figure.string(), why.empty() ? "" : ": ", why, script.string()));
  }
  fs::rename(rendered, figure, ec);
  if (ec) {
    fs::remove(rendered, ec);
    throw core::ConfigError(figure.string(), "write", ec.message());
  }
  return r.stderr_text;
}

}  // namespace pipesim::report
