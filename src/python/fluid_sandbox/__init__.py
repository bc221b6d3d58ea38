"""fluid-sandbox's solvers from Python.

    import fluid_sandbox as fsb
    sim = fsb.Simulation("sph_barrier", threads=2, set={"kinematic_viscosity": 0.01})
    sim.step(100)
    p = sim.field("pressure")        # a read-only NumPy view of the solver's memory (CPU)
    sim.params["gravity"] = 4.9      # checked as the window checks it
    print(sim.stats()["kinetic_energy"], sim.time)
    df = fsb.sweep("vortex_ring", {"core_radius": [0.1, 0.2]}, until=5.0)  # a pandas DataFrame

The module speaks the headless contract of `fluid-sandbox` (docs/command-line.md): the same
scenes, parameters, stats, fields and comparisons, and its one-line messages as exceptions
(FileNotFoundError, ValueError, KeyError, SimulationError). docs/python.md is the manual.
"""

from collections.abc import MutableMapping as _MutableMapping
import os as _os

from ._core import SimulationError, WindowError, backends, cpu_threads, cuda_status, has_window, solvers
from . import _core
from .sweep import sweep

__all__ = ["Simulation", "Params", "SimulationError", "WindowError", "scenes", "solvers", "backends",
           "cuda_status", "has_window", "sweep"]


def scenes():
    """The bundled scenes: a list of dicts with name, solver, title, description and path."""
    return _core._scenes()


class Params(_MutableMapping):
    """Every registered parameter of a simulation, by name.

    sim.params["flip_ratio"] reads a value; sim.params["flip_ratio"] = 0.9 sets it as the window's
    panel does (its range and the solver's limits checked; a refused value raises ValueError
    naming the key and what is allowed, and the old value stays). Parameters marked
    applies_on_reset take effect at sim.reset(). sim.params.info(name) gives the value, unit,
    range, meaning and whether it applies on reset; print(sim.params) shows them all.
    """

    def __init__(self, sim):
        self._sim = sim

    def __getitem__(self, name):
        return self._sim._param_get(name)

    def __setitem__(self, name, value):
        self._sim._param_set(name, value)

    def __delitem__(self, name):
        raise TypeError("parameters cannot be removed; set another value instead")

    def __iter__(self):
        return iter(self._sim._param_names())

    def __len__(self):
        return len(self._sim._param_names())

    def info(self, name):
        """A dict: name, value, label, group, unit, description, min, max, allowed, choices,
        read_only, applies_on_reset."""
        return self._sim._param_info(name)

    def update(self, other=(), **kwargs):
        """Sets several parameters, in order; stops at the first refused one."""
        items = list(other.items()) if hasattr(other, "items") else list(other)
        for name, value in items + list(kwargs.items()):
            self[name] = value

    def __repr__(self):
        rows = []
        group = None
        for name in self:
            i = self.info(name)
            if i["group"] != group:
                group = i["group"]
                rows.append(f"[{group}]")
            note = "read-only" if i["read_only"] else i["allowed"]  # it names the unit
            if i["applies_on_reset"]:
                note += "; applies on reset"
            rows.append(f"  {name:<22} = {i['value']!r}   ({note})")
        return "\n".join(rows)


