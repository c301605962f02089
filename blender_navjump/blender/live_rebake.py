"""Auto re-bake: bake again shortly after a bake setting or the scene geometry changed.

A ``depsgraph_update_post`` handler and a message-bus subscription to the settings and
roles notice relevant changes while ``scene.navjump_overlay.auto_rebake`` is on:

* the bake settings (``scene.navjump``) differ from those of the last bake (compared as
  a signature, so unrelated scene updates such as selection do not count);
* an object the bake reads changed geometry, transform or NavJump role, or objects were
  added or removed (NavJump's own result objects are ignored).

Each change (re)starts a short ``bpy.app.timers`` debounce: a newer change cancels the
pending one, so dragging a slider bakes once when it stops. When the timer fires the
bake runs through ``bpy.ops.navjump.bake`` (the Bake button's operator, so results,
reports and undo are the same), then the overlay state is rebuilt at once.

Undo, redo and file load re-read the signatures and drop a pending bake: restoring an
older state must not bake over it. Timers do not run in background mode; there
:func:`fire_pending` runs the pending bake (tests, scripts).
"""

from __future__ import annotations

import logging
import time

import bpy
from bpy.app.handlers import persistent

from . import gather, overlay, props
from .rebake_changes import Signature, make_signature, role_change, settings_change

log = logging.getLogger(__name__)

# Wait after the last change before baking (s). Short: the aim is a new overlay within
# 200 ms of releasing a slider; long enough to merge the updates of one drag step.
DEBOUNCE_SECONDS = 0.05
# Retry delay while a bake started from the UI (in its own thread) is still running.
BUSY_RETRY_SECONDS = 0.25


class _State:
    def __init__(self):
        self.signatures: dict[int, Signature] = {}
        self.roles: dict[int, dict[str, str]] = {}
        self.pending_scene: str | None = None
        self.pending_reason = ""
        self.changed_at = 0.0
        self.generation = 0
        self.baking = False
        self.ignore_geometry_once = False
        self.last: dict | None = None
        self.error = ""
        self.bakes = 0


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
    objects = sum(1 for obj in scene.objects if not gather.is_result_object(obj))
    return make_signature(values, source, objects)


def _roles(scene) -> dict[str, str]:
    return {obj.name: obj.navjump_role for obj in scene.objects
            if not gather.is_result_object(obj)}


def remember(scene) -> None:
    """Take the scene's current settings and roles as 'already baked'."""
    uid = _uid(scene)
    _state.signatures[uid] = settings_signature(scene)
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
        return role_change(roles, now)
    reason = ""
    for update in depsgraph.updates:
        obj = update.id
        if not isinstance(obj, bpy.types.Object):
            continue
        obj = obj.original
        if obj is None or gather.is_result_object(obj):
            continue
        role = obj.navjump_role  # type: ignore[attr-defined]  # added by props.register()
        reason = reason or role_change(roles, {obj.name: role})
        roles[obj.name] = role
        if ignore_geometry or obj.type not in gather.GEOMETRY_TYPES | {'EMPTY'}:
            continue
        if update.is_updated_geometry or update.is_updated_transform:
            reason = reason or f"{obj.name} changed"
    return reason


def schedule(scene, reason: str, delay: float | None = None) -> None:
    """(Re)start the debounce timer; a pending bake is replaced by this one."""
    _state.generation += 1
    _state.pending_scene = scene.name
    _state.pending_reason = reason
    _state.changed_at = time.perf_counter()
    if bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.unregister(_on_timer)
    bpy.app.timers.register(_on_timer,
                            first_interval=DEBOUNCE_SECONDS if delay is None else delay)
    overlay.tag_redraw()


def cancel() -> None:
    _state.pending_scene = None
    _state.pending_reason = ""
    if bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.unregister(_on_timer)


def pending() -> bool:
    return _state.pending_scene is not None


def status() -> dict:
    return {"pending": pending(), "reason": _state.pending_reason, "last": _state.last,
            "error": _state.error, "bakes": _state.bakes, "generation": _state.generation}


def _context_override():
    wm = bpy.context.window_manager
    window = wm.windows[0] if wm is not None and len(wm.windows) else None
    if window is None:
        return {}
    return {"window": window}


def rebake(scene, reason: str = "", changed_at: float | None = None) -> dict | None:
    """Bake ``scene`` now through the operator and rebuild its overlay state.

    Returns timings (ms) or None when the bake did not finish (the reason is in
    :func:`status`).
    """
    t_start = time.perf_counter()
    changed_at = t_start if changed_at is None else changed_at
    # bpy.ops.navjump holds our operators, registered at run time: no stub can list them
    if not bpy.ops.navjump.bake.poll():  # type: ignore[attr-defined]  # a UI bake is running
        _state.error = "Waiting for the running bake to finish"
        schedule(scene, reason or "retry", delay=BUSY_RETRY_SECONDS)
        return None
    _state.baking = True
    try:
        override = _context_override()
        override["scene"] = scene
        with bpy.context.temp_override(**override):
            result = bpy.ops.navjump.bake('EXEC_DEFAULT')  # type: ignore[attr-defined]
        ok = result == {'FINISHED'}
        _state.error = "" if ok else "The last auto re-bake was cancelled"
    except RuntimeError as exc:  # the operator reported an error (bad settings...)
        ok = False
        _state.error = f"Auto re-bake failed: {exc}".replace("Error: ", "").strip()
    finally:
        _state.baking = False
    remember(scene)
    t_baked = time.perf_counter()
    if not ok:
        return None
    overlay.bake_state(scene)  # rebuild the overlay geometry now, not at the next draw
    overlay.tag_redraw()
    t_done = time.perf_counter()
    _state.bakes += 1
    _state.last = {"reason": reason or "requested",
                   "wait_ms": (t_start - changed_at) * 1000.0,
                   "bake_ms": (t_baked - t_start) * 1000.0,
                   "overlay_ms": (t_done - t_baked) * 1000.0,
                   "total_ms": (t_done - changed_at) * 1000.0}
    return _state.last


def fire_pending() -> dict | None:
    """Run the pending bake now (what the timer does)."""
    name = _state.pending_scene
    reason = _state.pending_reason
    changed_at = _state.changed_at
    cancel()
    scene = bpy.data.scenes.get(name) if name else None
    if scene is None or not scene.navjump_overlay.auto_rebake:
        return None
    return rebake(scene, reason, changed_at)


def _on_timer():
    try:
        fire_pending()
    except Exception as exc:  # a timer callback that raises is dropped silently
        log.exception("NavJump auto re-bake failed")
        _state.error = f"Auto re-bake failed: {exc}"
    return None  # one shot


def auto_toggled(scene, enabled: bool) -> None:
    """Property update of ``auto_rebake``: start from the current state."""
    if scene is None:
        return
    if enabled:
        remember(scene)
        _state.error = ""
    else:
        if _state.pending_scene == scene.name:
            cancel()


@persistent
def _on_depsgraph_update(scene, depsgraph):
    # The first update after undo/redo/load re-evaluates restored objects: not an edit.
    ignore_geometry = _state.ignore_geometry_once
    _state.ignore_geometry_once = False
    _check(scene, depsgraph, ignore_geometry)


def _check(scene, depsgraph=None, ignore_geometry: bool = False):
    """Schedule a bake when Auto re-bake is on and the scene changed (a handler: never
    raises; a failure is logged and shown as the status)."""
    if _state.baking or scene is None:
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
    cancel()
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
    cancel()
    bpy.msgbus.clear_by_owner(_msgbus_owner)
    for name, fn in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        while fn in handlers:
            handlers.remove(fn)
