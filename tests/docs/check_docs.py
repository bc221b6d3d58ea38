#!/usr/bin/python3
"""The docs test: the manual builds, every page is reachable, every link lands, every marked
command runs.

    tests/docs/check_docs.py BINARY SOURCE_DIR [--no-window] [--jobs N] [--skip-mkdocs]

1. `mkdocs build --strict` of SOURCE_DIR/mkdocs.yml into a temporary folder: any warning fails.
2. Every .md under docs/ is in mkdocs.yml's nav (no orphan page), and every relative link or
   picture of README.md and docs/**/*.md names a file that exists.
3. Every MARKED command block of README.md and docs/**/*.md runs. The mark is an HTML comment on
   the line just before a fenced block:
       <!-- docs-test: run -->          each command must exit 0
       <!-- docs-test: run exit=2 -->   each command must exit with that status (bad input)
       <!-- docs-test: check -->        long figure commands: --steps, --frames and --warmup are
                                        capped at 3 and --seconds at 1 (a window command without
                                        either closes after 3 frames), so every flag, scene and
                                        parameter name is still checked; each must exit 0
   In a block, a line starting with `fluid-sandbox` or `build/fluid-sandbox` is a command (a
   trailing backslash continues it; text after an unquoted ` # ` is a comment); other lines are
   ignored. The program's name becomes BINARY. Each command runs in a fresh temporary folder
   that holds a link `scenes` to SOURCE_DIR/scenes (so `scenes/x.json` reads as from the
   repository's root), with a 120 s timeout. Commands that open the window need a display: without
   DISPLAY the whole test re-runs itself under xvfb-run; with --no-window (a build without the
   window) they are skipped and counted.

Standard library only. Exit status 0 when all passes, 1 otherwise.
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

TIMEOUT_S = 120
MARK = re.compile(r"^\s*<!--\s*docs-test:\s*(run|check)(?:\s+exit=(\d+))?\s*-->\s*$")
FENCE = re.compile(r"^\s*(```+|~~~+)")
PROGRAM = ("fluid-sandbox", "build/fluid-sandbox")
CAPS = {"--steps": 3, "--num_steps": 3, "--frames": 3, "--warmup": 3, "--seconds": 1}
# Flags that never open the window (a command with one of them runs without a display).
NO_WINDOW = {"--headless", "--bench", "--list-scenes", "--list-params", "--help", "-h", "--usd_output"}


def markdown_files(src):
    files = [os.path.join(src, "README.md")]
    for root, _, names in os.walk(os.path.join(src, "docs")):
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".md")]
    return sorted(files)


def rel(src, path):
    return os.path.relpath(path, src)


# ---------------------------------------------------------------------------------------------
# 1. mkdocs build --strict


def check_mkdocs(src, failures):
    mkdocs = shutil.which("mkdocs")
    if not mkdocs:
        failures.append("mkdocs is not installed (make deps installs mkdocs and mkdocs-material)")
        return
    with tempfile.TemporaryDirectory(prefix="fs-site-") as site:
        start = time.monotonic()
        p = subprocess.run([mkdocs, "build", "--strict", "-f", os.path.join(src, "mkdocs.yml"), "-d", site],
                           cwd=src, capture_output=True, text=True)
        took = time.monotonic() - start
        output = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout + p.stderr)  # without the colours
        warnings = [l for l in output.splitlines() if l.startswith(("WARNING", "ERROR"))]
        if p.returncode != 0 or warnings:
            tail = "\n".join(warnings or output.splitlines()[-15:])
            failures.append(f"mkdocs build --strict failed (exit {p.returncode}):\n{tail}")
        else:
            print(f"mkdocs build --strict: the site builds without a warning ({took:.1f} s)")


# ---------------------------------------------------------------------------------------------
# 2. Orphan pages and dead links


def nav_pages(src):
    """The .md files mkdocs.yml's nav names (read without a YAML library: the nav's lines)."""
    pages, in_nav = set(), False
    with open(os.path.join(src, "mkdocs.yml"), encoding="utf-8") as f:
        for line in f:
            if re.match(r"^nav\s*:", line):
                in_nav = True
                continue
            if in_nav and line.strip() and not line[0].isspace() and not line.startswith("-"):
                break  # the next top-level key
            if in_nav:
                m = re.search(r"([\w./-]+\.md)\s*$", line.split("#")[0].strip())
                if m:
                    pages.add(os.path.normpath(m.group(1)))
    return pages


LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<img[^>]*\ssrc=\"([^\"]+)\"")


def outside_code(lines):
    """(line number, line without inline code) for every line outside fenced blocks."""
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * 3
            elif m.group(1).startswith(fence):
                fence = None
            continue
        if fence is None:
            yield n, re.sub(r"`[^`]*`", "", line)


def slug(heading):
    """Python-Markdown's toc slug of a heading (its default slugify)."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        cache[path] = {slug(re.sub(r"^#+\s*", "", l)) for _, l in outside_code(lines) if re.match(r"^#{1,6}\s", l)}
    return cache[path]


