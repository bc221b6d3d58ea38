"""The Python module's window: show() and screenshot() under Xvfb (CTest runs this file through
xvfb-run), and the clear error where there is no display."""
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import fluid_sandbox as fsb

pytestmark = pytest.mark.skipif(not fsb.has_window, reason="this build has no window (FS_BUILD_APP=OFF)")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])


def test_show_opens_runs_and_closes_with_the_state_as_the_window_left_it():
    sim = fsb.Simulation("euler_tutorial", threads=1)
    sim.step(3)
    sim.params["wall_damping"] = 0.5
    sim.show(frames=30, width=640, height=400)
    # the window ran the simulation on from step 3, and the Python object has it back
    assert sim.step_index > 3
    assert sim.params["wall_damping"] == 0.5
    before = sim.step_index
    sim.step()
    assert sim.step_index == before + 1
    assert np.isfinite(sim.field("position")).all()


def test_show_paused_leaves_the_state_as_it_was():
    sim = fsb.Simulation("sph_barrier", threads=1)
    sim.step(2)
    x = sim.field("position").copy()
    sim.show(paused=True, frames=5, width=640, height=400)
    assert sim.step_index == 2
    np.testing.assert_array_equal(sim.field("position"), x)


def test_screenshot_draws_the_current_state_without_stepping(tmp_path):
    sim = fsb.Simulation("flip_hydrostatic", threads=2)
    sim.step(2)
    path = tmp_path / "shot.png"
    sim.screenshot(path, width=800, height=500)
    assert png_size(path) == (800, 500)
    assert sim.step_index == 2


def test_without_a_display_the_window_says_so():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    code = ("import fluid_sandbox as f\n"
            "sim = f.Simulation('euler_tutorial')\n"
            "try:\n"
            "    sim.screenshot('x.png')\n"
            "except f.WindowError as e:\n"
            "    print('WindowError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "WindowError: no display found" in out.stdout, out.stdout + out.stderr
