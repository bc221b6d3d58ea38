"""Render the liquid surfaces fluid-sandbox exports (--export-mesh DIR) with Blender, headless.

    fluid-sandbox flip_dam_break --headless --steps 120 --export-every 10 --export-mesh frames
    blender -b --factory-startup --python src/blender/render_surface.py -- --frames frames --out still.png
    blender -b --factory-startup --python src/blender/render_surface.py -- --frames frames --video --out renders/

Each PLY file of the sequence (every *.ply of a folder, or the files a glob pattern names, sorted by
the last number in their names) becomes one object, shown only on its frame: the N-th file is
Blender's frame N. The simulation's y is up; Blender's z is, so points (x, y, z) become (x, -z, y).
The files are read here, not by Blender's PLY importer, which drops every vertex property but the
position. Vertex properties become mesh attributes on the POINT domain: vx vy vz the FLOAT_VECTOR
"velocity" (in Blender's axes), "speed" a FLOAT (the file's own, else the velocity's length),
NAME_x NAME_y NAME_z a FLOAT_VECTOR NAME, any other a FLOAT of its name. Where there is a speed,
the water whitens a little where it is fast.

The scene: a water material (Principled BSDF, transmission 1, IOR 1.33, a blue tint and a light
absorption inside), a grey floor, the simulation's box as a thin frame, a sun and a sky, a camera
looking at the box from a 3/4 view. Cycles renders on the CPU. One line is printed per file written.
Bad input (no PLY files, an unreadable PLY, a bad option) ends with one line on stderr and exit
status 2. See docs/blender.md.
"""

import argparse
import glob
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import time

import numpy as np

PROG = "render_surface.py"


class InputError(Exception):
    """Bad input: reported as one line, exit status 2."""


# ---------------------------------------------------------------------------------------------
# PLY files (Turk, "The PLY Polygon File Format"): ascii, binary_little_endian and
# binary_big_endian; any scalar types; faces as a list property of element "face".

_PLY_TYPES = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1",
    "short": "i2", "int16": "i2", "ushort": "u2", "uint16": "u2",
    "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
    "float": "f4", "float32": "f4", "double": "f8", "float64": "f8",
}


class PlyMesh:
    """A PLY file's vertices (float32, N x 3, the file's axes), its faces as polygon sizes and a
    flat array of vertex indices, its other scalar vertex properties (name -> float32 array of
    N) and its comment lines."""

    def __init__(self, path, points, face_sizes, face_indices, vertex_props, comments):
        self.path = path
        self.points = points
        self.face_sizes = face_sizes
        self.face_indices = face_indices
        self.vertex_props = vertex_props
        self.comments = comments

    @property
    def velocity(self):
        """N x 3 from vx vy vz (or velocity_x _y _z), the simulation's axes; None without."""
        for names in (("vx", "vy", "vz"), ("velocity_x", "velocity_y", "velocity_z")):
            if all(k in self.vertex_props for k in names):
                return np.column_stack([self.vertex_props[k] for k in names])
        return None

    @property
    def speed(self):
        """The file's own "speed" property, else the length of its velocity, else None."""
        if "speed" in self.vertex_props:
            return self.vertex_props["speed"]
        velocity = self.velocity
        return None if velocity is None else np.linalg.norm(velocity, axis=1).astype(np.float32)

    def attributes(self):
        """[(name, values)], the mesh attributes the file gives: "velocity" (N x 3), "speed" (N),
        a vector NAME (N x 3) for each NAME_x NAME_y NAME_z, and every other property (N) by its
        own name. Vectors are in the simulation's axes."""
        props = self.vertex_props
        out = []
        used = {"vx", "vy", "vz", "speed", "position"}  # "position" is Blender's own
        if self.velocity is not None:
            out.append(("velocity", self.velocity))
            used |= {"velocity_x", "velocity_y", "velocity_z"}
        if self.speed is not None:
            out.append(("speed", self.speed))
        for name in props:
            base = name[:-2]
            if name.endswith("_x") and base not in used and all(f"{base}_{a}" in props for a in "yz"):
                out.append((base, np.column_stack([props[f"{base}_{a}"] for a in "xyz"])))
                used |= {base, f"{base}_x", f"{base}_y", f"{base}_z"}
        taken = {n for n, _ in out}
        out += [(n, v) for n, v in props.items() if n not in used and n not in taken and not n.startswith(".")]
        return out

    def comment_value(self, pattern):
        for c in self.comments:
            m = re.search(pattern, c)
            if m:
                return m.group(1)
        return None


