#!/usr/bin/env python3
"""tests/gpu/run.sh's report: OUT_DIR/report.md and OUT_DIR/report.json from what the run left
there (gpu.csv, log/, parity/, sanitize/, bench/). Prints the Markdown.
  tests/gpu/report.py OUT_DIR --gpu 0|1 [--build-failed]

Each benchmark is given as an absolute figure and as a fraction of the device-to-device copy
bandwidth measured in the same run (bench/copy.json, bytes read plus bytes written): the bytes a
step must move at the least (each particle's state read once and written once, all float64)
over the step's median time, divided by the copy's bandwidth. That is a floor model: a step that
reaches 1.0 moves no byte more than it must.
"""
import glob
import json
import os
import re
import statistics
import sys

# Bytes a particle's step must read and write at the least: its float64 state, read and written
# (positions and velocities), plus what is only read (Euler: the mass) or only written (SPH:
# density and pressure).
FLOOR_BYTES = {"euler": 2 * 32 + 8, "sph": 2 * 32 + 16, "flip": 2 * 48, "vortex": 2 * 24, "ot": 2 * 32}
# The GPU goals: particle-steps a second, ms a step, or pair interactions a second (the direct
# sum's). Issue 12 set the first ones; issue 47 raised FLIP's, SPH's and OT's and added the
# direct sum's.
GOALS = {
    "euler-grid-16000000": ("particle_steps_per_second", ">=", 2e9),
    "flip-128": ("median_step_ms", "<=", 8.0),
    "sph-4000000": ("particle_steps_per_second", ">=", 2e9),
    "vortex-1e5-grid-1e7-tracers": ("median_step_ms", "<=", 16.0),
    "vortex-97336-direct": ("pairs_per_second", ">=", 5e11),
    "vortex-300763-direct": ("pairs_per_second", ">=", 5e11),
    "ot-1000000": ("median_step_ms", "<=", 50.0),
}


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def ctest_summary(text):
    # "100% tests passed out of N" (CMake 4) or "...passed, 0 tests failed out of N" (earlier).
    m = re.search(r"(\d+)% tests passed(?:, (\d+) tests failed)? out of (\d+)", text)
    failed = re.findall(r"^\s*\d+ - (\S+) \((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)",
                        text, re.M)
    skipped = re.findall(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.+\s*\*+Skipped", text, re.M)
    if not m:
        return {"ran": False, "tail": text[-2000:]}
    total, nfail = int(m.group(3)), int(m.group(2) or 0)
    return {"ran": True, "total": total, "failed": nfail, "failed_tests": [f[0] for f in failed],
            "skipped": skipped}


def sanitize_summary(d):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "*.txt"))):
        text = read(f)
        name = os.path.basename(f)[:-4]
        m = re.search(r"(ERROR|RACECHECK) SUMMARY: (\d+) (errors?|hazards?)", text)
        code = re.findall(r"^exit (\d+)", text, re.M)
        out[name] = {"summary": m.group(0) if m else None, "count": int(m.group(2)) if m else None,
                     "exit": int(code[-1]) if code else None}
    return out


def demo_summary(d):
    """What the broken build's parity checks said: each should fail."""
    out = {}
    for name in ("test_euler", "test_sph"):
        text = read(os.path.join(d, name + ".txt"))
        if not text:
            continue
        failed = re.findall(r"^\[  FAILED  \] (\S+) \(", text, re.M)
        passed = re.findall(r"^\[       OK \] (\S+) \(", text, re.M)
        out[name] = (f"caught: {len(failed)} failed ({', '.join(failed)}), {len(passed)} passed"
                     if failed else f"NOT caught: {len(passed)} passed")
    text = read(os.path.join(d, "parity.txt"))
    if text:
        out["scenes"] = "; ".join(l.strip() for l in text.splitlines() if l.startswith(("ok", "FAIL")))
    return out


