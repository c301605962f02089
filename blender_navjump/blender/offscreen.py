"""Render the overlay headless: scene geometry plus overlay layers into a PNG.

For the batch job (``scripts/bake_demo.py``) and the GPU tests. Blender as a Python
module runs in background mode, where the GPU backend starts only as a side effect of a
render: :func:`ensure_gpu` renders one 8 x 8 Workbench frame of a throw-away scene
first. Then the scene's triangles (flat shaded) and the overlay layers are drawn into a
``GPUOffScreen`` from a camera fitted to the navmesh bounds, read back and written as a
PNG (a small zlib writer: no image datablock is created in the user's file).

Camera matrices are plain numpy (4 x 4, row-major, OpenGL clip conventions) so tests can
project world points to pixels with :func:`project`.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

import numpy as np

from . import overlay_batches as ob

BACKGROUND = (0.08, 0.08, 0.1, 1.0)
GROUND_COLOR = np.array([0.62, 0.6, 0.57])
OBSTACLE_COLOR = np.array([0.62, 0.42, 0.36])
LIGHT = np.array([0.35, -0.45, 0.82]) / np.linalg.norm([0.35, -0.45, 0.82])


class GPUUnavailable(RuntimeError):
    """The GPU backend cannot start here (no EGL/OpenGL)."""


# ====================================================================== camera math
def look_at(eye, target, up=(0.0, 0.0, 1.0)) -> np.ndarray:
    eye, target, up = (np.asarray(v, np.float64) for v in (eye, target, up))
    f = target - eye
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    if np.linalg.norm(s) < 1e-9:  # looking along up: pick another up
        s = np.cross(f, (0.0, 1.0, 0.0))
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def perspective(fov_y: float, aspect: float, near: float, far: float) -> np.ndarray:
    f = 1.0 / math.tan(fov_y / 2.0)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1] = f / aspect, f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2.0 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


def orthographic(half_w: float, half_h: float, near: float, far: float) -> np.ndarray:
    m = np.eye(4)
    m[0, 0], m[1, 1] = 1.0 / half_w, 1.0 / half_h
    m[2, 2] = -2.0 / (far - near)
    m[2, 3] = -(far + near) / (far - near)
    return m


def fit_camera(bounds, size, view: str = "three_quarter",
               margin: float = 1.06) -> tuple[np.ndarray, np.ndarray]:
    """(view, projection) showing the box ``bounds`` (2, 3) in an image of ``size``.

    ``"top"``: orthographic, looking down, +Y up in the image. ``"three_quarter"``:
    perspective from the south-west, 40 degrees above the horizon.
    """
    lo, hi = (np.asarray(b, np.float64) for b in bounds)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()) or (hi - lo).max() <= 0:
        lo, hi = lo - 1.0, hi + 1.0
    centre = 0.5 * (lo + hi)
    ext = hi - lo
    aspect = size[0] / size[1]
    if view == "top":
        height = ext[2] + 10.0
        eye = centre + np.array([0.0, 0.0, height / 2 + 5.0])
        half_w = max(ext[0] / 2, ext[1] / 2 * aspect, 0.5) * margin
        v = look_at(eye, centre, up=(0.0, 1.0, 0.0))
        return v, orthographic(half_w, half_w / aspect, 0.1, height + 10.0)
    if view != "three_quarter":
        raise ValueError(f"unknown camera view {view!r}: 'top' or 'three_quarter'")
    fov = math.radians(40.0)
    azimuth, elevation = math.radians(-125.0), math.radians(40.0)
    direction = np.array([math.cos(elevation) * math.cos(azimuth),
                          math.cos(elevation) * math.sin(azimuth), math.sin(elevation)])
    # Camera axes, then the box corners in them (relative to the box centre).
    view0 = look_at(centre + direction, centre)
    right, up, back = view0[0, :3], view0[1, :3], view0[2, :3]
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])]) - centre
    cx, cy, cz = corners @ right, corners @ up, corners @ back
    # Re-centre sideways on the box's extent (seen along the view), then back off until
    # every corner is inside both half-angles.
    shift = right * 0.5 * (cx.max() + cx.min()) + up * 0.5 * (cy.max() + cy.min())
    cx = cx - 0.5 * (cx.max() + cx.min())
    cy = cy - 0.5 * (cy.max() + cy.min())
    tan_y = math.tan(fov / 2) / margin
    tan_x = tan_y * aspect
    dist = float(np.max(np.maximum(cz + np.abs(cx) / tan_x, cz + np.abs(cy) / tan_y)))
    dist = max(dist, 1.0)
    target = centre + shift
    radius = 0.5 * float(np.linalg.norm(ext))
    world = corners + centre
    # Perspective makes near corners larger: a few passes centre and tighten the frame.
    for _ in range(4):
        near = max(0.05, dist - 2.0 * radius)
        proj = perspective(fov, aspect, near, dist + 2.0 * radius)
        h = np.concatenate([world, np.ones((8, 1))], axis=1) @ \
            (proj @ look_at(target + dist * back, target)).T
        ndc = h[:, :2] / h[:, 3:4]
        mid = 0.5 * (ndc.max(axis=0) + ndc.min(axis=0))
        half = 0.5 * (ndc.max(axis=0) - ndc.min(axis=0))
        target = target + right * mid[0] * dist * tan_x * margin \
            + up * mid[1] * dist * tan_y * margin
        dist *= max(float(half.max()) * margin, 0.05)
    near = max(0.05, dist - 2.0 * radius)
    return (look_at(target + dist * back, target),
            perspective(fov, aspect, near, dist + 2.0 * radius))


def project(points, view, proj, size) -> np.ndarray:
    """World points (N, 3) -> pixel coordinates (N, 2), origin at the top-left corner."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    h = np.concatenate([p, np.ones((p.shape[0], 1))], axis=1) @ (proj @ view).T
    ndc = h[:, :2] / h[:, 3:4]
    x = (ndc[:, 0] + 1.0) * 0.5 * size[0]
    y = (1.0 - (ndc[:, 1] + 1.0) * 0.5) * size[1]
    return np.stack([x, y], axis=1)