def check_pages_and_links(src, failures):
    docs = os.path.join(src, "docs")
    nav = nav_pages(src)
    pages = {os.path.normpath(rel(docs, f)) for f in markdown_files(src) if f.startswith(docs + os.sep)}
    for page in sorted(pages - nav):
        failures.append(f"docs/{page}: an orphan page (mkdocs.yml's nav does not list it)")
    links = 0
    for path in markdown_files(src):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for n, line in outside_code(lines):
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue  # a web address or mail
                target, _, anchor = target.partition("#")
                file = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
                links += 1
                if not os.path.exists(file):
                    failures.append(f"{rel(src, path)}:{n}: a link to {target}, which does not exist")
                elif anchor and file.endswith(".md") and anchor not in anchors(file):
                    failures.append(f"{rel(src, path)}:{n}: a link to {target}#{anchor}: no such heading there")
    print(f"pages: {len(pages)} in docs/, {len(nav)} in the nav; {links} relative links checked")


# ---------------------------------------------------------------------------------------------
# 3. Marked command blocks


class Command:
    def __init__(self, page, line, mode, expect, text):
        self.page, self.line, self.mode, self.expect, self.text = page, line, mode, expect, text


def strip_comment(text):
    """The line without an unquoted ' # ...' comment."""
    quote, i = None, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2  # an escaped character
            continue
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and i > 0 and text[i - 1] in " \t":
            return text[:i].rstrip()
        i += 1
    return text


def marked_commands(src):
    commands = []
    for path in markdown_files(src):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        n = 0
        while n < len(lines):
            m = MARK.match(lines[n])
            if not m or n + 1 >= len(lines) or not FENCE.match(lines[n + 1]):
                if m:
                    commands.append(Command(rel(src, path), n + 1, "bad-mark", 0, "the mark is not just before a fence"))
                n += 1
                continue
            mode, expect = m.group(1), int(m.group(2) or 0)
            fence = FENCE.match(lines[n + 1]).group(1)[0] * 3
            k = n + 2
            pending, first = None, 0
            while k < len(lines) and not lines[k].strip().startswith(fence):
                line = lines[k]
                if pending is not None:
                    pending += " " + line.strip()
                elif line.strip().split(" ")[0] in PROGRAM:
                    pending, first = line.strip(), k + 1
                if pending is not None:
                    if pending.endswith("\\"):
                        pending = pending[:-1].rstrip()
                    else:
                        commands.append(Command(rel(src, path), first, mode, expect, strip_comment(pending)))
                        pending = None
                k += 1
            n = k + 1
    return commands


def capped(args):
    out, k = [], 0
    while k < len(args):
        a = args[k]
        name, eq, value = a.partition("=")
        if name in CAPS and eq:
            out.append(f"{name}={min_text(value, CAPS[name])}")
        elif a in CAPS and k + 1 < len(args):
            out += [a, min_text(args[k + 1], CAPS[a])]
            k += 1
        else:
            out.append(a)
        k += 1
    return out


def min_text(value, cap):
    try:
        return str(min(float(value), cap)).removesuffix(".0") if "." in value else str(min(int(value), cap))
    except ValueError:
        return value  # let the program refuse it


def opens_window(args):
    return not any(a.split("=")[0] in NO_WINDOW for a in args[1:])


