"""The viewport overlay: a POST_VIEW draw handler over cached GPU batches.

What is cached, and when it is rebuilt:

* :class:`BakeState` per scene: the stored NavMesh, the problems the panel shows and the
  overlay geometry (numpy, :mod:`.overlay_geometry`). Keyed by the stored bake (mesh
  identity, bake id, blob size, vertex and face counts), so it is rebuilt only when a
  bake (or a hand edit of the result) changes it. Every state gets a new ``version``.
* GPU batches: one per layer and primitive, made on the first draw of a version, inside
  the draw callback (shaders cannot be created in background mode or at import).
* :class:`PathState` per scene: the path-test query and its drawn layer, keyed by bake,
  end points and test agent.

All caches are dropped on undo, redo and file load (``bpy.app.handlers``) and rebuilt on
the next draw. The draw callback never raises: an error is logged once and what is valid
is still drawn. Nothing runs in background mode (no viewport).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import bpy
import numpy as np
from bpy.app.handlers import persistent

from . import overlay_climb as oc
from . import overlay_debug as od
from . import overlay_geometry as ob
from . import storage, storage_agents
from .stub_gaps import builtin_shader, gpu_state_get

if TYPE_CHECKING:  # the core is imported lazily: its first import compiles kernels
    from ..core.debug import BakeDebug
    from ..core.navmesh import NavMesh
    from ..core.query import PathResult

log = logging.getLogger(__name__)

# Lift of the navmesh layers above the baked surface (m): they lie on the floor and
# would z-fight with it. The path floats a bit higher than the fill.
LIFT = 0.05
PATH_LIFT = 0.1
# Gizmo snapping looks this far around the dragged point for a polygon (half-extents, m).
SNAP_EXTENTS = (3.0, 3.0, 6.0)
# The readout mentions an end placed farther than this from where it was put (m).
MOVED_END = 0.25
# A path-test end dragged this close to a climb node (m) snaps onto it (a start mid-climb;
# the query takes an end within core.query.climb.ON_CLIMB_NODE of a node as on it).
CLIMB_SNAP = 0.3


# ====================================================================== CPU state
@dataclass
class BakeState:
    key: tuple
    navmesh: NavMesh | None = None
    geometry: ob.OverlayGeometry | None = None
    errors: list[str] = field(default_factory=list)    # nothing (or less) can be drawn
    warnings: list[str] = field(default_factory=list)  # drawn, but something is off
    version: int = 0
    build_ms: float = 0.0
    debug: BakeDebug | None = None  # the bake's debug data, when it kept some
    debug_error: str = ""           # why stored debug data could not be read
    debug_ms: dict[str, float] = field(default_factory=dict)  # debug layer build times

    @property
    def ok(self) -> bool:
        return self.navmesh is not None


@dataclass
class PathState:
    key: tuple
    result: PathResult | None = None
    message: str = ""              # why there is no (complete) path
    query_ms: float = 0.0
    counts: dict = field(default_factory=dict)
    layer: ob.LayerGeometry | None = None
    version: int = 0


class _Caches:
    def __init__(self):
        self.bake: dict[int, BakeState] = {}
        self.path: dict[int, PathState] = {}
        self.gpu: dict[tuple, dict] = {}  # (scene uid, version) -> layer -> batches
        self.shaders: dict[str, object] = {}
        self.version = 0
        self.clears = 0

    def clear(self):
        self.bake.clear()
        self.path.clear()
        self.gpu.clear()
        self.clears += 1

    def next_version(self) -> int:
        self.version += 1
        return self.version


_caches = _Caches()
_logged: set[str] = set()


def _log_once(message: str):
    if message not in _logged:
        _logged.add(message)
        log.error("NavJump overlay: %s", message)


def clear_caches():
    """Forget every cached navmesh, path and GPU batch (rebuilt on the next draw)."""
    _caches.clear()


def _scene_uid(scene) -> int:
    return int(getattr(scene, "session_uid", 0) or scene.as_pointer())


def bake_key(scene) -> tuple:
    """Cheap identity of the stored bake (computed every frame)."""
    coll = storage.result_collection(scene)
    if coll is None:
        return ("none",)
    obj = storage.result_object(scene, storage.KIND_NAVMESH)
    if obj is None:
        return ("no-object", coll.name)
    if obj.type != 'MESH' or obj.data is None:
        return ("not-mesh", obj.name, obj.type)
    mesh = obj.data
    links = storage.result_object(scene, storage.KIND_LINKS)
    return ("mesh", mesh.as_pointer(), mesh.get("navjump_bake_id"),
            mesh.get("navjump_npz_size"), len(mesh.vertices), len(mesh.polygons),
            storage_agents.shown_name(scene, mesh), links is not None)


def _load_state(scene, key: tuple) -> BakeState:
    state = BakeState(key=key, version=_caches.next_version())
    kind = key[0]
    if kind == "none":
        state.errors.append("Not baked yet: press Bake NavJump")
        return state
    if kind == "no-object":
        state.errors.append("The NavJump Navmesh object was deleted: bake again")
        return state
    if kind == "not-mesh":
        state.errors.append(f"'{key[1]}' is not a mesh any more: bake again")
        return state
    obj = storage.result_object(scene, storage.KIND_NAVMESH)
    try:
        navmesh = storage.load_navmesh(scene, shared=True)  # only read here
    except Exception as exc:  # a foreign, corrupt or other-version blob
        text = str(exc)
        if text.startswith("<"):  # NavMesh.load names the (in-memory) file first
            text = text.partition(": ")[2] or text
        state.errors.append(f"The stored bake cannot be read ({text}): bake again")
        return state
    if navmesh is None:
        state.errors.append(f"'{obj.name}' carries no baked data (its mesh was replaced?): "
                            f"bake again")
        return state
    t0 = time.perf_counter()
    try:
        geometry = ob.build_overlay(navmesh, lift=LIFT)
    except Exception as exc:  # the builders skip bad parts; this is a last resort
        _log_once(f"building the overlay failed: {exc!r}")
        state.errors.append(f"The stored bake could not be drawn ({exc}): bake again")
        return state
    try:
        geometry.layers.update(oc.build_climb_layers(navmesh, geometry.issues, lift=LIFT))
    except Exception as exc:
        _log_once(f"building the climbing overlay failed: {exc!r}")
    state.build_ms = (time.perf_counter() - t0) * 1000.0
    state.navmesh = navmesh
    state.geometry = geometry
    mesh = obj.data
    if storage_agents.drawn_name(mesh) == key[-2] and (
            len(mesh.polygons) != navmesh.polygon_count
            or len(mesh.vertices) != navmesh.vertices.shape[0]):
        state.warnings.append(f"'{obj.name}' was edited by hand: the overlay and the path "
                              f"test show the baked result; bake again to update it")
    if not key[-1] and navmesh.link_count:
        state.warnings.append("The NavJump Links object was deleted: links are drawn from "
                              "the data stored with the navmesh")
    if geometry.issues:
        state.warnings.append("Parts of the stored bake are invalid and not drawn: "
                              + "; ".join(geometry.issues))
    try:
        state.debug = storage.load_debug(scene)
    except ValueError as exc:
        state.debug_error = f"{str(exc)[:1].upper()}{str(exc)[1:]}: bake again"
    return state


def debug_layer(state: BakeState, name: str) -> ob.LayerGeometry | None:
    """A debug layer of the bake (built on first use, then kept with the state)."""
    if state.geometry is None:
        return None
    layer = state.geometry.layers.get(name)
    if layer is None:
        t0 = time.perf_counter()
        layer = od.build_debug_layer(name, state.navmesh, state.debug, LIFT)
        state.debug_ms[name] = (time.perf_counter() - t0) * 1000.0
        state.geometry.layers[name] = layer
    return layer


def bake_state(scene) -> BakeState:
    """The scene's cached bake state, rebuilt when the stored bake changed."""
    uid = _scene_uid(scene)
    key = bake_key(scene)
    state = _caches.bake.get(uid)
    if state is None or state.key != key:
        if state is not None:
            _drop_gpu(uid)
        state = _load_state(scene, key)
        _caches.bake[uid] = state
    return state