# ====================================================================== PNG
def write_png(path, rgba: np.ndarray) -> Path:
    """Write an (H, W, 4) uint8 image, first row at the top."""
    img = np.ascontiguousarray(rgba, dtype=np.uint8)
    h, w = img.shape[:2]
    raw = np.zeros((h, w * 4 + 1), np.uint8)  # filter byte 0 per row
    raw[:, 1:] = img.reshape(h, w * 4)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    return path


def read_png(path) -> np.ndarray:
    """Read back a PNG written by :func:`write_png` (8-bit RGBA, filter 0)."""
    data = Path(path).read_bytes()
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if tag == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, w * 4 + 1)
    return raw[:, 1:].reshape(h, w, 4).copy()


# ====================================================================== GPU
def gpu_ready() -> bool:
    import gpu

    try:
        gpu.platform.backend_type_get()
        return True
    except SystemError:
        return False


def ensure_gpu() -> None:
    """Start the GPU backend in background mode (a tiny Workbench render of a temporary
    scene); raises :class:`GPUUnavailable` when it still cannot start."""
    import bpy

    if gpu_ready():
        return
    scene = bpy.data.scenes.new("NavJump GPU start")
    cam_data = bpy.data.cameras.new("NavJump GPU start")
    cam = bpy.data.objects.new("NavJump GPU start", cam_data)
    try:
        scene.collection.objects.link(cam)
        scene.camera = cam
        scene.render.engine = 'BLENDER_WORKBENCH'
        scene.render.resolution_x = scene.render.resolution_y = 8
        scene.render.resolution_percentage = 100
        bpy.ops.render.render(scene=scene.name)
    except Exception as exc:
        raise GPUUnavailable(f"the Workbench render that starts the GPU failed: {exc}") \
            from None
    finally:
        bpy.data.objects.remove(cam)
        bpy.data.cameras.remove(cam_data)
        bpy.data.scenes.remove(scene)
    if not gpu_ready():
        raise GPUUnavailable("Blender's GPU backend did not start (no OpenGL/EGL here?)")


def _matrix(m):
    from mathutils import Matrix

    return Matrix(np.asarray(m, np.float64).tolist())


def scene_triangles(scene, depsgraph=None):
    """Flat-shaded triangles of the scene's visible geometry: (positions, colours)."""
    import bpy

    from . import gather

    if depsgraph is None:
        depsgraph = bpy.context.evaluated_depsgraph_get()
    view_layer = bpy.context.view_layer if bpy.context.scene == scene else \
        scene.view_layers[0]
    g = gather.gather(depsgraph, view_layer)
    if g.triangle_count == 0:
        return np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32)
    tris = g.vertices[g.triangles]  # (T, 3, 3)
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
    shade = 0.35 + 0.6 * np.abs(n @ LIGHT)
    base = np.where(g.walkable[:, None], GROUND_COLOR, OBSTACLE_COLOR)
    rgb = np.repeat(base * shade[:, None], 3, axis=0)
    colors = np.concatenate([rgb, np.ones((rgb.shape[0], 1))], axis=1)
    return (np.ascontiguousarray(tris.reshape(-1, 3), np.float32),
            np.ascontiguousarray(colors, np.float32))


