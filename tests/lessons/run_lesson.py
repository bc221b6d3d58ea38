#!/usr/bin/env python3
"""Runs one lesson notebook headless, as CI does, and fails on any error in it.

    run_lesson.py lessons/02_pic_flip.ipynb [--timeout 120] [--out executed.ipynb]

The kernel is Debian's python3 (python3-ipykernel); the notebook runs in its own folder
(lessons/), and finds fluid_sandbox through PYTHONPATH (CTest sets it to build/python) or its
own first cell (../build/python). Prints the wall time it took.
"""
import argparse
import os
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook")
    ap.add_argument("--timeout", type=int, default=120, help="seconds a cell may take")
    ap.add_argument("--out", help="write the executed notebook here")
    a = ap.parse_args()
    nb = nbformat.read(a.notebook, as_version=4)
    os.environ.pop("MPLBACKEND", None)  # the kernel draws inline, as in Jupyter
    client = NotebookClient(nb, timeout=a.timeout, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(os.path.abspath(a.notebook))}})
    start = time.monotonic()
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{a.notebook}: a cell failed:\n{e}", file=sys.stderr)
        return 1
    finally:
        if a.out:
            nbformat.write(nb, a.out)
    print(f"{a.notebook}: ran in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
