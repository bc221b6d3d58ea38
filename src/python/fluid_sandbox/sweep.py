"""Parameter sweeps: a scene run once per combination of parameter values, as a pandas DataFrame.

    import fluid_sandbox as fsb
    df = fsb.sweep("ot_rayleigh_taylor", {"atwood": [0.2, 0.5, 0.8], "resolution": [32, 64]},
                   until=0.36, set={"viscosity": 0})
    print(df[["atwood", "resolution", "deviation", "worst", "error"]])

Each run is a fresh Simulation in a worker process; the runs go to a local process pool, or to
any concurrent.futures.Executor (a dask.distributed Client's get_executor() spreads them over a
cluster). docs/python.md is the manual.
"""

import concurrent.futures as _futures
import itertools as _itertools
import math as _math
import multiprocessing as _multiprocessing
import numbers as _numbers
import os as _os
import sys as _sys
import time as _time

# The figures of one comparison, in the order of the DataFrame's columns; the comparison dict's
# other scalars (its title, source) are left out, its curves too.
_FIGURES = ("comparison", "deviation", "mean", "worst", "worst_at", "x_label", "verdict")
_RUN = ("steps", "time", "wall_s", "cpu_s", "error")


def _cores():
    try:
        return len(_os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return _os.cpu_count() or 1


def _message(e):
    # KeyError's str() quotes its argument; the registry's line is the argument itself.
    return str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)


def run_one(scene, settings, steps, until, compare, backend, threads):
    """One run of a sweep, in a worker: opens the scene with `settings` (a list of (name, value)
    pairs, applied in order), steps it until `steps` steps or `until` simulated seconds (whichever
    comes first), and returns its rows (dicts): one per comparison with compare=True, else one with
    the last step's scalar stats. The registry's refusal of a setting, and a failed step, become
    the row's `error` (the rows of the other runs are kept)."""
    from . import Simulation, SimulationError

    start, cpu = _time.perf_counter(), _time.process_time()
    row = {"steps": 0, "time": 0.0, "wall_s": 0.0, "cpu_s": 0.0, "error": None}
    sim = found = None
    try:
        sim = Simulation(scene, backend=backend, threads=threads, set=dict(settings))
        # As --compare samples: figures that do not depend on the machine's speed.
        sim.compare_every_step = bool(compare)
        if until is None:
            sim.step(steps)
        else:
            # A step at a time: adaptive steps end where they end; the float's last bit is not a step.
            while sim.time < until * (1 - 1e-9) and (steps is None or sim.step_index < steps):
                sim.step(1)
        found = sim.compare() if compare else None
        if not compare:
            stats = sim.stats()
            row.update({k: v for k, v in stats.items() if isinstance(v, (bool, _numbers.Real)) and k not in row})
    except (KeyError, ValueError, TypeError, SimulationError) as e:
        row["error"] = _message(e)
    if sim is not None:  # the steps taken: all of them, or up to the one that failed
        row["steps"], row["time"] = sim.step_index, sim.time
    row["wall_s"], row["cpu_s"] = _time.perf_counter() - start, _time.process_time() - cpu
    if not compare or row["error"] is not None:
        return [row]
    if not found:
        row["error"] = f"{scene}: no comparison applies to the scene as set"
        return [row]
    rows = []
    for c in found:
        figures = {"comparison": c["name"]}
        figures.update({k: c.get(k) for k in _FIGURES[1:]})
        for k in ("deviation", "mean", "worst", "worst_at"):
            if figures[k] is None:  # not measured (NaN in the JSON of --compare)
                figures[k] = _math.nan
        # A comparison's further scalar figures (a bound, say) come along as their own columns.
        figures.update({k: v for k, v in c.items() if k not in figures and k not in ("name", "title", "source", "y_label")
                        and isinstance(v, (str, bool, _numbers.Real))})
        rows.append({**figures, **row})
    return rows


def _combinations(grid):
    """The grid's keys as column names and its combinations as lists of (name, value) pairs. A
    key that is a tuple of names links them: its values are tuples, one value for each name."""
    if not isinstance(grid, dict):
        raise TypeError(f"sweep: the grid must be a dict of {{parameter: [values]}}, got {type(grid).__name__}")
    axes, columns = [], []
    for key, values in grid.items():
        names = key if isinstance(key, tuple) else (key,)
        if not names or not all(isinstance(n, str) for n in names):
            raise TypeError(f"sweep: the grid's key {key!r} must be a parameter's name or a tuple of names")
        if not isinstance(values, (list, tuple)):
            raise TypeError(f"sweep: the values of {key!r} must be a list, got {type(values).__name__} {values!r}")
        if not values:
            raise ValueError(f"sweep: {key!r} has no values")
        if isinstance(key, tuple):
            for v in values:
                if not isinstance(v, (list, tuple)) or len(v) != len(names):
                    raise ValueError(f"sweep: each value of the linked {key!r} must be a tuple of {len(names)}, got {v!r}")
            axes.append([tuple(zip(names, v)) for v in values])
        else:
            axes.append([((key, v),) for v in values])
        for n in names:
            if n in columns:
                raise ValueError(f"sweep: '{n}' is swept twice")
            if n in _FIGURES or n in _RUN:
                raise ValueError(f"sweep: '{n}' would hide the column of that name; set it with set= instead")
            columns.append(n)
    return columns, [[pair for axis in combo for pair in axis] for combo in _itertools.product(*axes)]