def _drop_gpu(uid: int):
    for k in [k for k in _caches.gpu if k[0] == uid]:
        del _caches.gpu[k]


# ====================================================================== path test
def _agent(pg):
    from ..core.query import AgentFilter

    stances, links = ob.test_agent_names(pg)
    if not stances:
        raise ValueError("Pick at least one stance for the test agent")
    return AgentFilter(stances=stances, links=links, abilities=_test_abilities(pg))


def _test_abilities(pg) -> tuple[str, ...]:
    """The path-test agent's climbing abilities (scene.navjump_climb, all by default)."""
    from ..core.kinds import CLIMB_ABILITIES

    climb = getattr(pg.id_data, "navjump_climb", None)
    if climb is None:
        return CLIMB_ABILITIES
    return tuple(a for a in CLIMB_ABILITIES if a in climb.test_abilities)


def path_key(scene, state: BakeState) -> tuple:
    pg = scene.navjump_overlay
    return (state.key, state.version, tuple(round(v, 6) for v in pg.path_start),
            tuple(round(v, 6) for v in pg.path_goal), ob.test_agent_names(pg),
            _test_abilities(pg), bool(pg.path_test))


def _describe(result) -> str:
    if result.found:
        return ""
    if result.status == "partial":
        return ("The goal cannot be reached with this agent: the path shown ends at the "
                "reachable point nearest the goal")
    return f"No path ({result.status})"


