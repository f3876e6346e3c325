#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "output.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/sweep/part_merge.hpp"

namespace pipesim::cli {

Action add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> parts;
    std::string output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Merge the part files of `sweep --shard i/K` (every shard once, any order) into the CSV "
      "the single-process sweep writes, byte for byte");
  cmd->add_option("parts", o->parts, "Part files, one per shard")->required()->type_name("PART...");
  cmd->add_option("--output,-o", o->output, "Write the CSV to this file (atomically)")
      ->type_name("PATH")
      ->group("Output");
  return [o] {
    const std::vector<std::filesystem::path> parts(o->parts.begin(), o->parts.end());
    if (o->output.empty() || o->output == "-") {
      sweep::merge_parts(parts, [](std::string_view text) { emit("", text); });
      return 0;
    }
    core::AtomicFileWriter out(o->output);  // a refused part leaves no output behind
    sweep::merge_parts(parts, [&](std::string_view text) { out.write(text); });
    out.commit();
    return 0;
  };
}

}  // namespace pipesim::cli
