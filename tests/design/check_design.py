"""The design rules a contributor can break without a compiler noticing (docs/design.md):

- no source file in src/ over 700 lines;
- app/, headless/, cli/ and python/ name no solver and no solver's own parameter in their code
  (comments and docstrings may): what they need of a solver comes through the Solver API
  (SolverTraits, the registry, the fields), so a sixth solver needs no change there.

    python3 tests/design/check_design.py build/fluid-sandbox

Prints each breach on one line and exits 1 if there is any.
"""
import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
MAX_LINES = 700
SOLVER_BLIND = ["app", "headless", "cli", "python"]
SOURCE_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".py", ".js", ".html", ".cmake", ".in"}


def solver_params(exe):
    """{solver: its parameters} from each bundled scene's --list-params."""
    out = {}
    for scene in sorted((ROOT / "scenes").glob("*.json")):
        solver = json.loads(scene.read_text())["solver"]
        if solver in out:
            continue
        text = subprocess.run([exe, str(scene), "--list-params"], capture_output=True, text=True, check=True).stdout
        out[solver] = set(re.findall(r"^  (\w+)\s+=", text, re.M))
    return out


def cpp_code(text):
    """C++ without its comments (string literals kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def python_code(text):
    """Python without its comments and docstrings."""
    out, prev = [], tokenize.INDENT
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            continue
        if tok.type == tokenize.STRING and prev in (tokenize.INDENT, tokenize.NEWLINE, tokenize.NL, tokenize.DEDENT):
            prev = tok.type
            continue  # a docstring (a string standing alone as a statement)
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            prev = tok.type
        out.append(tok.string)
    return " ".join(out)


def main(exe):
    breaches = []
    for path in sorted(SRC.rglob("*")):
        if path.is_file() and path.suffix in SOURCE_SUFFIXES:
            lines = path.read_text(errors="replace").count("\n")
            if lines > MAX_LINES:
                breaches.append(f"{path.relative_to(ROOT)}: {lines} lines (at most {MAX_LINES})")

    params = solver_params(exe)
    # A solver's own parameter: registered by that solver alone. The shared registrations (seed,
    # gravity, the hands' settings) and the stats every solver reports (dt, n_particles, which a
    # solver may also take as a parameter) are everyone's.
    everyone = {"dt", "n_particles", "kinetic_energy", "max_speed", "step_ms", "momentum"}
    seen = {}
    for s, ps in params.items():
        for p in ps:
            seen.setdefault(p, []).append(s)
    own = {p: s[0] for p, s in seen.items() if len(s) == 1 and p not in everyone}
    names = re.compile(r"\b(" + "|".join(sorted(params)) + r")\b")
    quoted = re.compile(r"[\"'](\w+)[\"']")
    for folder in SOLVER_BLIND:
        for path in sorted((SRC / folder).rglob("*")):
            if not path.is_file() or path.suffix not in {".cpp", ".hpp", ".py"}:
                continue
            text = path.read_text()
            code = python_code(text) if path.suffix == ".py" else cpp_code(text)
            for line in code.splitlines():
                for m in names.finditer(line):
                    breaches.append(f"{path.relative_to(ROOT)}: names the solver '{m.group(1)}': {line.strip()[:100]}")
                for m in quoted.finditer(line):
                    if m.group(1) in own:
                        breaches.append(f"{path.relative_to(ROOT)}: names the {own[m.group(1)]} solver's parameter "
                                        f"'{m.group(1)}': {line.strip()[:100]}")
    for b in breaches:
        print(b)
    print(f"check_design: {len(breaches)} breach(es); {len(params)} solvers, {len(own)} solver-own parameters",
          file=sys.stderr)
    return 1 if breaches else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_design.py FLUID_SANDBOX")
    sys.exit(main(sys.argv[1]))
