"""fluid_sandbox.sweep and `make validate`'s driver (docs/python.md, docs/validation.md).

Run by CTest (`make test`) with PYTHONPATH=build/python and FS_EXE=build/fluid-sandbox. Short
runs: free fall for 0.1 s, a vortex ring for 0.5 s, the reduced validation sweep.
"""
import json
import os
import subprocess
import sys
import time

import pandas
import pytest

import fluid_sandbox as fsb

EXE = os.environ.get("FS_EXE", "build/fluid-sandbox")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FALL = {"boundary": "open", "contact": "impulse"}


def registry_message(scene, settings):
    """The one-line message fluid_sandbox.Simulation raises for these settings."""
    with pytest.raises((KeyError, ValueError)) as e:
        fsb.Simulation(scene, threads=1, set=settings)
    return e.value.args[0]


def test_a_row_per_combination_with_the_swept_parameters_then_the_figures():
    df = fsb.sweep("default", {"tau": [0.002, 0.001], "mass": [1.0, 2.0]}, until=0.1, set=FALL)
    assert list(df.columns[:3]) == ["tau", "mass", "comparison"]
    assert list(df.columns[-5:]) == ["steps", "time", "wall_s", "cpu_s", "error"]
    assert {"deviation", "mean", "worst", "worst_at", "verdict"} <= set(df.columns)
    assert list(zip(df.tau, df.mass)) == [(0.002, 1.0), (0.002, 2.0), (0.001, 1.0), (0.001, 2.0)]  # the product
    assert df.error.isna().all() and (df.comparison == "free_fall").all()
    assert list(df.steps) == [50, 50, 100, 100] and df.time.to_numpy() == pytest.approx(0.1)
    assert df.attrs["runs"] == 4 and df.attrs["set"] == FALL
    # Semi-implicit Euler's own error, g tau t / 2, worst at the end: it halves with tau, whatever the mass.
    fine, coarse = df[df.tau == 0.001].deviation.to_numpy(), df[df.tau == 0.002].deviation.to_numpy()
    assert fine / coarse == pytest.approx([0.5, 0.5], rel=1e-3)
    assert df.worst_at.to_numpy() == pytest.approx(0.1)


def test_the_figures_are_those_of_the_headless_compare(tmp_path):
    df = fsb.sweep("default", {"tau": [0.002]}, steps=60, set=FALL)
    out = tmp_path / "c.json"
    subprocess.run([EXE, "default", "--headless", "--threads", "1", "--steps", "60", "--set", "tau=0.002",
                    "--set", "boundary=open", "--set", "contact=impulse", "--compare", str(out)],
                   check=True, capture_output=True)
    (c,) = json.loads(out.read_text())
    row = df.iloc[0]
    for k in ("deviation", "mean", "worst", "worst_at"):
        assert row[k] == c[k], k
    assert row["verdict"] == c["verdict"]


def test_linked_parameters_move_together_and_stats_come_without_compare():
    df = fsb.sweep("vortex_ring", {("core_radius", "dt"): [(0.1, 0.02), (0.2, 0.04)]}, steps=5, compare=False,
                   set={"ring_tracers": 0})
    assert list(zip(df.core_radius, df.dt)) == [(0.1, 0.02), (0.2, 0.04)]
    assert "comparison" not in df and df.kinetic_energy.gt(0).all()
    assert df.time.to_numpy() == pytest.approx([0.1, 0.2])


def test_a_refused_value_fails_its_own_row_with_the_registrys_message():
    df = fsb.sweep("default", {"tau": [0.002, 5.0, 0.001]}, until=0.05, set=FALL)
    assert len(df) == 3
    assert df.error[1] == registry_message("default", {**FALL, "tau": 5.0})
    assert "tau" in df.error[1] and "\n" not in df.error[1]
    assert df.error[[0, 2]].isna().all() and df.deviation[[0, 2]].gt(0).all()  # the others kept
    assert df.steps[1] == 0 and pandas.isna(df.deviation[1])