def _camera_matrices(scene, camera, bounds, size):
    if isinstance(camera, str):
        return fit_camera(bounds, size, camera)
    if isinstance(camera, tuple | list) and len(camera) == 2:
        return np.asarray(camera[0], np.float64), np.asarray(camera[1], np.float64)
    # a Blender camera object
    import bpy

    depsgraph = bpy.context.evaluated_depsgraph_get()
    view = np.array(camera.matrix_world.inverted())
    proj = np.array(camera.calc_matrix_camera(depsgraph, x=size[0], y=size[1]))
    return view, proj


def auto_path(navmesh):
    """A long path that uses links if the navmesh has any (for pictures)."""
    from ..core.query import find_path
    from .gizmo import far_apart_points

    try:
        pair = far_apart_points(navmesh)
        if pair is None:
            return None
        return find_path(navmesh, pair[0], pair[1])
    except ValueError:  # data the path queries refuse (core/navmesh_check): no path drawn
        return None


def _path_layer(navmesh, path):
    if path is None:
        return None
    if isinstance(path, str):
        if path != "auto":
            raise ValueError(f"path must be a PathResult, None or 'auto', not {path!r}")
        path = auto_path(navmesh)
        if path is None:
            return None
    return ob.build_path_layer(path.points, path.flags, path.stances, path.point_links,
                               navmesh, start=path.points[0] if len(path.points) else None,
                               goal=path.points[-1] if len(path.points) else None,
                               lift=0.1)


def render_overlay_pixels(scene=None, navmesh=None, path=None, size=(960, 540),
                          camera="three_quarter", layers=None, draw_scene: bool = True,
                          background=BACKGROUND, xray: bool = False,
                          legend: bool = False):
    """Draw into an offscreen buffer; returns ``(pixels (H, W, 4) uint8 top row first,
    view, projection)``.

    ``navmesh`` None: the scene's stored bake (if it cannot be read, only the scene is
    drawn; ``overlay.bake_state(scene).errors`` says why). ``path``: a PathResult, None or "auto"
    (a long path across the navmesh). ``layers``: names from
    ``overlay_batches.LAYER_NAMES`` (None: every layer). ``camera``: "three_quarter",
    "top", a camera object or a (view, projection) pair of 4 x 4 matrices. ``legend``:
    colour keys of the drawn layers in the top-left corner.
    """
    import gpu

    from . import overlay

    w, h = int(size[0]), int(size[1])
    if navmesh is None and scene is not None:
        navmesh = overlay.bake_state(scene).navmesh  # None (nothing drawn) when unreadable
    geometry = ob.build_overlay(navmesh, lift=overlay.LIFT)
    path_layer = _path_layer(navmesh, path) if navmesh is not None else None
    if path_layer is not None:
        geometry.layers["path"] = path_layer
    visible = set(ob.LAYER_NAMES if layers is None else layers)
    scene_geo = scene_triangles(scene) if (draw_scene and scene is not None) else None
    bounds = geometry.bounds
    if not geometry.bounds.any() and scene_geo is not None and scene_geo[0].shape[0]:
        bounds = np.stack([scene_geo[0].min(axis=0), scene_geo[0].max(axis=0)])
    view, proj = _camera_matrices(scene, camera, bounds, (w, h))

    ensure_gpu()
    offscreen = gpu.types.GPUOffScreen(w, h)
    try:
        with offscreen.bind():
            fb = gpu.state.active_framebuffer_get()
            fb.clear(color=tuple(background), depth=1.0)
            with gpu.matrix.push_pop(), gpu.matrix.push_pop_projection():
                gpu.matrix.load_matrix(_matrix(view))
                gpu.matrix.load_projection_matrix(_matrix(proj))
                if scene_geo is not None and scene_geo[0].shape[0]:
                    _draw_solid(*scene_geo)
                batches = {name: overlay.make_batches(geometry.layers[name])
                           for name in visible if name in geometry.layers}
                overlay.draw_layers(batches, visible, (w, h), xray=xray)
            if legend:
                _draw_legend(w, h, visible, geometry)
            buf = fb.read_color(0, 0, w, h, 4, 0, 'UBYTE')
    finally:
        offscreen.free()
    buf.dimensions = w * h * 4
    try:
        pixels = np.asarray(buf, dtype=np.uint8)
    except (TypeError, ValueError):  # older Buffer without the buffer protocol
        pixels = np.array(buf.to_list(), dtype=np.uint8)
    pixels = pixels.reshape(h, w, 4)[::-1].copy()  # GL rows start at the bottom
    return pixels, view, proj


