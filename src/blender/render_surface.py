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
import math
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

# Blender runs this file by path: its PLY reader lies beside it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ply_frames import InputError, find_frames, read_ply, scene_domain, time_between_frames, to_blender  # noqa: E402

PROG = "render_surface.py"


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
