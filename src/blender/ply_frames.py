"""fluid-sandbox's exported surfaces as render_surface.py reads them, without Blender: PLY files
(every vertex property kept, which Blender's importer drops) and the sequence they make (sorted by
the number in their names, the time between them and the scene's box from their header comments).
"""

import glob
import json
import os
import re
import struct

import numpy as np


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
