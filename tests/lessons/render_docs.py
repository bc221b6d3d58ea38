#!/usr/bin/env python3
"""Runs every lesson and renders it into the manual (make lessons).

    render_docs.py LESSONS_DIR DOCS_LESSONS_DIR

Each LESSONS_DIR/NAME.ipynb is executed headless (as tests/lessons/run_lesson.py does) and
written as DOCS_LESSONS_DIR/NAME.md with its figures in DOCS_LESSONS_DIR/NAME_files/. The page
says which notebook it comes from, the commit it ran on and how long it took. The notebooks in
the repository stay without outputs; these pages are their executed copies.
"""
import os
import shutil
import subprocess
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbconvert import MarkdownExporter


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    os.environ.pop("MPLBACKEND", None)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    for name in sorted(n for n in os.listdir(src) if n.endswith(".ipynb")):
        stem = name[:-len(".ipynb")]
        nb = nbformat.read(os.path.join(src, name), as_version=4)
        start = time.monotonic()
        NotebookClient(nb, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": os.path.abspath(src)}}).execute()
        took = time.monotonic() - start
        body, resources = MarkdownExporter().from_notebook_node(
            nb, resources={"output_files_dir": f"{stem}_files"})
        files = os.path.join(out, f"{stem}_files")
        shutil.rmtree(files, ignore_errors=True)
        for path, data in resources.get("outputs", {}).items():
            os.makedirs(os.path.dirname(os.path.join(out, path)), exist_ok=True)
            with open(os.path.join(out, path), "wb") as f:
                f.write(data)
        note = (f"*This page is the lesson notebook `lessons/{name}`, run by `make lessons` at commit "
                f"{commit or 'unknown'} (it took {took:.0f} s). Open the notebook in Jupyter to do the "
                f"exercises (the Python module must be built: `make`).*\n\n")
        with open(os.path.join(out, f"{stem}.md"), "w") as f:
            f.write(note + body)
        print(f"{name}: ran in {took:.1f} s -> {os.path.join(out, stem + '.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