def _compute_path(scene, state: BakeState, key: tuple) -> PathState:
    pg = scene.navjump_overlay
    path = PathState(key=key, version=_caches.next_version())
    start = np.array(pg.path_start, np.float64)
    goal = np.array(pg.path_goal, np.float64)
    if not pg.path_test:
        return path
    if state.navmesh is None:  # not state.ok, spelled so the type checker narrows it
        path.message = "No navmesh to test on"
    else:
        try:
            from ..core.query import query_for

            agent = _agent(pg)
            query = query_for(state.navmesh)
            t0 = time.perf_counter()
            result = query.find_path(start, goal, agent)
            path.query_ms = (time.perf_counter() - t0) * 1000.0
            path.result = result
            path.message = _describe(result)
            notes = [path.message] if path.message else []
            for end, asked, placed in (("start", start, result.points[:1]),
                                       ("goal", goal, result.points[-1:])):
                if end == "goal" and not result.found:
                    continue  # a partial path ends short of the goal anyway
                if placed.shape[0] and np.linalg.norm(placed[0] - asked) > MOVED_END:
                    notes.append(f"The {end} was moved {np.linalg.norm(placed[0] - asked):.2f}"
                                 f" m onto the nearest polygon the test agent may use")
            path.message = ". ".join(notes)
            path.counts = ob.path_summary(result.flags, result.stances, result.point_links,
                                          state.navmesh)
            if result.climbing:
                path.counts.update(oc.path_climb_summary(result.flags))
        except ValueError as exc:  # an end off the navmesh, no stance allowed, ...
            path.message = str(exc)[:1].upper() + str(exc)[1:]
        except Exception as exc:
            _log_once(f"path query failed: {exc!r}")
            path.message = f"The path query failed: {exc}"
    r = path.result
    try:
        path.layer = ob.build_path_layer(
            None if r is None else r.points, [] if r is None else r.flags,
            None if r is None else r.stances, None if r is None else r.point_links,
            state.navmesh, start=start, goal=goal, lift=PATH_LIFT)
        if r is not None and path.layer is not None:  # climbing moves drawn over it
            path.layer.lines.extend(oc.path_climb_lines(r.points, r.flags, PATH_LIFT))
    except Exception as exc:
        _log_once(f"building the path layer failed: {exc!r}")
    return path


def path_state(scene) -> PathState:
    """The scene's path test, recomputed when its ends, agent or the bake changed."""
    state = bake_state(scene)
    uid = _scene_uid(scene)
    key = path_key(scene, state)
    path = _caches.path.get(uid)
    if path is None or path.key != key:
        path = _compute_path(scene, state, key)
        _caches.path[uid] = path
    return path


