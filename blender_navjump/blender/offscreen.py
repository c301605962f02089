"""Render the overlay headless: scene geometry plus overlay layers into a PNG.

For the batch job (``scripts/bake_demo.py``) and the GPU tests. Blender as a Python
module runs in background mode, where the GPU backend starts only as a side effect of a
render: :func:`ensure_gpu` renders one 8 x 8 Workbench frame of a throw-away scene
first. Then the scene's triangles (flat shaded) and the overlay layers are drawn into a
``GPUOffScreen`` from a camera fitted to the navmesh bounds, read back and written as a
PNG (a small zlib writer: no image datablock is created in the user's file).

Camera matrices come from :mod:`.camera` and the PNG codec from :mod:`.png` (both
bpy-free).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import overlay_climb as oc
from . import overlay_debug as od
from . import overlay_geometry as ob
from .camera import fit_camera, orthographic
from .png import write_png
from .stub_gaps import (
    active_framebuffer,
    builtin_shader,
    matrix_push_pop,
    new_offscreen,
    offscreen_bound,
    projection_push_pop,
)

BACKGROUND = (0.08, 0.08, 0.1, 1.0)
GROUND_COLOR = np.array([0.62, 0.6, 0.57])
OBSTACLE_COLOR = np.array([0.62, 0.42, 0.36])
LIGHT = np.array([0.35, -0.45, 0.82]) / np.linalg.norm([0.35, -0.45, 0.82])


class GPUUnavailable(RuntimeError):
    """The GPU backend cannot start here (no EGL/OpenGL)."""


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
        # the stubs list one engine; the enum holds every registered render engine
        scene.render.engine = 'BLENDER_WORKBENCH'  # type: ignore[assignment]
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
    """A long path that uses links if the navmesh has any (for pictures); on a navmesh with
    a climb graph, one that climbs when the long one does not (see
    :func:`.overlay_climb.climbing_goals`)."""
    from ..core.query import far_apart_points, find_path

    try:
        pair = far_apart_points(navmesh)
        if pair is None:
            return None
        path = find_path(navmesh, pair[0], pair[1])
        if path.climbing:
            return path
        for goal in oc.climbing_goals(navmesh):
            climbing = find_path(navmesh, pair[0], goal)
            if climbing.found and climbing.climbing:
                return climbing
        return path
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
    layer = ob.build_path_layer(path.points, path.flags, path.stances, path.point_links,
                                navmesh, start=path.points[0] if len(path.points) else None,
                                goal=path.points[-1] if len(path.points) else None,
                                lift=0.1)
    layer.lines.extend(oc.path_climb_lines(path.points, path.flags, 0.1))
    return layer


def render_overlay_pixels(scene=None, navmesh=None, path=None, size=(960, 540),
                          camera="three_quarter", layers=None, draw_scene: bool = True,
                          background=BACKGROUND, xray: bool = False,
                          legend: bool = False, debug=None):
    """Draw into an offscreen buffer; returns ``(pixels (H, W, 4) uint8 top row first,
    view, projection)``.

    ``navmesh`` None: the scene's stored bake (if it cannot be read, only the scene is
    drawn; ``overlay.bake_state(scene).errors`` says why). ``path``: a PathResult, None or "auto"
    (a long path across the navmesh). ``layers``: names from
    ``overlay_geometry.LAYER_NAMES`` (None: every layer). ``camera``: "three_quarter",
    "top", a camera object or a (view, projection) pair of 4 x 4 matrices. ``legend``:
    colour keys of the drawn layers in the top-left corner. Debug layers
    (``overlay_debug.DEBUG_LAYERS``) are drawn only when named in ``layers``, from
    ``debug`` (a ``core.debug.BakeDebug``; None: the scene's stored debug data).
    """
    import gpu

    from . import overlay

    w, h = int(size[0]), int(size[1])
    if navmesh is None and scene is not None:
        navmesh = overlay.bake_state(scene).navmesh  # None (nothing drawn) when unreadable
    geometry = ob.build_overlay(navmesh, lift=overlay.LIFT)
    if navmesh is not None:
        geometry.layers.update(oc.build_climb_layers(navmesh, lift=overlay.LIFT))
    wanted_debug = [name for name in od.DEBUG_LAYERS if layers is not None and name in layers]
    if wanted_debug and debug is None and scene is not None:
        debug = overlay.bake_state(scene).debug
    for name in wanted_debug:
        geometry.layers[name] = od.build_debug_layer(name, navmesh, debug, overlay.LIFT)
    path_layer = _path_layer(navmesh, path) if navmesh is not None else None
    if path_layer is not None:
        geometry.layers["path"] = path_layer
    visible = set(ob.LAYER_NAMES + oc.CLIMB_LAYERS if layers is None else layers)
    scene_geo = scene_triangles(scene) if (draw_scene and scene is not None) else None
    bounds = geometry.bounds
    if not geometry.bounds.any() and scene_geo is not None and scene_geo[0].shape[0]:
        bounds = np.stack([scene_geo[0].min(axis=0), scene_geo[0].max(axis=0)])
    view, proj = _camera_matrices(scene, camera, bounds, (w, h))

    ensure_gpu()
    offscreen = new_offscreen(w, h)
    try:
        with offscreen_bound(offscreen):
            fb = active_framebuffer()
            fb.clear(color=tuple(background), depth=1.0)
            with matrix_push_pop(), projection_push_pop():
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
        pixels = np.array(buf.to_list(), dtype=np.uint8)  # type: ignore[attr-defined]  # not in the stubs
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
    out += oc.legend_entries(visible, geometry)
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
    with matrix_push_pop(), projection_push_pop():
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
        shader = builtin_shader('FLAT_COLOR')
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

    shader = builtin_shader('FLAT_COLOR')
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