def _parse_header(data, path):
    if not data.startswith(b"ply"):
        raise InputError(f"{path}: not a PLY file (it does not start with 'ply')")
    end = data.find(b"end_header")
    if end < 0:
        raise InputError(f"{path}: not a PLY file (no end_header)")
    body = data.find(b"\n", end)
    if body < 0:
        raise InputError(f"{path}: truncated PLY header")
    try:
        lines = data[:end].decode("ascii").splitlines()
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a PLY file (its header is not ASCII)") from None
    fmt, elements, comments = None, [], []
    for number, raw in enumerate(lines[1:], start=2):
        words = raw.split()
        if not words:
            continue
        key = words[0]
        try:
            if key == "format":
                fmt = words[1]
                if fmt not in ("ascii", "binary_little_endian", "binary_big_endian"):
                    raise InputError(f"{path}: unknown PLY format {fmt!r}")
            elif key == "comment" or key == "obj_info":
                comments.append(raw.partition(" ")[2].strip())
            elif key == "element":
                elements.append({"name": words[1], "count": int(words[2]), "props": []})
                if elements[-1]["count"] < 0:
                    raise ValueError
            elif key == "property":
                if not elements:
                    raise ValueError
                if words[1] == "list":
                    prop = (words[4], _PLY_TYPES[words[2]], _PLY_TYPES[words[3]])
                else:
                    prop = (words[2], _PLY_TYPES[words[1]], None)
                elements[-1]["props"].append(prop)
            else:
                raise ValueError
        except (IndexError, KeyError, ValueError):
            raise InputError(f"{path}: bad PLY header line {number}: {raw.strip()!r}") from None
    if fmt is None:
        raise InputError(f"{path}: bad PLY header (no format line)")
    return fmt, elements, comments, body + 1


def _read_binary(data, offset, fmt, elements, path):
    order = "<" if fmt == "binary_little_endian" else ">"
    arrays = {}
    for el in elements:
        props, count = el["props"], el["count"]
        lists = [p for p in props if p[2] is not None]
        if not lists:
            dtype = np.dtype([(name, order + t) for name, t, _ in props])
            size = dtype.itemsize * count
            if offset + size > len(data):
                raise InputError(f"{path}: truncated (element {el['name']})")
            rows = np.frombuffer(data, dtype, count, offset)
            arrays[el["name"]] = {name: rows[name] for name in dtype.names}
            offset += size
            continue
        if len(props) == 1 and count > 0:
            # One list a row (faces): when every list has the first one's length, one read.
            name, count_t, item_t = props[0]
            ct = np.dtype(order + count_t)
            if offset + ct.itemsize > len(data):
                raise InputError(f"{path}: truncated (element {el['name']})")
            n = int(np.frombuffer(data, ct, 1, offset)[0])
            dtype = np.dtype([("n", ct), ("i", order + item_t, (n,))])
            if n > 0 and offset + dtype.itemsize * count <= len(data):
                rows = np.frombuffer(data, dtype, count, offset)
                if np.all(rows["n"] == n):
                    arrays[el["name"]] = {name: (np.full(count, n, np.int64), rows["i"].reshape(-1))}
                    offset += dtype.itemsize * count
                    continue
        # Any other layout, a row at a time.
        columns = {p[0]: [] for p in props}
        sizes = {p[0]: [] for p in props}
        for _ in range(count):
            for name, t, item_t in props:
                try:
                    if item_t is None:
                        (v,) = struct.unpack_from(order + _struct_code(t), data, offset)
                        offset += struct.calcsize(_struct_code(t))
                        columns[name].append(v)
                    else:
                        (n,) = struct.unpack_from(order + _struct_code(t), data, offset)
                        offset += struct.calcsize(_struct_code(t))
                        code = _struct_code(item_t)
                        columns[name].extend(struct.unpack_from(order + code * n, data, offset))
                        offset += struct.calcsize(code) * n
                        sizes[name].append(n)
                except struct.error:
                    raise InputError(f"{path}: truncated (element {el['name']})") from None
        arrays[el["name"]] = _columns(props, columns, sizes)
    return arrays


def _struct_code(t):
    return {"i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I", "f4": "f", "f8": "d"}[t]


def _columns(props, columns, sizes):
    out = {}
    for name, t, item_t in props:
        if item_t is None:
            out[name] = np.asarray(columns[name], dtype=t)
        else:
            out[name] = (np.asarray(sizes[name], np.int64), np.asarray(columns[name], dtype=item_t))
    return out


def _read_ascii(data, offset, elements, path):
    words = data[offset:].split()
    pos = 0
    arrays = {}
    try:
        for el in elements:
            props, count = el["props"], el["count"]
            if all(p[2] is None for p in props):
                k = len(props)
                if pos + k * count > len(words):
                    raise IndexError
                block = np.asarray(words[pos:pos + k * count], dtype=np.float64).reshape(count, k)
                pos += k * count
                arrays[el["name"]] = {p[0]: block[:, j].astype(p[1]) for j, p in enumerate(props)}
                continue
            columns = {p[0]: [] for p in props}
            sizes = {p[0]: [] for p in props}
            for _ in range(count):
                for name, t, item_t in props:
                    if item_t is None:
                        columns[name].append(float(words[pos]))
                        pos += 1
                    else:
                        n = int(words[pos])
                        columns[name].extend(int(w) for w in words[pos + 1:pos + 1 + n])
                        if pos + 1 + n > len(words):
                            raise IndexError
                        pos += 1 + n
                        sizes[name].append(n)
            arrays[el["name"]] = _columns(props, columns, sizes)
    except IndexError:
        raise InputError(f"{path}: truncated (element {el['name']})") from None
    except ValueError:
        raise InputError(f"{path}: bad number in element {el['name']}") from None
    return arrays