class Simulation(_core._Simulation):
    """A scene on a backend, stepped from Python.

    Simulation(scene, backend="cpu", threads=0, set=None)
      scene    a bundled scene's name ("sph_barrier"; fluid_sandbox.scenes() lists them) or a path
      backend  "cpu" or "cuda" (fluid_sandbox.backends() says which this machine has)
      threads  CPU threads (0: all cores)
      set      {name: value} applied over the scene's parameters, as --set NAME=VALUE does

    step(n=1)          n whole steps (the GIL released; Ctrl-C stops between steps)
    stage()            the next stage alone; returns its name (stages lists them)
    reset()            the state rebuilt from the parameters
    time, step_index, dt (the last step's; 0 before the first), particle_count, dimension,
    solver, name, scene (its path), threads, backend (settable)
    params             every parameter (a Params mapping)
    field(name)        a NumPy array: on the CPU a read-only view of the solver's memory, valid
                       until the next step, stage or reset (take .copy() to keep it); a copy from
                       the GPU and for fields computed on reading (speed)
    fields()           {name: array} of every field
    set_state(...)     position=, velocity= (vorticity= for vortex): arrays shaped as field() gives
    stats()            the stats line of the last step, as a dict
    compare()          the Compare view's comparisons with known answers (a list of dicts)
    surface()          the liquid's surface mesh as arrays (3D liquids)
    export_usd(path), export_mesh(path), screenshot(path), show()
    """

    def __init__(self, scene, backend="cpu", threads=0, set=None):
        self._opened = False  # a scene that failed to open leaves no simulation to show
        super().__init__(_os.fspath(scene), backend, threads, set)
        self._opened = True
        self.params = Params(self)

    @property
    def name(self):
        """The scene's name: its file's name without .json ("sph_barrier")."""
        return _os.path.splitext(_os.path.basename(self.scene))[0]

    def fields(self):
        """Every field as a NumPy array, by name (see field())."""
        return {f["name"]: self.field(f["name"]) for f in self.field_info()}

    def set_state(self, **fields):
        """Replaces fields of the state between steps: position=..., velocity=... (the vortex
        solver: position=, vorticity=), each an array shaped as field(name) gives it, in the same
        particle order. The particle count stays the scene's."""
        if not fields:
            raise ValueError("set_state: name at least one field (settable: " + ", ".join(self.writable_fields) + ")")
        import numpy
        for name in fields:
            if name not in self.writable_fields:
                raise ValueError(f"set_state: the {self.solver} solver's field '{name}' cannot be set "
                                 f"(settable: {', '.join(self.writable_fields)})")
        for name, value in fields.items():
            self._write_field(name, numpy.asarray(value, dtype=float))

    def export_usd(self, path, fields="all"):
        """The state now as a one-frame USD file (the format of --export); fields: "all", "none"
        or a list of field names, written as primvars."""
        if not isinstance(fields, str):
            fields = ",".join(fields)
        super().export_usd(_os.fspath(path), fields)

    def export_mesh(self, path, cell=1.0, method="smooth", fields=("velocity",)):
        """The liquid's surface now as a PLY triangle mesh (3D liquids), with the particles'
        velocity and the named fields carried onto its vertices as properties; returns its
        triangle count. cell: the level set's cell in particle spacings (as --surface-cell);
        method: "smooth" or "zhu_bridson" (as --surface-method)."""
        return super().export_mesh(_os.fspath(path), cell, method, list(fields))

    def surface(self, cell=1.0, method="smooth", fields=("velocity",), smoothing_steps=-1, flat_below=-1.0,
                curved_above=-1.0):
        """The liquid's surface now (3D liquids) as NumPy arrays: {"points": (V, 3) float32,
        "triangles": (T, 3) int32 (counter-clockwise from outside), and each of `fields` carried
        onto the vertices, by name}. smoothing_steps: the smooth method's Laplacian steps on the
        flat parts (-1: its default, 60); flat_below, curved_above: the flatness (the mean squared
        difference of neighbouring vertices' smoothed normals) under which a vertex is smoothed
        fully and over which not at all (-1: the defaults)."""
        return super().surface(cell, method, list(fields), smoothing_steps, flat_below, curved_above)

    def screenshot(self, path, width=1440, height=900, frames=2):
        """A PNG of the window drawing this simulation (paused: the state is not stepped). It
        needs an OpenGL context: a display (DISPLAY, or xvfb-run); WindowError says when there
        is none."""
        status = self._window(_os.fspath(path), frames, 0.0, True, width, height, "")
        if status != 0:
            raise WindowError(f"screenshot {path}: the window failed (exit status {status}; its message is above)")

    def show(self, paused=False, width=1440, height=900, frames=0, seconds=0.0, keys=""):
        """The window on this simulation; returns when it is closed, with the state as it was
        left there (steps taken, parameters changed, another scene if one was loaded). frames,
        seconds: close by itself after that many frames or seconds; keys: a key script, as --keys."""
        status = self._window("", frames, seconds, paused, width, height, keys)
        self.params = Params(self)
        if status != 0:
            raise WindowError(f"show: the window failed (exit status {status}; its message is above)")

    def __repr__(self):
        if not getattr(self, "_opened", False):
            return "<fluid_sandbox.Simulation (not opened)>"
        return (f"<fluid_sandbox.Simulation {self.name!r} ({self.solver}, {self.backend}): "
                f"{self.particle_count} particles, step {self.step_index}, t = {self.time:.6g} s>")
