#!/usr/bin/env python3
"""Installs the built module into a virtual environment, without the internet (make python-install).

    install.py BUILD_PYTHON_DIR VENV

Copies BUILD_PYTHON_DIR/fluid_sandbox into the environment's site-packages. The environment's
Python must be the one the module was built for (its version is in the module's file name) and
must see NumPy: `python3 -m venv --system-site-packages VENV` (Debian's /usr/bin/python3) gives it
Debian's NumPy and matplotlib.
"""
import glob
import os
import shutil
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    source, venv = os.path.join(sys.argv[1], "fluid_sandbox"), sys.argv[2]
    python = os.path.join(venv, "bin", "python")
    if not glob.glob(os.path.join(source, "_core*.so")):
        print(f"python-install: {source}: no built module (run make first)", file=sys.stderr)
        return 2
    if not os.access(python, os.X_OK):
        print(f"python-install: {venv}: not a virtual environment (no bin/python); make one with "
              f"/usr/bin/python3 -m venv --system-site-packages {venv}", file=sys.stderr)
        return 2
    probe = subprocess.run([python, "-c", "import sysconfig, importlib.machinery as m; "
                            "print(sysconfig.get_paths()['platlib']); print(' '.join(m.EXTENSION_SUFFIXES))"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    site, suffixes = probe[0], probe[1].split()
    built = os.path.basename(glob.glob(os.path.join(source, "_core*.so"))[0])[len("_core"):]
    if built not in suffixes:
        print(f"python-install: {venv}'s Python takes modules named *{suffixes[0]}, the module was built as "
              f"_core{built}: make the environment from the Python it was built for (/usr/bin/python3)",
              file=sys.stderr)
        return 2
    target = os.path.join(site, "fluid_sandbox")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    print(f"python-install: fluid_sandbox installed into {target}")
    check = subprocess.run([python, "-c", "import fluid_sandbox"], capture_output=True, text=True)
    if check.returncode != 0:
        print(f"python-install: installed, but it does not import there:\n{check.stderr.strip()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