def bench_summary(d):
    copy = {}
    try:
        copy = json.loads(read(os.path.join(d, "copy.json"), "{}"))
    except ValueError:
        pass
    bw = copy.get("copy_gbs")
    rows = []
    for f in sorted(glob.glob(os.path.join(d, "bench-*.json"))):
        try:
            b = json.loads(read(f))
        except ValueError:
            continue
        name = os.path.basename(f)[len("bench-"):-len("-cuda.json")]
        solver = (b.get("params") or {}).get("pressure_solver")
        if b.get("solver") == "sph" and solver:
            name += f" ({solver})"
        sps = b.get("particle_steps_per_second")
        row = {"name": name, "solver": b.get("solver"), "n_particles": b.get("n_particles"),
               "median_step_ms": b.get("median_step_ms"), "particle_steps_per_second": sps,
               "stages_ms": b.get("median_stage_ms")}
        velocity_ms = (b.get("median_stage_ms") or {}).get("velocity")
        if name.endswith("-direct") and velocity_ms:
            # The direct sum alone (no tracers): each of the N vortons sums over all N.
            row["pairs_per_second"] = b["n_particles"] ** 2 / (velocity_ms * 1e-3)
        floor = FLOOR_BYTES.get(b.get("solver"))
        if floor and sps and bw:
            row["floor_gbs"] = floor * sps / 1e9
            row["fraction_of_copy"] = row["floor_gbs"] / bw
        goal = GOALS.get(name.split(" ")[0])
        if goal and row.get(goal[0]) is not None:
            v = row[goal[0]]
            row["goal"] = f"{goal[0]} {goal[1]} {goal[2]:g}"
            row["goal_met"] = v >= goal[2] if goal[1] == ">=" else v <= goal[2]
        rows.append(row)
    jacobi = None
    try:
        stats = [json.loads(l) for l in read(os.path.join(d, "jacobi-128.jsonl")).splitlines() if l.strip()][2:]
        if stats:
            ms = sorted(r["stages_ms"]["pressure_solve"] for r in stats)[len(stats) // 2] / 200
            cells = stats[-1]["fluid_cells"]
            # A sweep reads each fluid cell's entry (8 bytes), b and the old p (8 each; the
            # neighbours' p come from the cache) and writes the new p (8): 32 bytes a cell.
            jacobi = {"fluid_cells": cells, "sweep_ms": ms, "gbs": 32 * cells / (ms * 1e-3) / 1e9}
            if bw:
                jacobi["fraction_of_copy"] = jacobi["gbs"] / bw
    except (ValueError, KeyError):
        pass
    mgpcg = None
    try:
        stats = [json.loads(l) for l in read(os.path.join(d, "mgpcg-128.jsonl")).splitlines() if l.strip()][2:]
        if stats:
            mid = sorted(stats, key=lambda r: r["stages_ms"]["pressure_solve"])[len(stats) // 2]
            its = mid["pressure_iterations"]
            mgpcg = {"pressure_solve_ms": mid["stages_ms"]["pressure_solve"], "iterations": its,
                     "ms_per_iteration": mid["stages_ms"]["pressure_solve"] / max(its, 1)}
            rt = copy.get("round_trip_us")
            if rt:
                # Two read-backs an iteration (d.q; r.r with r.z) and one a level for its counts.
                mgpcg["round_trips_ms"] = (2 * its + 8) * rt * 1e-3
    except (ValueError, KeyError):
        pass
    surface = [line for line in read(os.path.join(d, "surface.txt")).splitlines() if line.strip()]
    return {"copy": copy, "runs": rows, "jacobi_128": jacobi, "mgpcg_128": mgpcg, "surface": surface,
            "sph_solvers_4e6": sph_solvers_4e6(d), "sph_solvers_scenes": read(os.path.join(d, "sph-solvers.txt")).strip(),
            "ot_transport": ot_transport(d)}


def ot_transport(d):
    """What OT's transport stage did a step (ot_scaling.sh's stats, steps 3 on, medians): Newton
    iterations, cell passes, CG iterations, and the time in the cells and in the linear solves."""
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "bench-ot-*-cuda.jsonl"))):
        try:
            rows = [json.loads(l) for l in read(f).splitlines() if l.strip()][2:]
        except ValueError:
            continue
        if not rows:
            continue
        med = {k: statistics.median(r[k] for r in rows)
               for k in ("newton_iterations", "cell_passes", "cg_iterations", "cells_ms", "solve_ms", "step_ms")}
        out[str(rows[0]["n_particles"])] = med
    return out