def read_ply(path):
    """Reads one PLY file into a PlyMesh; InputError (one line) when it cannot."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read it ({e.strerror or e})") from None
    fmt, elements, comments, offset = _parse_header(data, path)
    try:
        if fmt == "ascii":
            arrays = _read_ascii(data, offset, elements, path)
        else:
            arrays = _read_binary(data, offset, fmt, elements, path)
    except (ValueError, TypeError, OverflowError, MemoryError) as e:  # e.g. a property named twice
        raise InputError(f"{path}: unreadable PLY data ({e})") from None
    vertex = arrays.get("vertex")
    if vertex is None:
        raise InputError(f"{path}: no 'element vertex' in the PLY header")
    if not all(k in vertex and not isinstance(vertex[k], tuple) for k in ("x", "y", "z")):
        raise InputError(f"{path}: the vertices have no x, y, z")
    points = np.column_stack([np.asarray(vertex[k], np.float32) for k in ("x", "y", "z")])
    props = {}
    for name, column in vertex.items():
        if name not in ("x", "y", "z") and not isinstance(column, tuple):
            props[name] = np.ascontiguousarray(column, dtype=np.float32)
    sizes, indices = np.zeros(0, np.int64), np.zeros(0, np.int64)
    face = arrays.get("face")
    if face:
        lists = [v for v in face.values() if isinstance(v, tuple)]
        if not lists:
            raise InputError(f"{path}: the faces have no list of vertex indices")
        sizes, indices = lists[0]
        indices = indices.astype(np.int64)
        if indices.size and (indices.min() < 0 or indices.max() >= len(points)):
            raise InputError(f"{path}: a face names a vertex that does not exist")
        if np.any(sizes < 3):  # points and edges are no polygons: leave them out
            keep = np.repeat(sizes >= 3, sizes)
            sizes, indices = sizes[sizes >= 3], indices[keep]
    if not (np.all(np.isfinite(points))):
        raise InputError(f"{path}: a vertex is not a finite number")
    return PlyMesh(path, points, sizes, indices, props, comments)


# ---------------------------------------------------------------------------------------------
# The sequence


def _number(path):
    found = re.findall(r"\d+", os.path.splitext(os.path.basename(path))[0])
    return int(found[-1]) if found else -1


def find_frames(spec):
    """The PLY files of a folder, a single file or a glob pattern, sorted by the last number in
    their names (then by name)."""
    spec = os.path.expanduser(spec)
    if os.path.isdir(spec):
        files = [os.path.join(spec, n) for n in os.listdir(spec) if n.lower().endswith(".ply")]
        where = f"in {spec}"
    elif os.path.isfile(spec):
        files = [spec]
        where = spec
    else:
        files = glob.glob(spec)
        where = f"match {spec}" if glob.has_magic(spec) else f"at {spec} (no such folder or file)"
    files = [f for f in files if os.path.isfile(f)]
    if not files:
        raise InputError(f"no PLY files {where}")
    return sorted(files, key=lambda f: (_number(f), os.path.basename(f), f))


def to_blender(v):
    """Simulation axes (y up) to Blender's (z up): (x, y, z) -> (x, -z, y), a rotation about x."""
    return np.ascontiguousarray(np.column_stack((v[:, 0], -v[:, 2], v[:, 1])), dtype=np.float32)


def header_comments(path):
    """The comment lines of a PLY file's header, read without its data ([] if it has none)."""
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return []
    end = head.find(b"end_header")
    if not head.startswith(b"ply") or end < 0:
        return []
    lines = head[:end].decode("ascii", "replace").splitlines()
    return [line.partition(" ")[2].strip() for line in lines if line.startswith("comment ")]


def time_between_frames(files):
    """The median simulated time between consecutive files, from 't = T s' in their comments;
    None when a file lacks it or the times do not grow."""
    times = []
    for path in files:
        found = [re.search(r"\bt = (\S+) s", c) for c in header_comments(path)]
        found = [m for m in found if m]
        try:
            times.append(float(found[0].group(1)))
        except (IndexError, ValueError):
            return None
    steps = np.diff(times)
    steps = steps[steps > 0]
    return float(np.median(steps)) if len(steps) else None


def scene_domain(meshes):
    """The box (size, y up) named by the files' comment 'fluid-sandbox SCENE.json ...', if that
    scene file still exists and gives domain_size; else None."""
    for mesh in meshes:
        scene = mesh.comment_value(r"fluid-sandbox (\S+\.json)")
        if not scene:
            continue
        for candidate in (scene, os.path.join(os.path.dirname(mesh.path), scene)):
            try:
                with open(candidate) as f:
                    size = json.load(f)["params"]["domain_size"]
                if len(size) == 3 and all(float(s) > 0 for s in size):
                    return [float(s) for s in size], candidate
            except (OSError, ValueError, KeyError, TypeError):
                continue
    return None, None