def _check_scene(scene):
    from . import Simulation, scenes

    if not isinstance(scene, (str, _os.PathLike)):
        raise TypeError(f"sweep: the scene must be a name or a path, got {type(scene).__name__}")
    scene = _os.fspath(scene)
    if _os.path.isfile(scene) or scene in {s["name"] for s in scenes()}:
        return scene
    Simulation(scene, threads=1)  # raises the module's own FileNotFoundError, with its suggestion
    return scene


def sweep(scene, grid, steps=None, compare=True, executor=None, set=None, *, until=None, backend="cpu",
          threads=None, workers=None, progress=False):
    """Runs `scene` once per combination of `grid`'s values (their Cartesian product), each in a
    fresh Simulation with those parameters set over `set`'s, and returns a pandas DataFrame.

    grid      {name: [values]}; a tuple of names links parameters that move together:
              {("resolution", "epsilon"): [(32, 0.0168), (64, 0.012)]}
    steps     steps a run takes; until: simulated seconds a run lasts (with both, the first reached)
    compare   True: a row per comparison the scene makes (sim.compare()); False: a row per run with
              the last step's scalar stats
    executor  any concurrent.futures.Executor (a dask.distributed Client's get_executor()); None: a
              local process pool of `workers` processes (default: one per core, at most one per run)
    set       {name: value} applied to every run, before the swept values
    threads   CPU threads of each run; default: the cores shared among the local pool's workers
              (cores // workers, at least 1), or 1 on an executor (its workers are the parallelism)
    progress  True: a line on stderr as each run ends

    Columns: the swept parameters; comparison, deviation, mean, worst, worst_at, x_label (the unit
    of worst_at), verdict (with compare=True); steps, time (simulated), wall_s, cpu_s (the worker's CPU
    seconds: the run's cost on a busy machine too); error: None, or the one-line
    message of a setting the registry refused or a step that failed (that run's row; the other
    runs' rows are kept). An unknown scene or a malformed grid raises at once. df.attrs holds the
    scene, set, steps, until, backend, threads and runs (the combinations).
    """
    import pandas

    scene = _check_scene(scene)
    columns, combos = _combinations(grid)
    if steps is None and until is None:
        raise ValueError("sweep: give steps= (steps a run takes) or until= (simulated seconds)")
    if steps is not None and (not isinstance(steps, _numbers.Integral) or isinstance(steps, bool) or steps < 1):
        raise ValueError(f"sweep: steps must be a positive integer, got {steps!r}")
    if until is not None and (not isinstance(until, _numbers.Real) or not until > 0 or not _math.isfinite(until)):
        raise ValueError(f"sweep: until must be a positive number of seconds, got {until!r}")
    if set is not None and not isinstance(set, dict):
        raise TypeError(f"sweep: set must be a dict of {{parameter: value}}, got {type(set).__name__}")
    fixed = [(k, v) for k, v in (set or {}).items() if k not in columns]

    own_pool = executor is None
    if own_pool:
        workers = workers or min(_cores(), len(combos))
        threads = threads or max(1, _cores() // workers)
        # spawn: a forked child would inherit the parent's OpenMP thread pool, which libgomp does
        # not survive; spawned workers import the module afresh (a script calls sweep() under
        # `if __name__ == "__main__":`, as multiprocessing asks).
        executor = _futures.ProcessPoolExecutor(workers, mp_context=_multiprocessing.get_context("spawn"))
    else:
        threads = threads or 1
    started = _time.perf_counter()
    try:
        futures = [executor.submit(run_one, scene, fixed + combo, steps, until, compare, backend, threads)
                   for combo in combos]
        if progress:
            index = {f: i for i, f in enumerate(futures)}
            for done, f in enumerate(_futures.as_completed(futures), 1):
                rows = f.result()
                what = ", ".join(f"{k}={v}" for k, v in combos[index[f]])
                err = rows[0]["error"]
                print(f"sweep {scene}: {done}/{len(combos)} ({what}) {rows[0]['wall_s']:.1f} s"
                      f"{'; ' + err if err else ''} [{_time.perf_counter() - started:.0f} s]", file=_sys.stderr,
                      flush=True)
        results = [f.result() for f in futures]
    finally:
        if own_pool:
            executor.shutdown(cancel_futures=True)

    records = []
    for combo, rows in zip(combos, results):
        swept = dict(combo)
        records += [{**{c: swept[c] for c in columns}, **r} for r in rows]
    df = pandas.DataFrame.from_records(records)
    extra = [c for c in df if c not in columns and c not in _FIGURES and c not in _RUN]
    df = df.reindex(columns=columns + (list(_FIGURES) if compare else []) + extra + list(_RUN))
    df.attrs.update(scene=scene, set=dict(set or {}), steps=steps, until=until, backend=backend, threads=threads,
                    runs=len(combos))
    return df
