"""Auto re-bake: bake again shortly after a bake setting or the scene geometry changed.

A ``depsgraph_update_post`` handler and a message-bus subscription to the settings and
roles notice relevant changes while ``scene.navjump_overlay.auto_rebake`` is on:

* the bake settings (``scene.navjump``) differ from those of the last bake (compared as
  a signature, so unrelated scene updates such as selection do not count);
* an object the bake reads changed geometry, transform or NavJump role, or objects were
  added or removed (NavJump's own result objects are ignored).

Each change (re)starts a short ``bpy.app.timers`` debounce: a newer change cancels the
pending one, so dragging a slider bakes once when it stops. When the timer fires the
scene is gathered (in the main thread, through a per-object :class:`.gather.ObjectCache`:
only objects that moved, changed or appeared are read again) and the core bake runs in
a worker thread beside the UI, as the Bake button's does (``ops_bake.prepare``,
``BakeJob``, ``ops_bake.finish``: same checks, reports and stored result). A poll timer
takes the result when the worker ends: it is stored (one undo step), the overlay state
rebuilt. A change during the bake cancels it (the core stops at its next stage) and
schedules the newer bake; a bake that a newer change made stale is never stored, so the
stored result switches only to a complete bake of the newest state.

Undo, redo and file load re-read the signatures, drop a pending bake and cancel a
running one: restoring an older state must not bake over it. Timers do not run in
background mode; there :func:`fire_pending` starts the pending bake and :func:`finish`
takes its result (tests, scripts), or :func:`rebake` does both.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import NamedTuple

import bpy
from bpy.app.handlers import persistent

from ..core.tile_cache import TileCache
from . import gather, ops_bake, overlay, props
from .rebake_changes import Signature, make_signature, role_change, settings_change

log = logging.getLogger(__name__)

# Wait after the last change before baking (s). Short: the aim is a new overlay within
# 200 ms of releasing a slider; long enough to merge the updates of one drag step.
DEBOUNCE_SECONDS = 0.05
# Retry delay while a bake started from the UI (in its own thread) is still running.
BUSY_RETRY_SECONDS = 0.25
# How often the UI looks whether the worker thread ended.
POLL_SECONDS = 0.02


class _State:
    def __init__(self):
        self.signatures: dict[int, Signature] = {}
        self.roles: dict[int, dict[str, str]] = {}
        self.pending_scene: str | None = None
        self.pending_reason = ""
        self.changed_at = 0.0
        self.generation = 0
        self.storing = False
        self.ignore_geometry_once = False
        self.last: dict | None = None
        self.error = ""
        self.bakes = 0
        self.cancelled = 0  # runs cancelled or made stale by a newer change
        self.running: _Running | None = None
        self.stage = ""
        # patching: _check reports every object the depsgraph updates (touch)
        self.objects = gather.ObjectCache(patching=True)
        self.nav = None  # the last re-bake's gather_nav.NavObjects (see _prepare_nav)
        # tiled bakes: each scene's tile cache, and the boxes edited since the last
        # completed re-bake of ``tile_scene`` (None: unknown, the next bake does every tile)
        self.tiles: dict[str, TileCache] = {}
        self.tile_boxes: list | None = None
        self.tile_scene = ""
        # Tests hold the worker at its first stage with this (cleared) event.
        self.gate: threading.Event | None = None


_state = _State()


def _uid(scene) -> int:
    return int(getattr(scene, "session_uid", 0) or scene.as_pointer())


def settings_signature(scene) -> Signature:
    """What a bake of this scene depends on, besides geometry."""
    pg = scene.navjump
    try:
        values = props.to_bake_settings(pg).to_dict()
    except Exception as exc:  # an invalid combination still counts as a change
        values = {"error": str(exc)}
    source = (pg.source, pg.source_collection.name if pg.source_collection else "",
              pg.bounds_object.name if pg.bounds_object else "")
    return make_signature(values, source, _object_count(scene))


def _object_count(scene) -> int:
    """The scene's objects, NavJump's results not counted (without a walk over them)."""
    from .storage import result_collection

    coll = result_collection(scene)
    ours = sum(1 for obj in coll.all_objects if gather.is_result_object(obj)) \
        if coll is not None else 0
    return len(scene.objects) - ours


def _roles(scene) -> dict[str, str]:
    from .storage import result_collection

    roles = {obj.name: obj.navjump_role for obj in scene.objects}
    coll = result_collection(scene)  # NavJump's own results (no look-up per object)
    for obj in coll.all_objects if coll is not None else ():
        if gather.is_result_object(obj):
            roles.pop(obj.name, None)
    return roles


def remember(scene, roles: bool = True) -> None:
    """Take the scene's current settings and roles as 'already baked'. ``roles`` False:
    keep the roles known (the depsgraph handler and the settings message keep them up to
    date; a walk over every object costs ~5 ms at 3,000 objects) unless none are."""
    uid = _uid(scene)
    _state.signatures[uid] = settings_signature(scene)
    if roles or uid not in _state.roles:
        _state.roles[uid] = _roles(scene)


def change_reason(scene, depsgraph=None, ignore_geometry: bool = False) -> str:
    """Why the scene needs a re-bake ('' when it does not).

    ``depsgraph`` given (a depsgraph update): its updated objects are checked for
    geometry, transform and role edits. None (a settings message): every object's role.
    """
    uid = _uid(scene)
    signature = settings_signature(scene)
    before = _state.signatures.get(uid)
    reason = settings_change(before, signature)
    if reason:
        _state.signatures[uid] = signature
        return reason
    roles = _state.roles.setdefault(uid, {})
    if depsgraph is None:
        now = _roles(scene)
        _state.roles[uid] = now
        reason = role_change(roles, now)
        if reason:
            _state.objects.mark_unknown()
        return reason
    reason = ""
    for update in depsgraph.updates:
        obj = update.id
        if not isinstance(obj, bpy.types.Object):
            continue
        obj = obj.original
        if obj is None or gather.is_result_object(obj):
            continue
        role = obj.navjump_role  # type: ignore[attr-defined]  # added by props.register()
        role_reason = role_change(roles, {obj.name: role})
        if role_reason:
            _state.objects.mark_unknown()  # the gather walks every object again
        reason = reason or role_reason
        roles[obj.name] = role
        if ignore_geometry or obj.type not in gather.GEOMETRY_TYPES | {'EMPTY'}:
            continue
        if update.is_updated_geometry:
            _state.objects.invalidate(obj.name)
        if update.is_updated_geometry or update.is_updated_transform:
            _state.objects.touch(obj.name)
            reason = reason or f"{obj.name} changed"
    return reason


def schedule(scene, reason: str, delay: float | None = None,
             changed_at: float | None = None) -> None:
    """(Re)start the debounce timer; a pending bake is replaced by this one and a
    running one is cancelled (its result would be stale)."""
    _state.generation += 1
    if _state.running is not None:
        _state.running.job.cancel()
    _state.pending_scene = scene.name
    _state.pending_reason = reason
    _state.changed_at = time.perf_counter() if changed_at is None else changed_at
    if bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.unregister(_on_timer)
    bpy.app.timers.register(_on_timer,
                            first_interval=DEBOUNCE_SECONDS if delay is None else delay)
    overlay.tag_redraw()


def cancel() -> None:
    """Drop the pending bake (a running one goes on: see :func:`stop`)."""
    _state.pending_scene = None
    _state.pending_reason = ""
    if bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.unregister(_on_timer)


def stop() -> None:
    """Drop the pending bake and cancel the running one (its result is never stored)."""
    cancel()
    _state.generation += 1
    if _state.running is not None:
        _state.running.job.cancel()


def object_settings_changed() -> None:
    """An object's NavJump settings changed (its volume, link, area, climbing settings):
    the next gather reads every object (the depsgraph does not report these)."""
    _state.objects.mark_unknown()


def pending() -> bool:
    return _state.pending_scene is not None


def status() -> dict:
    return {"pending": pending(), "reason": _state.pending_reason, "last": _state.last,
            "error": _state.error, "bakes": _state.bakes, "generation": _state.generation,
            "running": running(), "stage": _state.stage, "cancelled": _state.cancelled}


def _context_override(scene):
    wm = bpy.context.window_manager
    window = wm.windows[0] if wm is not None and len(wm.windows) else None
    override = {"scene": scene}
    if window is not None:
        override["window"] = window
    return override


class _Report:
    """An operator-like ``report``: keeps the first error or warning for the status."""

    def __init__(self):
        self.error = ""

    def __call__(self, kind, message):
        if kind & {'ERROR', 'WARNING'} and not self.error:
            self.error = message


class _Running(NamedTuple):
    """The re-bake running beside the UI."""

    job: ops_bake.BakeJob
    scene: str
    reason: str
    generation: int  # _State.generation when it started: a newer change cancels it
    changed_at: float
    started_at: float
    gather_ms: float


def start(scene, reason: str = "", changed_at: float | None = None) -> bool:
    """Gather ``scene`` (here, in the main thread: bpy is not thread-safe) and start its
    bake in a worker thread. True when a bake started; False when it could not start
    (the reason is in :func:`status`) or another bake still runs (then it is retried)."""
    t_start = time.perf_counter()
    changed_at = t_start if changed_at is None else changed_at
    if ops_bake.running():  # the Bake button's, or a cancelled re-bake not yet stopped
        _state.error = "Waiting for the running bake to finish"
        schedule(scene, reason or "retry",
                 delay=DEBOUNCE_SECONDS if _state.running else BUSY_RETRY_SECONDS,
                 changed_at=changed_at)
        return False
    report = _Report()
    remember(scene, roles=False)  # a change from now on is newer than this bake: cancels it
    with bpy.context.temp_override(**_context_override(scene)):
        prepared = ops_bake.prepare(
            bpy.context, report,
            gather=lambda ctx: gather.gather_from_context(ctx, object_cache=_state.objects),
            nav=_prepare_nav)
    t_gathered = time.perf_counter()
    if prepared is None:
        _state.error = report.error or "The auto re-bake could not start"
        return False
    settings, gathered = prepared
    tile_cache, changed = _tile_job(scene, settings)
    job = ops_bake.BakeJob(None, gathered, settings, on_progress=_on_progress,
                           keep_debug=scene.navjump.keep_debug, tile_cache=tile_cache,
                           changed=changed)
    _state.running = _Running(job, scene.name, reason or "requested", _state.generation,
                              changed_at, t_start, (t_gathered - t_start) * 1000.0)
    ops_bake.start_beside_ui(job)
    if not bpy.app.background:
        if bpy.app.timers.is_registered(_on_poll):
            bpy.app.timers.unregister(_on_poll)
        bpy.app.timers.register(_on_poll, first_interval=POLL_SECONDS)
    overlay.tag_redraw()
    return True


def _prepare_nav(context, settings, gathered) -> None:
    """``bake_nav.prepare_nav`` without its walk over every object when the gather was
    patched (nothing but the touched objects changed) and none of them is a modifier
    volume, a link, a link's end or an object with an area or No Generated Links: the
    volumes and links of the last bake are taken again (the agents are read anew)."""
    from .bake_nav import add_agents, prepare_nav

    cache = _state.objects
    nav = _state.nav
    if cache.patched and nav is not None and not any(
            _nav_relevant(bpy.data.objects.get(name)) for name in cache.patched_names):
        gathered.nav = nav._replace(agents=[], shown="")
        add_agents(context.scene, settings, gathered)
    else:
        prepare_nav(context, settings, gathered)
    _state.nav = gathered.nav


def _nav_relevant(obj) -> bool:
    if obj is None or obj.type == 'EMPTY':  # gone, or maybe a link's end
        return True
    s = getattr(obj, "navjump_nav", None)
    return s is not None and (s.volume != 'NONE' or s.is_link or bool(s.area) or s.no_links)


def _tile_job(scene, settings) -> tuple[TileCache | None, list | None]:
    """The tile cache and the edited boxes for a re-bake of ``scene`` that was just
    gathered: a tiled bake re-bakes only the tiles the boxes touch (``core.tiles``); None
    boxes (first bake, another scene, a bounds object clipping the scene, edits not
    watched) bake every tile and fill the cache."""
    changed = _state.objects.changed
    if _state.tile_scene != scene.name or changed is None or _state.tile_boxes is None:
        _state.tile_boxes = None
    else:
        _state.tile_boxes.extend(changed)
    if not settings.tile_size or scene.navjump.bounds_object is not None:
        return None, None
    cache = _state.tiles.setdefault(scene.name, TileCache())
    return cache, None if _state.tile_boxes is None else list(_state.tile_boxes)


def _forget_tiles() -> None:
    """Edits were not watched (undo, file load, Auto re-bake switched on): the next tiled
    re-bake bakes every tile."""
    _state.tiles.clear()
    _state.tile_boxes = None


def _on_progress(stage, fraction):
    # in the worker thread: only plain values, read by the panel
    _state.stage = f"{stage} ({fraction * 100:.0f}%)"
    gate = _state.gate
    if gate is not None:
        gate.wait()


def running() -> bool:
    """A re-bake was started and its result is not yet taken (stored or dropped)."""
    return _state.running is not None


def finish(wait: bool = True) -> dict | None:
    """Take the running re-bake's outcome: store it if it completed and no newer change
    came since, and rebuild the overlay state. ``wait`` False: return None at once while
    the worker still runs. Returns timings (ms) when a result was stored."""
    run = _state.running
    if run is None:
        return None
    if not wait and not run.job.done:
        return None
    run.job.wait()
    _state.running = None
    _state.stage = ""
    t_baked = time.perf_counter()
    scene = bpy.data.scenes.get(run.scene)
    stale = run.generation != _state.generation
    if run.job.cancelled or stale:
        _state.cancelled += 1
        return None
    report = _Report()
    _state.storing = True  # our own result objects change: not an edit
    try:
        ok = ops_bake.finish(scene, run.job, report, compress=False) == {'FINISHED'}
    finally:
        _state.storing = False
    _state.error = report.error if not ok else ""
    if not ok:
        return None
    # the tile cache now holds this bake: later edits are counted from here
    _state.tile_scene, _state.tile_boxes = run.scene, []
    t_stored = time.perf_counter()
    overlay.bake_state(scene)  # rebuild the overlay geometry now, not at the next draw
    overlay.tag_redraw()
    t_done = time.perf_counter()
    _push_undo()
    _state.bakes += 1
    stats = (run.job.result.stats if run.job.result is not None else None) or {}
    core_ms = dict(stats.get("timings_ms") or {})
    core_total = float(core_ms.pop("total", 0.0))
    stage_ms = sum(v for v in core_ms.values() if isinstance(v, (int, float)))
    bake_ms = run.job.seconds * 1000.0
    _state.last = {"reason": run.reason,
                   "wait_ms": (run.started_at - run.changed_at) * 1000.0,
                   "gather_ms": run.gather_ms,
                   "gather": _state.objects.stats(),
                   # only the touched objects were read (gather.ObjectCache, patching)
                   "gather_patched": _state.objects.patched,
                   # a tiled bake: tiles baked again (all of them for a full bake)
                   "tiles_rebaked": stats.get("tiles_rebaked"),
                   "bake_ms": bake_ms,
                   # the core's time outside its stages: input validation, set-up
                   "validate_ms": max(core_total - stage_ms, 0.0),
                   "store_ms": (t_stored - t_baked) * 1000.0,
                   "overlay_ms": (t_done - t_stored) * 1000.0,
                   "total_ms": (t_done - run.changed_at) * 1000.0}
    return _state.last


def _push_undo():
    """One undo step per stored re-bake, as the Bake button's operator makes."""
    if bpy.app.background:
        return
    try:
        with bpy.context.temp_override(**_context_override(bpy.context.scene)):
            bpy.ops.ed.undo_push(message="NavJump Auto Re-bake")
    except RuntimeError:
        log.debug("no undo step for the auto re-bake", exc_info=True)