# ---------------------------------------------------------------------------------------------
# Options


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise InputError(message)


def _resolution(text):
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not m or not (4 <= int(m.group(1)) <= 16384 and 4 <= int(m.group(2)) <= 16384):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT from 4 to 16384, e.g. 960x540, not {text!r}")
    return int(m.group(1)), int(m.group(2))


def _positive_int(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return v


def _numbers(count, what, positive=False):
    def parse(text):
        parts = [p for p in re.split(r"[\s,xX]+", text.strip()) if p]
        try:
            values = [float(p) for p in parts]
        except ValueError:
            values = []
        if len(values) != count or not all(math.isfinite(v) and (v > 0 or not positive) for v in values):
            raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}")
        return values
    return parse


def _non_negative(text):
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, not {text!r}")
    return v


def parse_args(argv):
    p = _Parser(prog="blender -b --factory-startup --python render_surface.py --",
                description="Render fluid-sandbox's PLY surface meshes with Cycles (see docs/blender.md).")
    p.add_argument("--frames", required=True, metavar="DIR_OR_GLOB",
                   help="a folder of *.ply files, one PLY file, or a glob pattern (quote it); sorted by the last number in the names")
    p.add_argument("--out", metavar="PATH",
                   help="still: a .png (default surface.png); --video: a folder, a pattern with #### "
                        "(frames/water_####.png) or a .mp4 (its frames go to NAME_frames/) (default surface_frames/)")
    p.add_argument("--frame", type=int, metavar="N",
                   help="still: the N-th file of the sequence, Blender's frame N (default the last)")
    p.add_argument("--video", action="store_true",
                   help="render every frame; with ffmpeg on PATH also an .mp4 of them")
    p.add_argument("--resolution", type=_resolution, default=(960, 540), metavar="WxH", help="default 960x540")
    p.add_argument("--samples", type=_positive_int, default=32, metavar="N", help="Cycles samples a pixel (default 32)")
    p.add_argument("--fps", type=_positive_int, default=24, metavar="N", help="frames a second of the video (default 24)")
    p.add_argument("--domain", type=_numbers(3, "three sizes W,H,D in m, each > 0", positive=True), metavar="W,H,D",
                   help="the simulation's box (y up), drawn as the tank (default: the scene file the "
                        "PLY comment names, else the meshes' bounds)")
    p.add_argument("--view", type=_numbers(2, "AZIMUTH,ELEVATION in degrees"), default=[-35.0, 22.0],
                   metavar="AZ,EL", help="camera direction in degrees, 0,0 looking at the box's front (default -35,22)")
    p.add_argument("--foam-speed", type=_non_negative, metavar="M_PER_S",
                   help="speed at which the water is whitest, from 0.6 of it up (files with speed or vx vy vz "
                        "only); 0: never; default sqrt(2 g H), H the box's height")
    p.add_argument("--motion-blur", type=_non_negative, nargs="?", const=0.5, metavar="SHUTTER",
                   help="blur by the velocity attribute, the shutter open SHUTTER of the simulated time "
                        "between frames (default 0.5; from the files' comments, else of 1/fps)")
    p.add_argument("--save-blend", metavar="FILE.blend", help="also save the scene, every frame of it, to open in Blender")
    p.add_argument("--verbose", action="store_true", help="keep Blender's own render progress lines")
    # "--view -35,20": a value that starts with '-' but is no number argparse takes for an option
    joined, i = [], 0
    while i < len(argv):
        if argv[i] == "--view" and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            joined.append(f"--view={argv[i + 1]}")
            i += 2
        else:
            joined.append(argv[i])
            i += 1
    return p.parse_args(joined)


def script_argv(argv):
    return argv[argv.index("--") + 1:] if "--" in argv else []


# ---------------------------------------------------------------------------------------------
# The Blender scene (bpy is imported here so that the PLY reader works without Blender)


def add_mesh_object(bpy, name, ply, collection):
    points = to_blender(ply.points)
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(points))
    mesh.vertices.foreach_set("co", points.reshape(-1))
    n_loops = int(ply.face_sizes.sum())
    if len(ply.face_sizes):
        mesh.loops.add(n_loops)
        mesh.loops.foreach_set("vertex_index", ply.face_indices.astype(np.int32))
        mesh.polygons.add(len(ply.face_sizes))
        starts = np.concatenate(([0], np.cumsum(ply.face_sizes)[:-1])).astype(np.int32)
        mesh.polygons.foreach_set("loop_start", starts)
        mesh.polygons.foreach_set("loop_total", ply.face_sizes.astype(np.int32))
        mesh.polygons.foreach_set("use_smooth", np.ones(len(ply.face_sizes), dtype=bool))
    mesh.update(calc_edges=True)
    for attr_name, values in ply.attributes():
        if attr_name in mesh.attributes:
            continue
        if values.ndim == 2:
            attr = mesh.attributes.new(attr_name, "FLOAT_VECTOR", "POINT")
            attr.data.foreach_set("vector", to_blender(values).reshape(-1))
        else:
            attr = mesh.attributes.new(attr_name, "FLOAT", "POINT")
            attr.data.foreach_set("value", np.ascontiguousarray(values, np.float32))
    obj = bpy.data.objects.new(name, mesh)
    collection.objects.link(obj)
    return obj