def test_a_failed_step_fails_its_own_row_and_says_how_far_it_got():
    df = fsb.sweep("sph_hydrostatic", {"speed_of_sound": [30.0, 0.1]}, steps=40, set={"spacing": 0.04})
    assert df.error[0] is None and df.steps[0] == 40 and df.deviation[0] > 0
    assert df.error[1].startswith(f"step {df.steps[1] + 1}: max_speed") and 0 < df.steps[1] < 40
    assert pandas.isna(df.deviation[1])


def test_an_unknown_parameter_fails_every_row_with_the_registrys_message():
    df = fsb.sweep("default", {"tua": [0.002, 0.001]}, until=0.05, set=FALL)
    message = registry_message("default", {"tua": 0.002})
    assert "did you mean 'tau'" in message
    assert list(df.error) == [message, message.replace("0.002", "0.001")]


def test_a_wholly_bad_call_raises_at_once_with_one_line():
    start = time.perf_counter()
    with pytest.raises(FileNotFoundError, match="did you mean 'vortex_ring'"):
        fsb.sweep("vortex_rin", {"core_radius": [0.1]}, steps=1)
    with pytest.raises(TypeError, match="must be a list"):
        fsb.sweep("vortex_ring", {"core_radius": 0.1}, steps=1)
    with pytest.raises(ValueError, match="steps= .* or until="):
        fsb.sweep("vortex_ring", {"core_radius": [0.1]})
    with pytest.raises(ValueError, match="tuple of 2"):
        fsb.sweep("vortex_ring", {("core_radius", "dt"): [(0.1,)]}, steps=1)
    assert time.perf_counter() - start < 5  # no run was started


def test_a_dask_cluster_gives_the_local_pools_numbers():
    distributed = pytest.importorskip("dask.distributed")
    grid = {"core_radius": [0.1, 0.141]}
    ring = {"ring_tracers": 0, "dt": 0.0125}
    # The local pool with two threads a run, Dask's workers with one: the CPU backend is the same
    # to the bit at any thread count.
    local = fsb.sweep("vortex_ring", grid, until=0.5, set=ring, threads=2, workers=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = fsb.sweep("vortex_ring", grid, until=0.5, set=ring, executor=client.get_executor())
    assert remote.attrs["threads"] == 1 and local.attrs["threads"] == 2
    assert local.deviation.abs().gt(0).all()
    pandas.testing.assert_frame_equal(local.drop(columns=["wall_s", "cpu_s"]), remote.drop(columns=["wall_s", "cpu_s"]), check_exact=True)


def test_the_reduced_validation_sweep_replaces_only_its_section(tmp_path):
    script = os.path.join(ROOT, "tests", "validation", "validate.py")
    sys.path.insert(0, os.path.dirname(script))
    import validate
    doc = tmp_path / "validation.md"
    doc.write_text(f"# Before\n\n{validate.BEGIN}\nTHE-OLD-SECTION\n{validate.END}\n\n## After\n")
    start = time.perf_counter()
    run = subprocess.run([sys.executable, script, "--quick", "--doc", str(doc), "--img", str(tmp_path / "img")],
                         capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - start
    assert run.returncode == 0, run.stdout + run.stderr
    text = doc.read_text()
    assert text.startswith("# Before\n\n" + validate.BEGIN) and text.endswith(validate.END + "\n\n## After\n")
    assert "THE-OLD-SECTION" not in text  # a word of the new text may hold "old"
    quick = [c for c in validate.PLAN if any(s.quick for s in c.sweeps)]
    for c in quick:
        assert c.title in text and (tmp_path / "img" / f"{c.key}.png").stat().st_size > 5000
        assert f"img/{c.key}.png" in text
    assert text.count("Worst row: ") == len(quick) and "failed" not in text
    print(f"reduced sweep: {seconds:.1f} s")