def sph_solvers_4e6(d):
    """SPH's pressure solvers at 4e6 particles, from their stats (steps 6 on): the median ms a step
    and dt, particle-steps a second, and the wall seconds a simulated second costs."""
    out = {}
    for solver in ("wcsph", "dfsph", "iisph"):
        try:
            stats = [json.loads(l) for l in read(os.path.join(d, f"sph-{solver}-4000000.jsonl")).splitlines()
                     if l.strip()][6:]
        except ValueError:
            continue
        if not stats:
            continue
        ms = sorted(r["step_ms"] for r in stats)[len(stats) // 2]
        dt = sorted(r["dt"] for r in stats)[len(stats) // 2]
        n = stats[-1]["n_particles"]
        out[solver] = {"n_particles": n, "median_step_ms": ms, "median_dt": dt,
                       "particle_steps_per_second": n / (ms * 1e-3), "wall_per_simulated_s": ms * 1e-3 / dt,
                       "density_iterations": statistics.mean(r.get("density_iterations", 0) for r in stats)}
        goal = GOALS["sph-4000000"]
        out[solver]["goal_met"] = out[solver]["particle_steps_per_second"] >= goal[2]
    return out


def main():
    out = sys.argv[1]
    gpu = "--gpu" in sys.argv and sys.argv[sys.argv.index("--gpu") + 1] == "1"
    rep = {"gpu": read(os.path.join(out, "gpu.csv")).strip() if gpu else None,
           "machine": read(os.path.join(out, "log", "machine.txt")).strip(),
           "seconds": dict(line.split() for line in read(os.path.join(out, "log", "seconds.txt")).splitlines()
                           if len(line.split()) == 2)}
    md = ["# GPU run report (tests/gpu/run.sh)", "", "```", rep["machine"], "```", ""]
    if "--build-failed" in sys.argv:
        rep["build"] = "failed"
        md += ["**The build failed**: see log/build.txt.", ""]
    elif not gpu:
        rep["build"] = "ok"
        md += ["**No GPU**: nvidia-smi found none. The build succeeded; nothing was run.", ""]
    else:
        rep["build"] = "ok"
        rep["tests"] = ctest_summary(read(os.path.join(out, "log", "ctest.txt")))
        t = rep["tests"]
        md += ["## Tests", ""]
        if t["ran"]:
            md += [f"{t['total'] - t['failed']} of {t['total']} passed; failed: "
                   f"{', '.join(t['failed_tests']) or 'none'}; skipped: {', '.join(t['skipped']) or 'none'}", ""]
        else:
            md += ["ctest did not finish (log/ctest.txt)", ""]
        excluded = read(os.path.join(out, "log", "ctest-excluded.txt")).split()
        if excluded:
            # FS_GPU_CTEST_EXCLUDE: tests that need this machine's desktop (lease.sh says which).
            rep["tests"]["excluded"] = excluded
            md += [f"Not run here ({len(excluded)}, FS_GPU_CTEST_EXCLUDE; they need the desktop the build "
                   f"was made on, and run in CI): {', '.join(excluded)}", ""]
        try:
            rep["parity"] = json.loads(read(os.path.join(out, "parity", "parity.json"), "{}"))
        except ValueError:
            rep["parity"] = {}
        md += ["## Parity (every scene, CPU and CUDA)", "", "```", read(os.path.join(out, "log", "parity.txt")).strip(),
               "```", ""]
        rep["sanitize"] = sanitize_summary(os.path.join(out, "sanitize"))
        md += ["## compute-sanitizer", "", "| run | summary | exit |", "| --- | --- | --- |"]
        md += [f"| {k} | {v['summary']} | {v['exit']} |" for k, v in rep["sanitize"].items()]
        rep["demo"] = demo_summary(os.path.join(out, "demo"))
        if rep["demo"]:
            md += ["", "## Parity demonstration (two kernels broken on purpose on the GPU)", ""]
            md += [f"- {k}: {v}" for k, v in rep["demo"].items()]
        rep["bench"] = bench_summary(os.path.join(out, "bench"))
        bw = rep["bench"]["copy"].get("copy_gbs")
        md += ["", "## Benchmarks", "", f"Device-to-device copy: {bw} GB/s (read + write)", "",
               "| run | particles | ms a step | particle-steps/s | floor GB/s | of copy | goal |",
               "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in rep["bench"]["runs"]:
            goal = (f"{r['goal']}: {'met' if r['goal_met'] else 'NOT met'}" if "goal" in r else "")
            sps = r["particle_steps_per_second"]
            pairs = f"; {r['pairs_per_second']:.3g} pairs/s" if "pairs_per_second" in r else ""
            md.append(f"| {r['name']} | {r['n_particles']} | {r['median_step_ms']:.3f} | "
                      f"{sps:.3g}{pairs} | {r.get('floor_gbs', float('nan')):.0f} | "
                      f"{r.get('fraction_of_copy', float('nan')):.2f} | {goal} |")
        sph = rep["bench"].get("sph_solvers_4e6")
        if sph:
            md += ["", "SPH's pressure solvers, the dam break at 4e6 particles (steps 6 on, medians):", "",
                   "| solver | particles | ms a step | dt (s) | particle-steps/s (goal 2e9) | wall s a simulated s "
                   "| iterations |", "| --- | --- | --- | --- | --- | --- | --- |"]
            md += [f"| {k} | {v['n_particles']} | {v['median_step_ms']:.3f} | {v['median_dt']:.3g} | "
                   f"{v['particle_steps_per_second']:.3g} ({'met' if v['goal_met'] else 'NOT met'}) | "
                   f"{v['wall_per_simulated_s']:.3g} | {v['density_iterations']:.1f} |" for k, v in sph.items()]
        ot = rep["bench"].get("ot_transport")
        if ot:
            md += ["", "OT's transport a step (tests/bench/ot_scaling.sh's stats, medians):", "",
                   "| cells | ms a step | Newton iterations | cell passes | CG iterations | cells (ms) | linear solves (ms) |",
                   "| --- | --- | --- | --- | --- | --- | --- |"]
            md += [f"| {n} | {v['step_ms']:.2f} | {v['newton_iterations']:g} | {v['cell_passes']:g} | "
                   f"{v['cg_iterations']:g} | {v['cells_ms']:.2f} | {v['solve_ms']:.2f} |" for n, v in ot.items()]
        if rep["bench"].get("sph_solvers_scenes"):
            md += ["", "SPH's pressure solvers on the bundled scenes (tests/bench/sph_solvers.py --backend cuda):", "",
                   rep["bench"]["sph_solvers_scenes"]]
        m = rep["bench"].get("mgpcg_128")
        if m:
            md += ["", f"FLIP 128^3 MGPCG: {m['pressure_solve_ms']:.2f} ms for {m['iterations']} CG iterations "
                       f"({m['ms_per_iteration']:.3f} ms each); round trips about {m.get('round_trips_ms', float('nan')):.3f} ms "
                       f"(at {rep['bench']['copy'].get('round_trip_us')} us each)"]
        j = rep["bench"].get("jacobi_128")
        if j:
            md += ["", f"FLIP 128^3, one Jacobi sweep over {j['fluid_cells']} fluid cells: {j['sweep_ms']:.4f} ms, "
                       f"{j['gbs']:.0f} GB/s, {j.get('fraction_of_copy', float('nan')):.2f} of the copy (goal 0.60)"]
    if rep.get("bench", {}).get("surface"):
        md += ["", "Surface mesh (tests/bench/surface_bench.cpp):", ""] + ["    " + l for l in rep["bench"]["surface"]]
    md += ["", "Seconds: " + ", ".join(f"{k} {v}" for k, v in sorted(rep["seconds"].items()))]
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(rep, f, indent=1)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