def key_visibility(obj, frame, first, last):
    """Shown on `frame` only: keys hidden the frame before and after (constant in between)."""
    keys = [(frame, False)]
    if frame > first:
        keys.append((frame - 1, True))
    if frame < last:
        keys.append((frame + 1, True))
    for f, hidden in keys:
        obj.hide_render = hidden
        obj.hide_viewport = hidden
        obj.keyframe_insert("hide_render", frame=f)
        obj.keyframe_insert("hide_viewport", frame=f)
    for fc in obj.animation_data.action.fcurves:
        for k in fc.keyframe_points:
            k.interpolation = "CONSTANT"


def water_material(bpy, scale, foam):
    """Principled glass-like water; `foam` = (lo, hi) m/s: whiter from lo to hi (None: never)."""
    mat = bpy.data.materials.new("Water")
    mat.use_nodes = True
    nt = mat.node_tree
    nodes, links = nt.nodes, nt.links
    bsdf = nodes["Principled BSDF"]
    out = nodes["Material Output"]
    tint = (0.86, 0.95, 1.0, 1.0)
    bsdf.inputs["Base Color"].default_value = tint
    bsdf.inputs["Transmission"].default_value = 1.0
    bsdf.inputs["IOR"].default_value = 1.33
    bsdf.inputs["Roughness"].default_value = 0.04
    bsdf.inputs["Specular"].default_value = 0.5
    surface = bsdf.outputs["BSDF"]
    if foam is not None:
        lo, hi = foam
        attr = nodes.new("ShaderNodeAttribute")
        attr.attribute_type = "GEOMETRY"
        attr.attribute_name = "speed"
        ramp = nodes.new("ShaderNodeMapRange")
        ramp.clamp = True
        ramp.inputs["From Min"].default_value = lo
        ramp.inputs["From Max"].default_value = max(hi, lo + 1e-6)
        ramp.inputs["To Max"].default_value = 0.4  # at most a little white: a hint of foam
        links.new(attr.outputs["Fac"], ramp.inputs["Value"])
        w = ramp.outputs["Result"]
        transmission = nodes.new("ShaderNodeMath")
        transmission.operation = "SUBTRACT"
        transmission.inputs[0].default_value = 1.0
        links.new(w, transmission.inputs[1])
        links.new(transmission.outputs["Value"], bsdf.inputs["Transmission"])
        rough = nodes.new("ShaderNodeMath")
        rough.operation = "MULTIPLY_ADD"
        rough.inputs[1].default_value = 0.5
        rough.inputs[2].default_value = 0.04
        links.new(w, rough.inputs[0])
        links.new(rough.outputs["Value"], bsdf.inputs["Roughness"])
        mix = nodes.new("ShaderNodeMixRGB")
        mix.inputs["Color1"].default_value = tint
        mix.inputs["Color2"].default_value = (0.95, 0.97, 1.0, 1.0)
        links.new(w, mix.inputs["Fac"])
        links.new(mix.outputs["Color"], bsdf.inputs["Base Color"])
    # Shadow rays pass through, lightly tinted: Cycles has no caustics here, and a glass
    # surface would otherwise cast the black shadow of a stone.
    path = nodes.new("ShaderNodeLightPath")
    clear = nodes.new("ShaderNodeBsdfTransparent")
    clear.inputs["Color"].default_value = (0.78, 0.88, 0.92, 1.0)
    mix = nodes.new("ShaderNodeMixShader")
    links.new(path.outputs["Is Shadow Ray"], mix.inputs["Fac"])
    links.new(surface, mix.inputs[1])
    links.new(clear.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], out.inputs["Surface"])
    # A light blue-green absorption inside: deep water looks deeper.
    absorb = nodes.new("ShaderNodeVolumeAbsorption")
    absorb.inputs["Color"].default_value = (0.45, 0.78, 0.88, 1.0)
    absorb.inputs["Density"].default_value = 2.5 / scale
    links.new(absorb.outputs["Volume"], out.inputs["Volume"])
    try:
        mat.cycles.homogeneous_volume = True
    except AttributeError:
        pass
    return mat


def plain_material(bpy, name, color, roughness, metallic=0.0):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = color
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Metallic"].default_value = metallic
    return mat