def rebake(scene, reason: str = "", changed_at: float | None = None) -> dict | None:
    """Bake ``scene`` now and wait for it (scripts, background mode, benchmarks).
    Returns timings (ms) or None when the bake did not finish (see :func:`status`)."""
    finish()  # the previous run's outcome first
    if not start(scene, reason, changed_at):
        return None
    return finish()


def fire_pending() -> bool:
    """Start the pending bake now (what the debounce timer does); True if it started.
    Its result is taken by :func:`finish` (the poll timer in the UI)."""
    name = _state.pending_scene
    reason = _state.pending_reason
    changed_at = _state.changed_at
    cancel()
    scene = bpy.data.scenes.get(name) if name else None
    if scene is None or not scene.navjump_overlay.auto_rebake:
        return False
    finish(wait=False)  # a run that ended is taken (stored or dropped) before a new one
    return start(scene, reason, changed_at)


def rebake_pending() -> dict | None:
    """Start the pending bake and wait for its result (scripts, background mode)."""
    if not fire_pending():
        return None
    return finish()


def _on_timer():
    try:
        fire_pending()
    except Exception as exc:  # a timer callback that raises is dropped silently
        log.exception("NavJump auto re-bake failed")
        _state.error = f"Auto re-bake failed: {exc}"
    return None  # one shot


