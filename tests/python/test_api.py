"""The Python module's API against the headless contract (docs/python.md).

Run by CTest (`make test`) with PYTHONPATH=build/python and FS_EXE=build/fluid-sandbox.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import fluid_sandbox as fsb

EXE = os.environ.get("FS_EXE", "build/fluid-sandbox")


def test_the_lists_name_the_bundled_scenes_solvers_and_backends():
    names = {s["name"]: s for s in fsb.scenes()}
    assert names["sph_barrier"]["solver"] == "sph"
    assert names["flip_dam_break"]["path"].endswith("scenes/flip_dam_break.json")
    assert all("error" not in s for s in names.values())
    assert set(fsb.solvers()) >= {"euler", "flip", "sph", "vortex", "ot"}
    assert fsb.backends()[0] == "cpu"


def test_a_scene_opens_with_its_settings_and_steps():
    sim = fsb.Simulation("sph_barrier", threads=1, set={"kinematic_viscosity": 0.02, "pressure_solver": "wcsph"})
    assert sim.solver == "sph" and sim.dimension == 2 and sim.backend == "cpu"
    assert sim.params["kinematic_viscosity"] == 0.02
    assert sim.params["pressure_solver"] == "wcsph"
    assert sim.step_index == 0 and sim.time == 0.0
    sim.step(3)
    assert sim.step_index == 3
    assert sim.dt > 0
    assert sim.time == pytest.approx(sum([sim.dt] * 3), rel=0.5)  # adaptive: three steps near this one
    stats = sim.stats()
    assert stats["step"] == 3 and isinstance(stats["step"], int)
    assert stats["t"] == sim.time
    assert len(stats["momentum"]) == 2


def test_stage_runs_one_named_stage_at_a_time():
    sim = fsb.Simulation("euler_tutorial", threads=1)
    names = [sim.stage() for _ in sim.stages]
    assert names == sim.stages
    assert sim.step_index == 1 and sim.next_stage == 0
    assert sim.stage() == sim.stages[0]
    assert sim.step_index == 1 and sim.next_stage == 1
    sim.step()  # finishes the step in progress
    assert sim.step_index == 2 and sim.next_stage == 0


def test_reset_returns_to_step_zero_with_the_same_state():
    sim = fsb.Simulation("euler_tutorial", threads=1)
    start = sim.field("position").copy()
    sim.step(5)
    assert not np.array_equal(np.sort(sim.field("position"), axis=0), np.sort(start, axis=0))
    sim.reset()
    assert sim.step_index == 0 and sim.time == 0.0
    ids = sim.field("id")
    assert np.array_equal(sim.field("position")[np.argsort(ids)], start)


def test_params_carry_value_unit_range_meaning_and_reset():
    sim = fsb.Simulation("flip_dam_break", threads=1)
    assert "flip_ratio" in sim.params and len(sim.params) == len(list(sim.params))
    info = sim.params.info("flip_ratio")
    assert info["min"] == 0 and info["max"] == 1 and info["description"]
    assert info["applies_on_reset"] is False and info["read_only"] is False
    resets = [n for n in sim.params if sim.params.info(n)["applies_on_reset"]]
    assert resets, "some parameters rebuild the state"
    sim.params["flip_ratio"] = 0.5
    assert sim.params["flip_ratio"] == 0.5
    assert "flip_ratio" in repr(sim.params)


def test_a_refused_value_names_the_key_and_what_is_allowed_and_keeps_the_old_one():
    sim = fsb.Simulation("flip_dam_break", threads=1)
    before = sim.params["flip_ratio"]
    with pytest.raises(ValueError, match=r"flip_ratio: .*\[0, 1\]"):
        sim.params["flip_ratio"] = 1.5
    assert sim.params["flip_ratio"] == before
    with pytest.raises(ValueError, match="pressure_solver: .*one of"):
        sim.params["pressure_solver"] = "spectral"
    with pytest.raises(KeyError, match="did you mean 'flip_ratio'"):
        sim.params["flip_ration"]
    read_only = [n for n in sim.params if sim.params.info(n)["read_only"]]
    with pytest.raises(ValueError, match="read-only"):
        sim.params[read_only[0]] = 1


def test_bad_input_raises_the_programs_one_line_messages():
    with pytest.raises(FileNotFoundError, match="did you mean 'flip_dam_break'"):
        fsb.Simulation("flip_dam_brake")
    with pytest.raises(FileNotFoundError, match="no such scene"):
        fsb.Simulation("/nowhere/scene.json")
    with pytest.raises(ValueError, match=r"set\['kinematic_viscosty'\]: unknown parameter"):
        fsb.Simulation("sph_barrier", set={"kinematic_viscosty": 0.1})
    with pytest.raises(ValueError, match="backend 'tpu': allowed: cpu, cuda"):
        fsb.Simulation("sph_barrier", backend="tpu")
    with pytest.raises(KeyError, match="no field 'presure'; did you mean 'pressure'"):
        fsb.Simulation("sph_barrier").field("presure")


def test_a_blow_up_raises_SimulationError_naming_the_step_and_quantity():
    sim = fsb.Simulation("euler_tutorial", threads=1, set={"gravity": 1000, "tau": 0.01, "boundary": "open"})
    with pytest.raises(fsb.SimulationError, match=r"step \d+.*max_speed"):
        sim.step(100)


def test_a_field_is_a_read_only_view_of_the_solvers_memory_that_follows_the_steps():
    sim = fsb.Simulation("sph_barrier", threads=1)
    p = sim.field("pressure")
    assert p.shape == (sim.particle_count,) and p.dtype == np.float64
    assert not p.flags.writeable and not p.flags.owndata  # a view: no copy was made
    with pytest.raises(ValueError):
        p[0] = 1.0
    x = sim.field("position")
    assert x.shape == (sim.particle_count, 2)
    before, before_ids = x.copy(), sim.field("id").copy()
    sim.step(5)
    after = sim.field("position")
    assert not after.flags.owndata
    # the same particles (by id), moved: the view shows the state after the steps
    moved = after[np.argsort(sim.field("id"))] - before[np.argsort(before_ids)]
    assert np.abs(moved).max() > 0
    assert sim.field("kind").dtype == np.int32
    # a field computed as it is read is a copy, still read-only
    speed = sim.field("speed")
    assert speed.flags.owndata and not speed.flags.writeable
    np.testing.assert_allclose(speed, np.linalg.norm(sim.field("velocity"), axis=1), rtol=1e-12)


def test_a_view_kept_past_a_reset_that_grew_the_state_stays_readable():
    sim = fsb.Simulation("euler_tutorial", threads=1, set={"n_particles": 100})
    old = sim.field("position")
    kept = old.copy()
    sim.params["n_particles"] = 5000
    sim.reset()  # the arrays grow: their old memory is given back while the view lives
    assert sim.particle_count == 5000
    # parked, not freed: an allocator would have written its own pointers over freed memory
    np.testing.assert_array_equal(old, kept)
    del old


def test_fields_lists_every_field():
    sim = fsb.Simulation("vortex_ring", threads=1)
    fields = sim.fields()
    assert set(fields) == {f["name"] for f in sim.field_info()}
    assert fields["position"].shape == (sim.particle_count, 3)


def test_set_state_round_trips_and_the_solver_steps_from_it():
    sim = fsb.Simulation("euler_tutorial", threads=1)
    x = sim.field("position").copy()
    v = sim.field("velocity").copy()
    x2 = x * 0.9 + 0.05
    v2 = -v
    sim.set_state(position=x2, velocity=v2)
    assert np.array_equal(sim.field("position"), x2)
    assert np.array_equal(sim.field("velocity"), v2)
    sim.step()
    assert sim.step_index == 1 and np.isfinite(sim.field("position")).all()


def test_set_state_refuses_another_shape_and_unknown_fields():
    sim = fsb.Simulation("euler_tutorial", threads=1)
    n = sim.particle_count
    with pytest.raises(ValueError, match=rf"position: expected an array of shape \({n}, 2\).*got \(3, 2\)"):
        sim.set_state(position=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="cannot be set .*settable: position, velocity"):
        sim.set_state(mass=np.ones(n))
    with pytest.raises(ValueError, match="finite"):
        sim.set_state(velocity=np.full((n, 2), np.nan))


def test_set_state_takes_a_vortex_states_vorticity():
    sim = fsb.Simulation("vortex_ring", threads=1)
    w = sim.field("vorticity").copy()
    sim.set_state(vorticity=2 * w)
    np.testing.assert_array_equal(sim.field("vorticity"), 2 * w)


def test_one_hundred_steps_from_python_give_the_command_lines_bits(tmp_path):
    stats = tmp_path / "s.jsonl"
    cli = subprocess.run([EXE, "sph_barrier", "--headless", "--steps", "100", "--threads", "2",
                          "--set", "kinematic_viscosity=0.02", "--stats", str(stats)],
                         capture_output=True, text=True, check=True)
    assert "100 steps" in cli.stdout
    line = json.loads(stats.read_text().splitlines()[-1])
    sim = fsb.Simulation("sph_barrier", threads=2, set={"kinematic_viscosity": 0.02})
    sim.step(100)
    mine = sim.stats()
    compared = 0
    for key, value in line.items():
        if key.endswith("_ms") or key.startswith("threads"):
            continue  # timings
        assert mine[key] == value, key
        compared += 1
    assert compared >= 8


def test_compare_returns_the_compare_views_results():
    sim = fsb.Simulation("sph_hydrostatic", threads=2)
    sim.step(20)
    results = sim.compare()
    assert results, "the tank has a known answer"
    names = [r["name"] for r in results]
    assert "hydrostatic" in names
    r = results[names.index("hydrostatic")]
    assert r["simulation"]["x"] and r["reference"]["x"]


def test_exports_write_usd_and_ply(tmp_path):
    sim = fsb.Simulation("flip_hydrostatic", threads=2)
    sim.step(2)
    usd = tmp_path / "state.usda"
    sim.export_usd(usd, fields=["speed"])
    text = usd.read_text()
    assert text.startswith("#usda 1.0") and "primvars:speed" in text
    ply = tmp_path / "surface.ply"
    triangles = sim.export_mesh(ply)
    assert triangles > 100 and ply.read_bytes().startswith(b"ply")
    assert b"property float vx" in ply.read_bytes()[:400]
    mesh = sim.surface(fields=["velocity", "pressure"])
    assert mesh["triangles"].shape == (triangles, 3) and mesh["points"].shape[1] == 3
    assert mesh["velocity"].shape == mesh["points"].shape and mesh["pressure"].shape == (len(mesh["points"]),)
    assert mesh["triangles"].max() < len(mesh["points"])
    with pytest.raises(ValueError, match="surface method 'marching': allowed: smooth, zhu_bridson"):
        sim.surface(method="marching")
    with pytest.raises(ValueError, match="export_mesh: "):
        fsb.Simulation("sph_barrier").export_mesh(tmp_path / "no.ply")
    with pytest.raises(ValueError, match="no field 'nope'"):
        sim.export_usd(tmp_path / "x.usda", fields=["nope"])


def test_a_step_releases_the_gil():
    sim = fsb.Simulation("sph_dam_break", threads=1)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    sim.step(200)
    done.set()
    t.join()
    assert len(ticks) > 20, "the other thread ran while the steps ran"


def test_ctrl_c_stops_a_long_step_between_steps():
    code = ("import fluid_sandbox as f, sys\n"
            "sim = f.Simulation('sph_dam_break', threads=1)\n"
            "print('ready', flush=True)\n"
            "try:\n"
            "    sim.step(10**9)\n"
            "except KeyboardInterrupt:\n"
            "    print('stopped at', sim.step_index, sim.next_stage, flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    steps, stage = out.split()[2:4]
    assert int(steps) > 0 and int(stage) == 0, out


@pytest.mark.skipif("cuda" not in fsb.backends(), reason="no usable GPU here: " + fsb.cuda_status())
def test_the_cuda_backend_follows_the_cpu():
    cpu = fsb.Simulation("euler_tutorial", threads=1)
    gpu = fsb.Simulation("euler_tutorial", backend="cuda")
    cpu.step(10)
    gpu.step(10)
    x = gpu.field("position")
    assert x.flags.owndata  # a copy from the GPU
    np.testing.assert_allclose(np.sort(x, axis=0), np.sort(cpu.field("position"), axis=0), atol=1e-9)


def test_the_module_installs_into_a_virtual_environment_without_the_internet(tmp_path):
    venv = tmp_path / "env"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    built = os.path.dirname(os.path.dirname(fsb.__file__))  # build/python
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    out = subprocess.run(["/usr/bin/python3", os.path.join(root, "src", "python", "install.py"), built, str(venv)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    check = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import fluid_sandbox as f; s = f.Simulation('euler_tutorial'); s.step(2); "
                            "print(f.__file__, s.step_index)"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    path, steps = check.stdout.split()
    assert path.startswith(str(venv)) and steps == "2"
    bad = subprocess.run(["/usr/bin/python3", os.path.join(root, "src", "python", "install.py"), built,
                          str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert bad.returncode == 2 and "not a virtual environment" in bad.stderr


def test_a_reset_run_repeats_a_fresh_runs_bits():
    # FLIP's Jacobi starts from the last step's pressure: a reset must start it from zero again
    settings = {"resolution": 16, "pressure_solver": "jacobi", "jacobi_iterations": 20}
    fresh = fsb.Simulation("flip_dam_break", threads=1, set=settings)
    fresh.step(5)
    again = fsb.Simulation("flip_dam_break", threads=1, set=settings)
    again.step(5)
    again.reset()
    again.step(5)
    for key in ("kinetic_energy", "div_max_after", "max_speed"):
        assert again.stats()[key] == fresh.stats()[key], key


def test_set_states_velocities_bound_the_next_adaptive_step():
    sim = fsb.Simulation("flip_dam_break", threads=1, set={"resolution": 16})
    calm = fsb.Simulation("flip_dam_break", threads=1, set={"resolution": 16})
    v = np.zeros_like(sim.field("velocity"))
    v[:, 0] = 10.0
    sim.set_state(velocity=v)
    sim.step()
    calm.step()
    assert sim.dt < 0.5 * calm.dt, (sim.dt, calm.dt)  # the CFL bound of 10 m/s, not the still start's