def add_tank(bpy, collection, lo, hi, scale):
    """The box as a thin dark frame (a wireframe of its 12 edges) and a light floor under it."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    corners = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
               (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    mesh = bpy.data.meshes.new("Tank")
    mesh.from_pydata(corners, [], faces)
    tank = bpy.data.objects.new("Tank", mesh)
    collection.objects.link(tank)
    wire = tank.modifiers.new("Frame", "WIREFRAME")
    wire.thickness = 0.008 * scale
    wire.use_even_offset = True
    wire.use_relative_offset = False
    wire.offset = 0.0
    mesh.materials.append(plain_material(bpy, "Frame", (0.08, 0.09, 0.1, 1.0), 0.35, 0.6))

    r = 20 * scale  # far beyond the frame's edges
    cx, cy = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    zf = z0 - 0.002 * scale
    mesh = bpy.data.meshes.new("Floor")
    mesh.from_pydata([(cx - r, cy - r, zf), (cx + r, cy - r, zf), (cx + r, cy + r, zf), (cx - r, cy + r, zf)],
                     [], [(0, 1, 2, 3)])
    floor = bpy.data.objects.new("Floor", mesh)
    collection.objects.link(floor)
    mesh.materials.append(plain_material(bpy, "Floor", (0.42, 0.43, 0.45, 1.0), 0.6))


def add_lights(bpy, scene, collection, sun_az, sun_el):
    from mathutils import Vector

    sun = bpy.data.lights.new("Sun", "SUN")
    sun.energy = 3.5
    sun.angle = math.radians(2.5)
    obj = bpy.data.objects.new("Sun", sun)
    collection.objects.link(obj)
    toward = Vector((math.sin(math.radians(sun_az)) * math.cos(math.radians(sun_el)),
                     -math.cos(math.radians(sun_az)) * math.cos(math.radians(sun_el)),
                     math.sin(math.radians(sun_el))))
    obj.rotation_euler = toward.to_track_quat("Z", "Y").to_euler()  # the sun shines along its -z

    world = bpy.data.worlds.new("Sky")
    scene.world = world
    world.use_nodes = True
    nodes, links = world.node_tree.nodes, world.node_tree.links
    background = nodes["Background"]
    sky = nodes.new("ShaderNodeTexSky")
    sky.sky_type = "NISHITA"
    sky.sun_disc = False
    sky.sun_elevation = math.radians(sun_el)
    sky.sun_rotation = math.radians(sun_az + 180.0)
    links.new(sky.outputs["Color"], background.inputs["Color"])
    background.inputs["Strength"].default_value = 0.3


def add_camera(bpy, scene, collection, lo, hi, view, aspect):
    """A camera looking at the box's centre from `view` (azimuth, elevation), as near as lets
    the box's 8 corners fill 86 % of the frame, shifted so they sit in its middle."""
    from mathutils import Vector

    az, el = (math.radians(a) for a in view)
    back = Vector((math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)))
    centre = (Vector(lo) + Vector(hi)) / 2
    forward = -back
    right = forward.cross(Vector((0, 0, 1)))
    right = right.normalized() if right.length > 1e-6 else Vector((1, 0, 0))
    up = right.cross(forward).normalized()
    cam = bpy.data.cameras.new("Camera")
    cam.lens = 35.0
    cam.sensor_fit = "AUTO"
    cam.clip_start = 0.01
    cam.clip_end = 1000.0
    tan_w = cam.sensor_width / (2 * cam.lens)  # the wider side's half-angle tangent
    tan_x, tan_y = (tan_w, tan_w / aspect) if aspect >= 1 else (tan_w * aspect, tan_w)
    corners = [Vector((x, y, z)) - centre for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    radius = max(c.length for c in corners)

    def spans(d):
        sx = [c.dot(right) / (d - c.dot(back)) for c in corners]
        sy = [c.dot(up) / (d - c.dot(back)) for c in corners]
        return sx, sy

    def fill(d):
        sx, sy = spans(d)
        return max((max(sx) - min(sx)) / (2 * tan_x), (max(sy) - min(sy)) / (2 * tan_y))

    near, far = radius * 1.01, radius * 100
    for _ in range(60):  # fill(d) falls as d grows: bisect for 0.86
        mid = 0.5 * (near + far)
        near, far = (mid, far) if fill(mid) > 0.86 else (near, mid)
    d = far
    sx, sy = spans(d)
    wide = 2 * max(tan_x, tan_y)  # Blender's shift is in units of the wider side
    cam.shift_x = 0.5 * (max(sx) + min(sx)) / wide
    cam.shift_y = 0.5 * (max(sy) + min(sy)) / wide
    obj = bpy.data.objects.new("Camera", cam)
    collection.objects.link(obj)
    obj.location = centre + back * d
    obj.rotation_euler = (-back).to_track_quat("-Z", "Y").to_euler()
    scene.camera = obj


def render_settings(bpy, scene, args):
    scene.render.engine = "CYCLES"
    cy = scene.cycles
    cy.device = "CPU"
    cy.samples = args.samples
    cy.use_adaptive_sampling = True
    cy.adaptive_threshold = 0.02
    cy.max_bounces = 12
    cy.diffuse_bounces = 2
    cy.glossy_bounces = 4
    cy.transmission_bounces = 12
    cy.transparent_max_bounces = 8
    cy.volume_bounces = 0
    cy.caustics_reflective = False
    cy.caustics_refractive = False
    cy.blur_glossy = 1.0
    cy.sample_clamp_indirect = 4.0
    denoise = False
    try:
        import _cycles
        denoise = bool(getattr(_cycles, "with_openimagedenoise", False))
    except ImportError:
        pass
    cy.use_denoising = denoise
    if denoise:
        cy.denoiser = "OPENIMAGEDENOISE"
    r = scene.render
    r.resolution_x, r.resolution_y = args.resolution
    r.resolution_percentage = 100
    r.fps, r.fps_base = args.fps, 1.0
    r.film_transparent = False
    r.use_persistent_data = True
    r.image_settings.file_format = "PNG"
    r.image_settings.color_mode = "RGB"
    r.image_settings.color_depth = "8"
    r.image_settings.compression = 90
    scene.view_settings.view_transform = "Filmic"
    scene.view_settings.look = "Medium High Contrast"
    return denoise


# ---------------------------------------------------------------------------------------------
# Output


def video_paths(out):
    """(pattern with one run of #, mp4 path) for --video --out OUT."""
    out = os.path.abspath(os.path.expanduser(out or "surface_frames"))
    if out.lower().endswith(".mp4"):
        stem = out[:-4]
        return os.path.join(stem + "_frames", "frame_####.png"), out
    if "#" in out:
        if not out.lower().endswith(".png"):
            raise InputError(f"--out {out}: a frame pattern must end in .png")
        name = re.sub(r"[_\-. ]*#+[_\-. ]*", "", os.path.basename(out)[:-4]) or "surface"
        return out, os.path.join(os.path.dirname(out), name + ".mp4")
    if out.lower().endswith(".png"):
        raise InputError(f"--out {os.path.basename(out)}: with --video, give a folder, a pattern with #### or a .mp4")
    return os.path.join(out, "frame_####.png"), os.path.join(out, "surface.mp4")


def frame_path(pattern, frame):
    return re.sub(r"#+", lambda m: str(frame).zfill(len(m.group(0))), pattern, count=1)


class _Quiet:
    """Sends the process's stdout to /dev/null (Cycles' progress lines) for a while."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        if self.on:
            sys.stdout.flush()
            self.saved = os.dup(1)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)

    def __exit__(self, *exc):
        if self.on:
            sys.stdout.flush()
            os.dup2(self.saved, 1)
            os.close(self.saved)


def render_to(bpy, scene, frame, path, quiet):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    scene.frame_set(frame)
    scene.render.filepath = path
    start = time.monotonic()
    with _Quiet(quiet):
        bpy.ops.render.render(write_still=True)
    if not os.path.isfile(path):
        raise RuntimeError(f"{path}: Blender wrote no file")
    return time.monotonic() - start


def make_mp4(pattern, first, count, fps, mp4):
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        print(f"no ffmpeg on PATH: no {os.path.basename(mp4)} (the frames are {pattern})", flush=True)
        return True
    source = re.sub(r"#+", lambda m: f"%0{len(m.group(0))}d", pattern.replace("%", "%%"), count=1)
    base = [ffmpeg, "-y", "-loglevel", "error", "-framerate", str(fps), "-start_number", str(first),
            "-i", source, "-frames:v", str(count), "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-pix_fmt", "yuv420p"]
    p = None
    for codec in (["-c:v", "libx264", "-crf", "20"], ["-c:v", "mpeg4", "-q:v", "3"]):
        p = subprocess.run(base + codec + [mp4], capture_output=True, text=True)
        if p.returncode == 0:
            print(f"{mp4} ({count} frames at {fps} fps)", flush=True)
            return True
    lines = (p.stderr or "").strip().splitlines()
    print(f"{PROG}: ffmpeg failed: {lines[-1] if lines else 'exit status %d' % p.returncode}",
          file=sys.stderr, flush=True)
    return False


# ---------------------------------------------------------------------------------------------


def main(argv):
    args = parse_args(argv)
    files = find_frames(args.frames)
    count = len(files)
    if args.video:
        pattern, mp4 = video_paths(args.out)
        wanted = list(range(1, count + 1))
    else:
        out = os.path.abspath(os.path.expanduser(args.out or "surface.png"))
        if not out.lower().endswith(".png"):
            raise InputError(f"--out {args.out}: a still is a .png (or give --video)")
        frame = count if args.frame is None else args.frame
        if not 1 <= frame <= count:
            raise InputError(f"--frame {args.frame}: the sequence has {count} file(s), frames 1 to {count}")
        wanted = list(range(1, count + 1)) if args.save_blend else [frame]

    import bpy

    with _Quiet(not args.verbose):
        bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, count
    water_coll = bpy.data.collections.new("Water")
    scene.collection.children.link(water_coll)

    objects, with_speed, with_velocity, lo, hi, first = [], False, False, None, None, None
    start = time.monotonic()
    for k in wanted:
        ply = read_ply(files[k - 1])
        first = first or ply
        name = os.path.splitext(os.path.basename(files[k - 1]))[0]
        obj = add_mesh_object(bpy, name, ply, water_coll)
        objects.append((k, obj))
        with_speed = with_speed or ply.speed is not None
        with_velocity = with_velocity or ply.velocity is not None
        if len(ply.points):
            lo = ply.points.min(0) if lo is None else np.minimum(lo, ply.points.min(0))
            hi = ply.points.max(0) if hi is None else np.maximum(hi, ply.points.max(0))
        step, t = ply.comment_value(r"\bstep (\d+)"), ply.comment_value(r"\bt = (\S+) s")
        when = f" (step {step}, t = {t} s)" if step is not None and t is not None else ""
        attrs = [n for n, _ in ply.attributes()]
        print(f"frame {k}: {files[k - 1]}{when}, {len(ply.points)} vertices, {len(ply.face_sizes)} faces"
              + (f", attributes {', '.join(attrs)}" if attrs else ""), flush=True)
        del ply
    for k, obj in objects:
        key_visibility(obj, k, 1, count)

    # The box: --domain, else the scene the comments name, else the meshes' bounds (from 0).
    if args.domain:
        size, source = args.domain, "--domain"
    else:
        size, source = scene_domain([first])
        if size and hi is not None and np.any(hi > np.asarray(size) * 1.05):
            size, source = None, None  # the meshes leave that box: it was changed (--set)
    if size:
        box_lo, box_hi = np.zeros(3), np.asarray(size, float)
    elif hi is not None:
        box_lo, box_hi, source = np.minimum(lo, 0), hi, "the meshes' bounds"
    else:
        box_lo, box_hi, source = np.zeros(3), np.ones(3), "no vertices: a unit box"
    size_sim = box_hi - box_lo
    print(f"box {size_sim[0]:g} x {size_sim[1]:g} x {size_sim[2]:g} m (from {source})", flush=True)
    b_lo = to_blender(np.array([[box_lo[0], box_lo[1], box_hi[2]]]))[0]
    b_hi = to_blender(np.array([[box_hi[0], box_hi[1], box_lo[2]]]))[0]
    scale = float(max(size_sim))

    # Foam where the water is about as fast as a fall through the box's height makes it,
    # sqrt(2 g H): the same for every frame, so that a video does not flicker.
    foam = None
    if with_speed:
        top = args.foam_speed if args.foam_speed is not None else math.sqrt(2 * 9.81 * size_sim[1])
        if top > 0:
            foam = (0.6 * top, top)
    water = water_material(bpy, scale, foam)
    for _, obj in objects:
        obj.data.materials.append(water)

    setup = bpy.data.collections.new("Stage")
    scene.collection.children.link(setup)
    add_tank(bpy, setup, tuple(b_lo), tuple(b_hi), scale)
    az, el = args.view
    add_lights(bpy, scene, setup, az + 70.0, 50.0)
    add_camera(bpy, scene, setup, tuple(b_lo), tuple(b_hi), (az, el), args.resolution[0] / args.resolution[1])
    denoise = render_settings(bpy, scene, args)
    if args.motion_blur is not None:
        # Cycles moves each vertex by its "velocity" attribute (per second) over the shutter,
        # given in frames at the scene's fps: so many frames that it is open SHUTTER of the
        # simulated time between two files.
        dt = time_between_frames(files)
        shutter = args.motion_blur * (dt * args.fps if dt else 1.0)
        scene.render.use_motion_blur = shutter > 0
        scene.render.motion_blur_shutter = shutter
        print(f"motion blur: shutter {shutter:.3g} frames at {args.fps} fps"
              + (f" ({args.motion_blur:g} of the {dt:.3g} s between files)" if dt else "")
              + ("" if with_velocity else "; the files have no velocity (vx vy vz): nothing will blur"), flush=True)
    if not denoise:
        print("no OpenImageDenoise in this Blender: no denoising (more --samples, less noise)", flush=True)
    print(f"scene ready in {time.monotonic() - start:.1f} s: {len(objects)} frame object(s)"
          + (f", foam from {foam[0]:.2f} to {foam[1]:.2f} m/s" if foam else ""), flush=True)

    if args.save_blend:
        path = os.path.abspath(os.path.expanduser(args.save_blend))
        with _Quiet(not args.verbose):
            bpy.ops.wm.save_as_mainfile(filepath=path, check_existing=False)
        print(path, flush=True)

    w, h = args.resolution
    if not args.video:
        took = render_to(bpy, scene, frame, out, not args.verbose)
        print(f"{out} (frame {frame}, {w}x{h}, {args.samples} samples, {took:.1f} s)", flush=True)
        return 0
    for k in wanted:
        path = frame_path(pattern, k)
        took = render_to(bpy, scene, k, path, not args.verbose)
        print(f"{path} (frame {k}, {w}x{h}, {args.samples} samples, {took:.1f} s)", flush=True)
    return 0 if make_mp4(pattern, 1, count, args.fps, mp4) else 1


def run():
    try:
        status = main(script_argv(sys.argv))
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr, flush=True)
        status = 2
    except Exception:  # Blender would print it and still exit 0
        import traceback
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.exit(status)


if __name__ == "__main__":
    run()