def _on_poll():
    try:
        if _state.running is None:
            return None
        if not _state.running.job.done:
            overlay.tag_redraw()  # the panel shows the stage
            return POLL_SECONDS
        finish()
    except Exception as exc:
        log.exception("NavJump auto re-bake failed")
        _state.error = f"Auto re-bake failed: {exc}"
    return None


def auto_toggled(scene, enabled: bool) -> None:
    """Property update of ``auto_rebake``: start from the current state."""
    if scene is None:
        return
    if enabled:
        remember(scene)
        _state.objects.clear()  # edits made while it was off were not watched
        _forget_tiles()
        _state.error = ""
    else:
        if _state.pending_scene == scene.name or (
                _state.running is not None and _state.running.scene == scene.name):
            stop()


@persistent
def _on_depsgraph_update(scene, depsgraph):
    # The first update after undo/redo/load re-evaluates restored objects: not an edit.
    ignore_geometry = _state.ignore_geometry_once
    _state.ignore_geometry_once = False
    _check(scene, depsgraph, ignore_geometry)


def _check(scene, depsgraph=None, ignore_geometry: bool = False):
    """Schedule a bake when Auto re-bake is on and the scene changed (a handler: never
    raises; a failure is logged and shown as the status)."""
    if _state.storing or scene is None:
        return
    try:
        pg = getattr(scene, "navjump_overlay", None)
        if pg is None or not pg.auto_rebake:
            return
        reason = change_reason(scene, depsgraph, ignore_geometry)
        if reason:
            schedule(scene, reason)
    except Exception as exc:
        log.exception("NavJump auto re-bake check failed")
        _state.error = f"Auto re-bake check failed: {exc}"


