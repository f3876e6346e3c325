# Sourced by the tools/make-*.sh scripts, from the repository root: sets $bin to the pipesim
# executable ($PIPESIM, or the release build's, built first when it is missing).
bin=${PIPESIM:-build/release/tools/pipesim}
if [ ! -x "$bin" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc)" --target pipesim
fi
