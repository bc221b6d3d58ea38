"""src/blender/render_surface.py: fluid-sandbox's PLY surfaces rendered by Blender, headless.

    /usr/bin/python3 -m pytest -q tests/blender/test_render.py

The tests that run Blender skip when there is no `blender` on PATH (Debian: apt install blender);
the PLY reader's tests need only numpy. FS_EXE names the program (default build/fluid-sandbox).
The whole file takes well under a minute on two cores.
"""
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "src" / "blender" / "render_surface.py"
EXE = os.environ.get("FS_EXE", str(ROOT / "build" / "fluid-sandbox"))
BLENDER = shutil.which("blender")

needs_blender = pytest.mark.skipif(BLENDER is None, reason="Blender is not installed (no blender on PATH)")


def load_script():
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location("render_surface", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rs = load_script()


def write_ply(path, points, faces, props=(), fmt="binary_little_endian", comment="test"):
    """points: N x 3; faces: lists of indices; props: (name, values) extra float vertex properties."""
    props = list(props)
    head = ["ply", f"format {fmt} 1.0", f"comment {comment}", f"element vertex {len(points)}",
            "property float x", "property float y", "property float z"]
    head += [f"property float {name}" for name, _ in props]
    head += [f"element face {len(faces)}", "property list uchar int vertex_indices", "end_header"]
    columns = np.column_stack([np.asarray(points, np.float32)] + [np.asarray(v, np.float32) for _, v in props])
    with open(path, "wb") as f:
        f.write(("\n".join(head) + "\n").encode())
        if fmt == "ascii":
            for row in columns:
                f.write((" ".join(repr(float(v)) for v in row) + "\n").encode())
            for face in faces:
                f.write((" ".join(str(i) for i in [len(face), *face]) + "\n").encode())
            return
        order = "<" if fmt == "binary_little_endian" else ">"
        f.write(columns.astype(order + "f4").tobytes())
        for face in faces:
            f.write(struct.pack(f"{order}B{len(face)}i", len(face), *face))


# A closed cube: 8 corners, 12 triangles counter-clockwise seen from outside.
CUBE_POINTS = [(x, y, z) for z in (0.0, 0.2) for y in (0.0, 0.2) for x in (0.0, 0.2)]
CUBE_TRIANGLES = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
                  (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]


def read_png(path):
    """(width, height, pixels as a uint8 array H x W x channels) of an 8-bit, non-interlaced PNG."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is no PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    assert depth == 8 and interlace == 0, "only 8-bit non-interlaced PNGs are read here"
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 255
        else:  # Sub, Average and Paeth depend on the pixel to the left: one byte at a time
            cur = np.zeros(stride, np.int32)
            for i in range(stride):
                a = cur[i - channels] if i >= channels else 0
                b, c = prev[i], (prev[i - channels] if i >= channels else 0)
                if kind == 1:
                    p = a
                elif kind == 3:
                    p = (a + b) >> 1
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + p) & 255
        out[y] = cur
        prev = cur
    return width, height, out.reshape(height, width, channels)


def blender(*args, cwd):
    return subprocess.run([BLENDER, "-b", "--factory-startup", "--python", str(SCRIPT), "--", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=180)


def error_lines(p):
    return [line for line in p.stderr.splitlines() if line.startswith("render_surface.py:")]


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    """Three frames of a coarse flip_dam_break (steps 0, 10 and 20), exported as PLY files."""
    if BLENDER is None:
        pytest.skip("Blender is not installed (no blender on PATH)")
    if not os.access(EXE, os.X_OK):
        pytest.skip(f"no fluid-sandbox at {EXE} (build it, or set FS_EXE)")
    folder = tmp_path_factory.mktemp("frames") / "meshes"
    p = subprocess.run([EXE, "flip_dam_break", "--headless", "--set", "resolution=24", "--steps", "20",
                        "--export-every", "10", "--export-mesh", str(folder)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert len(list(folder.glob("*.ply"))) >= 2
    return folder


# ---------------------------------------------------------------------------------------------
# The PLY reader (no Blender needed)


def test_the_reader_takes_positions_faces_velocity_and_other_properties(tmp_path):
    n = len(CUBE_POINTS)
    velocity = np.tile([1.0, 2.0, 2.0], (n, 1))
    path = tmp_path / "surface_0001.ply"
    write_ply(path, CUBE_POINTS, CUBE_TRIANGLES,
              [("vx", velocity[:, 0]), ("vy", velocity[:, 1]), ("vz", velocity[:, 2]), ("pressure", np.arange(n)),
               ("vorticity_x", np.zeros(n)), ("vorticity_y", np.ones(n)), ("vorticity_z", np.zeros(n))],
              comment="fluid-sandbox scene.json (flip), step 10, t = 0.08 s")
    mesh = rs.read_ply(str(path))
    assert mesh.points.shape == (8, 3) and mesh.points.dtype == np.float32
    assert np.allclose(mesh.points, CUBE_POINTS)
    assert list(mesh.face_sizes) == [3] * 12
    assert mesh.face_indices.reshape(-1, 3).tolist() == [list(t) for t in CUBE_TRIANGLES]
    assert np.allclose(mesh.velocity, velocity)
    assert np.allclose(mesh.speed, 3.0)
    attributes = dict(mesh.attributes())
    assert list(attributes) == ["velocity", "speed", "vorticity", "pressure"]
    assert attributes["vorticity"].shape == (8, 3) and np.allclose(attributes["vorticity"][:, 1], 1)
    assert mesh.comment_value(r"\bstep (\d+)") == "10"
    # y up becomes z up: (x, y, z) -> (x, -z, y), a rotation (it keeps the faces' orientation)
    assert rs.to_blender(np.array([[1.0, 2.0, 3.0]])).tolist() == [[1.0, -3.0, 2.0]]


def test_the_reader_takes_ascii_big_endian_and_polygons(tmp_path):
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    for fmt in ("ascii", "binary_big_endian"):
        path = tmp_path / f"{fmt}.ply"
        write_ply(path, CUBE_POINTS, quads + [(0, 1, 2)], [("speed", np.full(8, 0.5))], fmt=fmt)
        mesh = rs.read_ply(str(path))
        assert np.allclose(mesh.points, CUBE_POINTS), fmt
        assert list(mesh.face_sizes) == [4] * 6 + [3], fmt
        assert mesh.face_indices.tolist() == [i for q in quads for i in q] + [0, 1, 2], fmt
        assert mesh.velocity is None and np.allclose(mesh.speed, 0.5), fmt


@pytest.mark.parametrize("body, message", [
    (b"hello\n", "not a PLY file"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
     b"property float z\nend_header\n" + b"\0" * 40, "truncated"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
     b"property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
     + struct.pack("<3fB3i", 0, 0, 0, 3, 0, 1, 2), "does not exist"),
    (b"ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty quaternion x\nend_header\n",
     "bad PLY header line 4"),
])
def test_the_reader_names_what_is_wrong(tmp_path, body, message):
    path = tmp_path / "bad.ply"
    path.write_bytes(body)
    with pytest.raises(rs.InputError, match=message):
        rs.read_ply(str(path))


def test_files_sort_by_the_number_in_their_names(tmp_path):
    for name in ("surface_0010.ply", "surface_0002.ply", "surface_0001.ply", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    want = ["surface_0001.ply", "surface_0002.ply", "surface_0010.ply"]
    assert [Path(f).name for f in rs.find_frames(str(tmp_path))] == want
    assert [Path(f).name for f in rs.find_frames(str(tmp_path / "surface_000*.ply"))] == want[:2]
    with pytest.raises(rs.InputError, match="no PLY files"):
        rs.find_frames(str(tmp_path / "*.obj"))


# ---------------------------------------------------------------------------------------------
# Blender


@needs_blender
def test_a_still_of_the_dam_break(frames, tmp_path):
    out = tmp_path / "still.png"
    p = blender("--frames", frames, "--out", out, "--resolution", "320x180", "--samples", "8", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert out.is_file()
    assert sum(1 for line in p.stdout.splitlines() if line.startswith(str(out))) == 1, p.stdout
    width, height, pixels = read_png(out)
    assert (width, height) == (320, 180)
    assert pixels.std() > 10, "a blank picture"
    assert len(np.unique(pixels.reshape(-1, pixels.shape[2]), axis=0)) > 500
    # The water is bluer than the grey floor and the pale sky around it.
    rgb = pixels[..., :3].astype(int)
    blue = (rgb[..., 2] - rgb[..., 0] > 40).mean()
    assert 0.02 < blue < 0.6, f"{blue:.3f} of the picture is water-blue"


@needs_blender
def test_velocity_becomes_attributes_and_each_frame_shows_alone(tmp_path):
    """Two frames of a cube, one with vx vy vz: a film of both, blurred by the velocity, and a
    .blend to look into."""
    n = len(CUBE_POINTS)
    (tmp_path / "in").mkdir()
    write_ply(tmp_path / "in" / "surface_0001.ply", CUBE_POINTS, CUBE_TRIANGLES, comment="step 0, t = 0 s")
    write_ply(tmp_path / "in" / "surface_0002.ply", np.asarray(CUBE_POINTS) + 0.1, CUBE_TRIANGLES,
              [("vx", np.full(n, 1.0)), ("vy", np.full(n, 2.0)), ("vz", np.full(n, 3.0)), ("density", np.arange(n))],
              comment="step 10, t = 0.1 s")
    p = blender("--frames", tmp_path / "in" / "*.ply", "--video", "--out", tmp_path / "video" / "w_##.png",
                "--resolution", "64x36", "--samples", "1", "--domain", "0.4,0.4,0.4", "--motion-blur",
                "--save-blend", tmp_path / "scene.blend", cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "attributes velocity, speed, density" in p.stdout
    # half of the 0.1 s between the files, at 24 fps
    assert "motion blur: shutter 1.2 frames at 24 fps" in p.stdout, p.stdout
    for k in (1, 2):
        assert read_png(tmp_path / "video" / f"w_0{k}.png")[:2] == (64, 36)
    if shutil.which("ffmpeg"):
        assert (tmp_path / "video" / "w.mp4").stat().st_size > 0
    check = (
        "import bpy\n"
        "s = bpy.context.scene\n"
        "objs = [bpy.data.objects['surface_0001'], bpy.data.objects['surface_0002']]\n"
        "for f in (1, 2):\n"
        "    s.frame_set(f)\n"
        "    print('shown', f, [o.name for o in objs if not o.hide_render and not o.hide_viewport])\n"
        "m = objs[1].data\n"
        "a = m.attributes\n"
        "print('attr', a['velocity'].data_type, a['velocity'].domain, tuple(round(c, 3) for c in a['velocity'].data[0].vector),"
        " round(a['speed'].data[0].value, 3), a['density'].domain, m.polygons[0].use_smooth)\n"
        "co = [v.co for v in bpy.data.objects['Tank'].data.vertices]\n"
        "print('blur', s.render.use_motion_blur, round(s.render.motion_blur_shutter, 3))\n"
        "print('box', [round(min(c[i] for c in co), 3) + 0.0 for i in range(3)], [round(max(c[i] for c in co), 3) + 0.0 for i in range(3)])\n"
    )
    q = subprocess.run([BLENDER, "-b", str(tmp_path / "scene.blend"), "--python-expr", check],
                       capture_output=True, text=True, timeout=120)
    assert q.returncode == 0, q.stdout + q.stderr
    assert "shown 1 ['surface_0001']" in q.stdout and "shown 2 ['surface_0002']" in q.stdout, q.stdout
    # (vx, vy, vz) = (1, 2, 3) in the simulation's axes is (1, -3, 2) in Blender's
    assert f"attr FLOAT_VECTOR POINT (1.0, -3.0, 2.0) {14 ** 0.5:.3f} POINT True" in q.stdout, q.stdout
    assert "box [0.0, -0.4, 0.0] [0.4, 0.0, 0.4]" in q.stdout, q.stdout  # --domain 0.4,0.4,0.4, z up
    assert "blur True 1.2" in q.stdout, q.stdout


@needs_blender
def test_bad_input_is_one_line_and_exit_status_2(tmp_path):
    (tmp_path / "empty").mkdir()
    p = blender("--frames", tmp_path / "empty", "--out", tmp_path / "x.png", cwd=tmp_path)
    assert p.returncode == 2
    assert error_lines(p) == [f"render_surface.py: no PLY files in {tmp_path / 'empty'}"], p.stderr
    assert not (tmp_path / "x.png").exists()

    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "surface_0001.ply").write_text("not a mesh\n")
    p = blender("--frames", tmp_path / "bad", cwd=tmp_path)
    assert p.returncode == 2
    assert len(error_lines(p)) == 1 and "surface_0001.ply: not a PLY file" in error_lines(p)[0], p.stderr

    write_ply(tmp_path / "bad" / "surface_0001.ply", CUBE_POINTS, CUBE_TRIANGLES)
    p = blender("--frames", tmp_path / "bad", "--resolution", "wide", cwd=tmp_path)
    assert p.returncode == 2
    assert len(error_lines(p)) == 1 and "--resolution" in error_lines(p)[0], p.stderr
    assert "Traceback" not in p.stdout + p.stderr
