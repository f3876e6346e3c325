"""setup.py under a Python that cannot build wheels (no `wheel` package, setuptools without its
own bdist_wheel, as a pyenv build can be): it must stop with one line naming the interpreter and
the fix, not setuptools' "invalid command 'bdist_wheel'". The imports are blocked by setting
their sys.modules entries to None, which makes `import` raise ImportError."""

import contextlib
import io
import os
import sys

root = sys.argv[1]
for blocked in ("wheel", "wheel.bdist_wheel", "setuptools.command.bdist_wheel"):
    sys.modules[blocked] = None
sys.argv = [os.path.join(root, "setup.py"), "bdist_wheel"]
os.chdir(root)
with open("setup.py", encoding="utf-8") as f:
    code = compile(f.read(), "setup.py", "exec")
try:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, {"__name__": "__main__", "__file__": sys.argv[0]})
except SystemExit as stop:
    message = str(stop.code)
    assert "'wheel' package" in message, message
    assert sys.executable in message, message
    assert "/usr/bin/python3" in message, message
    assert "\n" not in message, message
    print("setup.py stops with:", message)
    sys.exit(0)
sys.exit("setup.py went on without the wheel package")