# Property edits of Python-defined settings do not always reach the depsgraph; the
# message bus reports them (in the UI: it is delivered by the event loop).
_msgbus_owner = object()


def _on_settings_message(*_args):
    _check(bpy.context.scene)


def _subscribe():
    bpy.msgbus.clear_by_owner(_msgbus_owner)
    for key in (props.NAVJUMP_PG_settings, (bpy.types.Object, "navjump_role")):
        bpy.msgbus.subscribe_rna(key=key, owner=_msgbus_owner, args=(),
                                 notify=_on_settings_message, options={'PERSISTENT'})


@persistent
def _on_restore(*_args):
    # Undo/redo/load restore an older state: adopt it, never bake over it.
    stop()
    _state.objects.clear()
    _forget_tiles()
    _subscribe()  # a file load drops message bus subscriptions
    _state.signatures.clear()
    _state.roles.clear()
    _state.ignore_geometry_once = True
    if not bpy.app.background:  # no update may follow: do not swallow a later real edit
        bpy.app.timers.register(_end_restore, first_interval=0.5)
    for scene in bpy.data.scenes:
        pg = getattr(scene, "navjump_overlay", None)
        if pg is not None and pg.auto_rebake:
            remember(scene)


def _end_restore():
    _state.ignore_geometry_once = False
    return None


_HANDLERS = (("depsgraph_update_post", _on_depsgraph_update), ("undo_post", _on_restore),
             ("redo_post", _on_restore), ("load_post", _on_restore))


def register():
    for name, fn in _HANDLERS:
        getattr(bpy.app.handlers, name).append(fn)
    _subscribe()


def unregister():
    stop()
    for fn in (_on_timer, _on_poll):
        if bpy.app.timers.is_registered(fn):
            bpy.app.timers.unregister(fn)
    bpy.msgbus.clear_by_owner(_msgbus_owner)
    for name, fn in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        while fn in handlers:
            handlers.remove(fn)