def refresh_path(scene) -> PathState | None:
    """Recompute the path test now (property update callbacks call this)."""
    try:
        return path_state(scene)
    except Exception as exc:  # an update callback must not raise either
        _log_once(f"path refresh failed: {exc!r}")
        return None


def snap_to_navmesh(scene, point) -> tuple[np.ndarray, bool]:
    """``point`` moved onto the nearest polygon the test agent may use (within
    ``SNAP_EXTENTS``), or onto a climb node within ``CLIMB_SNAP`` when the test agent
    climbs; unchanged and False when there is none."""
    p = np.array(point, np.float64).reshape(3)
    state = bake_state(scene)
    if state.navmesh is None or not np.isfinite(p).all():  # not state.ok, or no point
        return p, False
    node = oc.snap_to_climb_node(state.navmesh, p, CLIMB_SNAP)
    if node is not None and _test_abilities(scene.navjump_overlay):
        return node, True  # an agent already hanging or climbing there
    try:
        from ..core.query import query_for

        poly, placed, _dist = query_for(state.navmesh).nearest_polygon(
            p, _agent(scene.navjump_overlay), extents=SNAP_EXTENTS)
    except ValueError:
        return p, False
    if poly < 0:
        return p, False
    return np.asarray(placed, np.float64), True


# ====================================================================== GPU
# Built-in shaders (Blender 4.2+): wide lines need the POLYLINE_* family.
TRI_SHADER = "FLAT_COLOR"
LINE_SHADER = "POLYLINE_FLAT_COLOR"
THIN_LINE_SHADER = "FLAT_COLOR"


def _shader(name: str):
    shader = _caches.shaders.get(name)
    if shader is None:
        shader = _caches.shaders[name] = builtin_shader(name)
    return shader


def make_batches(layer: ob.LayerGeometry) -> list[tuple]:
    """GPU batches of one layer: [(shader name, batch, line width or 0)]."""
    from gpu_extras.batch import batch_for_shader

    out = []
    if layer.tri_positions.shape[0]:
        out.append((TRI_SHADER, batch_for_shader(
            _shader(TRI_SHADER), 'TRIS',
            {"pos": layer.tri_positions, "color": layer.tri_colors}), 0.0))
    for lines in layer.lines:
        if not lines.count:
            continue
        # Hairlines need no polyline shader (it expands every segment into a quad, which
        # software OpenGL pays for on the CPU); wider lines do, FLAT_COLOR draws 1 px only.
        name = LINE_SHADER if lines.width > 1.0 else THIN_LINE_SHADER
        out.append((name, batch_for_shader(
            _shader(name), 'LINES', {"pos": lines.positions, "color": lines.colors}),
            float(lines.width) if name == LINE_SHADER else 0.0))
    return out


def draw_batches(batches: list[tuple], viewport_size) -> None:
    for shader_name, batch, width in batches:
        shader = _shader(shader_name)
        shader.bind()
        if width:
            shader.uniform_float("viewportSize", (float(viewport_size[0]),
                                                  float(viewport_size[1])))
            shader.uniform_float("lineWidth", width)
        batch.draw(shader)


# Drawing order: debug fills and fills first, then outlines, links and the path on top.
DRAW_ORDER = ("debug_voxels", "debug_regions", "debug_polygons") + ob.STANCE_LAYERS \
    + ("navmesh", "tiles", "debug_contours") + ob.LINK_LAYERS + oc.CLIMB_LAYERS \
    + ("debug_link_rejects", "path")


class GpuState:
    """Blend and depth state for overlay drawing, restored on exit."""

    def __init__(self, xray: bool):
        self.xray = xray

    def __enter__(self):
        import gpu

        st = gpu.state
        self._saved = gpu_state_get()
        st.blend_set('ALPHA')
        st.depth_test_set('NONE' if self.xray else 'LESS_EQUAL')
        st.depth_mask_set(False)
        return self

    def __exit__(self, *exc):
        import gpu

        blend, depth, mask = self._saved
        gpu.state.blend_set(blend)
        gpu.state.depth_test_set(depth)
        gpu.state.depth_mask_set(mask)
        return False