def legend_entries(visible, geometry) -> list[tuple[str, tuple]]:
    """(label, colour) of each non-empty drawn layer, in the panel's order."""
    out = []
    for name, color in ob.STANCE_COLORS.items():
        layer = f"stance_{name}"
        if layer in visible and not geometry.layers[layer].empty:
            out.append((name.title(), color))
    for name, color in ob.LINK_COLORS.items():
        layer = f"links_{name}"
        if layer in visible and not geometry.layers[layer].empty:
            out.append((name.replace("_", " ").title() + " link", color))
    def uses(names, color):
        want = np.array(color, np.float32)
        return any(np.isclose(lines.colors, want).all(axis=1).any()
                   for name in names if name in visible and name in geometry.layers
                   for lines in geometry.layers[name].lines if lines.count)

    if uses(ob.LINK_LAYERS, ob.UNATTACHED_COLOR):
        out.append(("Link end on no polygon", ob.UNATTACHED_COLOR))
    if uses(("path",), ob.PATH_COLOR):
        out.append(("Path", ob.PATH_COLOR))
    if uses(("path",), ob.PATH_JUMP_COLOR):
        out.append(("Path in the air", ob.PATH_JUMP_COLOR))
    return out


def _draw_legend(w, h, visible, geometry):
    """Colour keys with labels, drawn in pixel space (skipped if text cannot be drawn)."""
    import blf
    import gpu
    from gpu_extras.batch import batch_for_shader

    entries = legend_entries(visible, geometry)
    if not entries:
        return
    row, box, pad = 22, 14, 12
    with gpu.matrix.push_pop(), gpu.matrix.push_pop_projection():
        gpu.matrix.load_identity()
        gpu.matrix.load_projection_matrix(_matrix(orthographic(w / 2, h / 2, -1, 1) @ np.array(
            [[1, 0, 0, -w / 2], [0, 1, 0, -h / 2], [0, 0, 1, 0], [0, 0, 0, 1]], float)))
        gpu.state.depth_test_set('NONE')
        gpu.state.blend_set('ALPHA')
        # a dark backdrop keeps the labels readable over the scene
        x1, y0 = pad + box + 8 + 9 * max(len(label) for label, _c in entries), \
            h - pad - (len(entries) - 1) * row - box - 6
        tris = [(4, y0, 0), (x1, y0, 0), (x1, h - 4, 0), (4, y0, 0), (x1, h - 4, 0),
                (4, h - 4, 0)]
        cols = [BACKGROUND[:3] + (0.75,)] * 6
        for i, (_label, color) in enumerate(entries):
            x0, y1 = pad, h - pad - i * row
            y0 = y1 - box
            quad = [(x0, y0, 0), (x0 + box, y0, 0), (x0 + box, y1, 0), (x0, y0, 0),
                    (x0 + box, y1, 0), (x0, y1, 0)]
            tris.extend(quad)
            cols.extend([tuple(color[:3]) + (1.0,)] * 6)
        shader = gpu.shader.from_builtin('FLAT_COLOR')
        batch = batch_for_shader(shader, 'TRIS', {"pos": np.array(tris, np.float32),
                                                  "color": np.array(cols, np.float32)})
        shader.bind()
        batch.draw(shader)
        try:
            font = 0
            blf.size(font, 14)
            blf.color(font, 0.92, 0.92, 0.92, 1.0)
            for i, (label, _color) in enumerate(entries):
                blf.position(font, pad + box + 8, h - pad - i * row - box + 2, 0)
                blf.draw(font, label)
        except Exception:  # text is a nicety: the swatches alone still help
            pass
        gpu.state.blend_set('NONE')


def _draw_solid(positions, colors):
    import gpu
    from gpu_extras.batch import batch_for_shader

    shader = gpu.shader.from_builtin('FLAT_COLOR')
    batch = batch_for_shader(shader, 'TRIS', {"pos": positions, "color": colors})
    gpu.state.depth_test_set('LESS_EQUAL')
    gpu.state.depth_mask_set(True)
    shader.bind()
    batch.draw(shader)
    gpu.state.depth_mask_set(False)


def render_overlay_png(scene, navmesh=None, path="auto", size=(1280, 720),
                       camera="three_quarter", filepath=None, layers=None,
                       draw_scene: bool = True, legend: bool = True) -> Path:
    """Render the scene with its NavJump overlay and save a PNG; returns its path.

    ``filepath`` None: ``<blend name or 'navjump'>_overlay.png`` in the current folder.
    See :func:`render_overlay_pixels` for the other arguments. Raises
    :class:`GPUUnavailable` when the GPU cannot start.
    """
    pixels, _view, _proj = render_overlay_pixels(scene, navmesh, path, size, camera,
                                                 layers, draw_scene, legend=legend)
    if filepath is None:
        import bpy

        stem = Path(bpy.data.filepath).stem if bpy.data.filepath else "navjump"
        filepath = Path.cwd() / f"{stem}_overlay.png"
    return write_png(filepath, pixels)