def run_command(cmd, binary, src, window):
    """(passed, skipped, message, seconds)."""
    if cmd.mode == "bad-mark":
        return False, False, f"{cmd.page}:{cmd.line}: {cmd.text}", 0.0
    try:
        args = shlex.split(cmd.text)
    except ValueError as e:
        return False, False, f"{cmd.page}:{cmd.line}: cannot split the command ({e}): {cmd.text}", 0.0
    if opens_window(args) and not window:
        return True, True, "", 0.0
    args = [binary] + args[1:]
    if cmd.mode == "check":
        args = capped(args)
        if opens_window(args) and not any(a.split("=")[0] in ("--frames", "--seconds") for a in args):
            args += ["--frames", "3"]  # a window left open would wait for a person
    with tempfile.TemporaryDirectory(prefix="fs-docs-") as work:
        os.symlink(os.path.join(src, "scenes"), os.path.join(work, "scenes"))
        start = time.monotonic()
        try:
            p = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=TIMEOUT_S,
                               stdin=subprocess.DEVNULL)
        except OSError as e:
            return False, False, f"{cmd.page}:{cmd.line}: cannot run it ({e}): {cmd.text}", 0.0
        except subprocess.TimeoutExpired:
            return False, False, f"{cmd.page}:{cmd.line}: timed out after {TIMEOUT_S} s: {cmd.text}", TIMEOUT_S
        took = time.monotonic() - start
    if p.returncode != cmd.expect:
        tail = "\n".join("    " + l for l in (p.stderr or p.stdout).splitlines()[-8:])
        return False, False, (f"{cmd.page}:{cmd.line}: exit {p.returncode}, expected {cmd.expect} "
                              f"({cmd.mode}): {cmd.text}" + (f"\n{tail}" if tail else "")), took
    return True, False, f"{took:6.1f} s  {cmd.page}:{cmd.line} [{cmd.mode}]", took


def check_commands(binary, src, window, jobs, failures, verbose):
    commands = marked_commands(src)
    start = time.monotonic()
    ran = skipped = 0
    times = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for cmd, (ok, skip, msg, took) in zip(commands, pool.map(lambda c: run_command(c, binary, src, window), commands)):
            if skip:
                skipped += 1
                continue
            ran += 1
            times.append((took, f"{cmd.page}:{cmd.line}"))
            if not ok:
                failures.append(msg)
            elif verbose:
                print(msg)
    by_mode = {m: sum(1 for c in commands if c.mode == m) for m in ("run", "check")}
    print(f"commands: {ran} marked commands ran ({by_mode['run']} run, {by_mode['check']} check"
          f"{f', {skipped} window commands skipped: no window' if skipped else ''}) "
          f"in {time.monotonic() - start:.1f} s")
    slowest = sorted(times, reverse=True)[:5]
    if slowest:
        print("the slowest: " + ", ".join(f"{where} {took:.1f} s" for took, where in slowest))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("source_dir")
    ap.add_argument("--no-window", action="store_true", help="the build has no window: skip its commands")
    ap.add_argument("--jobs", type=int, default=2, help="commands run side by side (default 2)")
    ap.add_argument("--skip-mkdocs", action="store_true", help="leave out the site's build")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every command's time")
    o = ap.parse_args()
    binary, src = os.path.abspath(o.binary), os.path.abspath(o.source_dir)
    window = not o.no_window
    if window and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        xvfb = shutil.which("xvfb-run")
        if xvfb and not os.environ.get("FS_DOCS_UNDER_XVFB"):
            os.environ["FS_DOCS_UNDER_XVFB"] = "1"
            os.execv(xvfb, [xvfb, "-a", "-s", "-screen 0 1600x1000x24", sys.executable] + sys.argv)
        print("no display and no xvfb-run: the window's commands are skipped")
        window = False
    if not os.access(binary, os.X_OK):
        print(f"{binary}: not an executable program")
        return 1
    start = time.monotonic()
    failures = []
    if not o.skip_mkdocs:
        check_mkdocs(src, failures)
    check_pages_and_links(src, failures)
    check_commands(binary, src, window, max(1, o.jobs), failures, o.verbose)
    for f in failures:
        print("FAIL " + f)
    print(f"docs test: {'FAILED, ' + str(len(failures)) + ' problem(s)' if failures else 'passed'} "
          f"in {time.monotonic() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
