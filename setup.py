"""Builds the `pipesim` Python module (python/, pybind11) with CMake for setuptools, so that
`pip install --no-build-isolation .` works with Debian 12's own setuptools (pyproject.toml).

The extension is built by CMake, not by setuptools: build_ext runs

  * by default, a fresh Release configure of this source tree under setuptools' build_temp
    with only what the module needs (no tests, benchmarks, fuzzers, CUDA benchmarks or MPI),
    then `cmake --build --target pipesim_python`;
  * with PIPESIM_CMAKE_BUILD_DIR=DIR (an existing configured build of this tree, e.g.
    build/release), only `cmake --build DIR --target pipesim_python` there: a build that is
    up to date costs seconds instead of a second full build of the library.

and copies DIR/python/pipesim<EXT_SUFFIX> into the wheel. CMAKE_ARGS (split on spaces) adds
configure arguments to a fresh build (e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache);
CMAKE_BUILD_PARALLEL_LEVEL sets the build jobs (default: the CPU count).

The shipped data (models, hardware, validation runs), the examples and the output schema are
installed as data files into <prefix>/share/pipesim, where the module finds them (a venv's
<venv>/lib/pythonX.Y/site-packages/../../../share/pipesim, the same place a
`cmake --install` prefix has them).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def require_wheel():
    """pip builds a wheel through setuptools' bdist_wheel, which the `wheel` package adds to
    setuptools older than 70.1 (Debian 12's 66). Without it setuptools stops on "invalid command
    'bdist_wheel'"; say instead what is missing and where it comes from."""
    if "bdist_wheel" not in sys.argv:
        return
    try:
        import setuptools.command.bdist_wheel  # noqa: F401  (setuptools >= 70.1)
        return
    except ImportError:
        pass
    try:
        import wheel.bdist_wheel  # noqa: F401
    except ImportError:
        sys.exit(f"setup.py: building the pipesim wheel needs the 'wheel' package for "
                 f"{sys.executable}, which lacks it. Use Debian's /usr/bin/python3 (apt install "
                 f"python3-wheel python3-venv; /usr/bin/python3 -m venv --system-site-packages "
                 f"venv), or install wheel into this Python.")


require_wheel()


def version():
    """The version of CMakeLists.txt's project(), the one `pipesim --version` prints."""
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(pipesim\s+VERSION\s+([0-9.]+)", text)
    if not match:
        raise RuntimeError("setup.py: no project(pipesim VERSION ...) in CMakeLists.txt")
    return match.group(1)


def run(command):
    print("setup.py:", " ".join(shlex.quote(str(c)) for c in command), flush=True)
    subprocess.run([str(c) for c in command], check=True)


class CMakeBuild(build_ext):
    """build_ext for the one CMake-built extension."""

    def build_extension(self, ext):
        reuse = os.environ.get("PIPESIM_CMAKE_BUILD_DIR")
        if reuse:
            build = Path(reuse)
            if not build.is_absolute():
                build = ROOT / build
            if not (build / "CMakeCache.txt").is_file():
                raise RuntimeError(f"PIPESIM_CMAKE_BUILD_DIR: '{build}' is not a configured "
                                   "CMake build (no CMakeCache.txt); configure it first, e.g. "
                                   "cmake --preset release")
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                 "-DPIPESIM_BUILD_TESTS=OFF", "-DPIPESIM_BUILD_BENCHMARKS=OFF",
                 "-DPIPESIM_BUILD_FUZZERS=OFF", "-DPIPESIM_BUILD_CUDA_BENCH=OFF",
                 "-DPIPESIM_BUILD_MPI=OFF", "-DPIPESIM_BUILD_PYTHON=ON",
                 f"-DPython3_EXECUTABLE={sys.executable}",
                 *shlex.split(os.environ.get("CMAKE_ARGS", ""))])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        run(["cmake", "--build", build, "--target", "pipesim_python", "--parallel", jobs])
        built = build / "python" / ("pipesim" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.is_file():
            found = sorted(p.name for p in (build / "python").glob("pipesim*.so"))
            raise RuntimeError(f"setup.py: {built} was not built (found: {found or 'none'}): "
                               f"the build is for another Python than {sys.executable}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


def data_files():
    """<prefix>/share/pipesim/... ← the folders `cmake --install` puts there."""
    folders = {
        "models": ["models/*.yaml"],
        "hardware": ["hardware/*.yaml"],
        "validation": ["validation/*.yaml"],
        "validation/ranges": ["validation/ranges/prediction-ranges.yaml"],
        "examples": ["examples/*"],
        "schema": ["docs/schema/pipesim-output.schema.json"],
        "calibrate": ["calibrate/examples/*", "tools/fit-profile.py"],
    }
    return [(f"share/pipesim/{folder}",
             sorted(str(p.relative_to(ROOT)) for pattern in patterns for p in ROOT.glob(pattern)
                    if p.is_file()))
            for folder, patterns in folders.items()]


setup(
    version=version(),
    ext_modules=[Extension("pipesim", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    packages=[],
    py_modules=[],
    data_files=data_files(),
    zip_safe=False,
)