def draw_layers(batches_by_layer: dict[str, list], visible, viewport_size,
                xray: bool = False) -> list[str]:
    """Draw the visible layers in order; a failing layer is skipped (and returned)."""
    failed = []
    with GpuState(xray):
        for name in DRAW_ORDER:
            if name not in visible or name not in batches_by_layer:
                continue
            try:
                draw_batches(batches_by_layer[name], viewport_size)
            except Exception as exc:
                failed.append(name)
                _log_once(f"drawing layer {name} failed: {exc!r}")
    return failed


def scene_batches(scene, visible) -> dict[str, list]:
    """GPU batches of the scene's visible layers (made on first use per bake version)."""
    uid = _scene_uid(scene)
    state = bake_state(scene)
    out = {}
    if state.geometry is not None:
        cache = _caches.gpu.setdefault((uid, state.version), {})
        for name in visible:
            if name == "path":
                continue
            if name not in cache:
                try:
                    layer = state.geometry.layers.get(name)
                    if layer is None and name in od.DEBUG_LAYERS:
                        layer = debug_layer(state, name)
                    if layer is None:
                        raise KeyError(name)
                    cache[name] = make_batches(layer)
                except Exception as exc:
                    cache[name] = []
                    _log_once(f"uploading layer {name} failed: {exc!r}")
            out[name] = cache[name]
    if "path" in visible:
        path = path_state(scene)
        if path.layer is not None:
            cache = _caches.gpu.setdefault((uid, "path"), {})
            if cache.get("version") != path.version:
                cache.clear()
                try:
                    cache["batches"] = make_batches(path.layer)
                except Exception as exc:
                    cache["batches"] = []
                    _log_once(f"uploading the path failed: {exc!r}")
                cache["version"] = path.version
            out["path"] = cache["batches"]
    return out


def draw_scene_overlay(scene, viewport_size) -> None:
    """Draw the scene's overlay with the current matrices (viewport or offscreen)."""
    pg = scene.navjump_overlay
    visible = ob.visible_layers(pg) | od.visible_debug_layers(pg)
    if pg.show_overlay:
        visible |= oc.visible_climb_layers(getattr(scene, "navjump_climb", None))
    if not visible:
        return
    draw_layers(scene_batches(scene, visible), visible, viewport_size, xray=pg.xray)


def _draw_callback():
    if bpy.app.background:
        return
    try:
        context = bpy.context
        scene = context.scene
        region = context.region
        if scene is None or region is None or not hasattr(scene, "navjump_overlay"):
            return
        space = context.space_data
        overlay = getattr(space, "overlay", None)
        if overlay is not None and not overlay.show_overlays:
            return
        draw_scene_overlay(scene, (region.width, region.height))
    except Exception as exc:
        _log_once(f"draw callback failed: {exc!r}")


def tag_redraw():
    """Ask every 3D viewport to redraw (no-op without windows)."""
    wm = getattr(bpy.context, "window_manager", None)
    if wm is None:
        return
    for window in wm.windows:
        screen = window.screen
        if screen is None:
            continue
        for area in screen.areas:
            if area.type == 'VIEW_3D':
                area.tag_redraw()


# ====================================================================== handlers
@persistent
def _clear_on_undo(*_args):
    clear_caches()


@persistent
def _clear_on_load(*_args):
    clear_caches()


_handle = None
_HANDLERS = (("undo_post", _clear_on_undo), ("redo_post", _clear_on_undo),
             ("load_post", _clear_on_load))


def register():
    global _handle
    for name, fn in _HANDLERS:
        getattr(bpy.app.handlers, name).append(fn)
    # Registered in background too (it never runs there: no viewport to draw).
    _handle = bpy.types.SpaceView3D.draw_handler_add(_draw_callback, (), 'WINDOW',
                                                     'POST_VIEW')


def unregister():
    global _handle
    if _handle is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_handle, 'WINDOW')
        _handle = None
    for name, fn in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        while fn in handlers:
            handlers.remove(fn)
    clear_caches()
    _caches.shaders.clear()
