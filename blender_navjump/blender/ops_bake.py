"""``navjump.bake``: gather the scene, run the core bake, store the result.

From a script (``bpy.ops.navjump.bake()``) and in background mode the bake runs
synchronously in ``execute``. From the UI (``invoke``) it runs in a worker thread while a
modal timer shows the stage in the header and status bar; Esc cancels at the next stage.
The worker thread only touches numpy/numba data gathered beforehand, never bpy.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING

import bpy
from bpy.app.handlers import persistent
from bpy.types import Operator

from . import gather as gather_mod
from . import props, storage, summary
from .prefs import preferences
from .stub_gaps import register_classes_factory

if TYPE_CHECKING:  # the core is imported through numba_env, after its cache is set up
    from ..core.debug import BakeDebug
    from ..core.navmesh import NavMesh

log = logging.getLogger(__name__)

_active_job: BakeJob | None = None


def _pipeline():
    from ..core import pipeline

    return pipeline


# Shown beside the stage while the first bake after an install compiles the kernels.
COMPILING = "compiling kernels, first bake only"


class BakeJob:
    """One core bake of already gathered triangles; runs in the caller or in a thread.

    ``pipeline`` None: the core is imported by ``run`` (in the thread, so importing numba
    and loading the kernels never holds up the UI). While the kernels are not yet cached
    (the first bake after an install with no kernels for this machine), every stage name
    says so (:data:`COMPILING`).
    """

    def __init__(self, pipeline, gathered: gather_mod.GatherResult, settings, on_progress=None,
                 keep_debug: bool = False, tile_cache=None, changed=None):
        self.pipeline = pipeline
        # a tiled bake's cache and the boxes edited since its last bake (Auto re-bake:
        # only the tiles they touch are baked again; ``core.tiles``)
        self.tile_cache = tile_cache
        self.changed = changed
        self.keep_debug = keep_debug
        self.debug: BakeDebug | None = None  # filled by the bake when keep_debug
        self.compiling = False
        self.gathered = gathered
        self.settings = settings
        self.on_progress = on_progress
        self.stage = "starting"
        self.fraction = 0.0
        self.result: NavMesh | None = None
        self.results: dict | None = None  # every agent's NavMesh (a bake of several)
        self.climb_warnings: list[str] = []  # climb objects left out, each named
        self.error: BaseException | None = None
        self.error_traceback = ""
        self.cancelled = False
        self.seconds = 0.0
        self._cancel = threading.Event()
        self._done = threading.Event()
        self.thread: threading.Thread | None = None

    # The core calls this before each stage; raising BakeCancelled stops the bake there.
    def progress(self, stage: str, fraction: float):
        if self.compiling:
            stage = f"{stage} ({COMPILING})"
        self.stage, self.fraction = stage, float(fraction)
        if self._cancel.is_set():
            raise self.pipeline.BakeCancelled()
        if self.on_progress is not None:
            self.on_progress(stage, fraction)

    def run(self):
        t0 = time.perf_counter()
        g = self.gathered
        try:
            from ..core import kernel_cache

            notice = kernel_cache.compile_notice()
            self.compiling = notice is not None
            if notice:
                print(notice, file=sys.stderr, flush=True)  # the console and batch logs
            if self.pipeline is None:
                self.stage = "loading kernels"
                self.pipeline = _pipeline()
            debug = None
            if self.keep_debug:
                from ..core.debug import BakeDebug

                debug = BakeDebug()
            nav = g.nav
            if nav is not None and nav.any:  # agents, volumes or links (bake_nav.py)
                from .bake_nav import bake_all

                if self.tile_cache is not None:  # this bake does not keep the tile parts
                    self.tile_cache.clear(None)
                self.result, self.results = bake_all(g, self.settings, self.progress)
            else:
                extra = {}
                if self.tile_cache is not None:
                    extra = {"tile_cache": self.tile_cache, "changed": self.changed}
                self.result = self.pipeline.bake(g.vertices, g.triangles, self.settings,
                                                 self.progress, walkable=g.walkable,
                                                 debug=debug, **extra)
            if self.settings.climbing_enabled and (g.climb or self.settings.auto_ledges):
                from .bake_nav import climb_all

                self.progress("climbing", 1.0)
                self.result, self.results, self.climb_warnings = climb_all(
                    self.result, self.results, g, self.settings)
            self.debug = debug
            if self.compiling:
                kernel_cache.mark_warm()
        except Exception as exc:  # reported to the user by the operator
            if self.pipeline is not None and isinstance(exc, self.pipeline.BakeCancelled):
                self.cancelled = True
            else:
                self.error = exc
                self.error_traceback = traceback.format_exc()
        finally:
            self.seconds = time.perf_counter() - t0
            self._done.set()

    def start(self):
        self.thread = threading.Thread(target=self.run, name="navjump-bake", daemon=True)
        self.thread.start()

    def cancel(self):
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    @property
    def done(self) -> bool:
        return self._done.is_set()


def running() -> bool:
    """A bake (the Bake button's or Auto re-bake's) runs in a worker thread."""
    return _active_job is not None and not _active_job.done


def start_beside_ui(job: BakeJob) -> None:
    """Run ``job`` in its worker thread; the Bake button waits for it (``poll``)."""
    global _active_job
    _active_job = job
    job.start()


def prepare(context, report, gather=None, nav=None):
    """Validated settings and gathered triangles, or None after reporting why.

    ``report(type, message)`` is an operator's ``report``; ``gather(context)`` replaces
    :func:`.gather.gather_from_context` (Auto re-bake's per-object cache) and
    ``nav(context, settings, gathered)`` :func:`.bake_nav.prepare_nav`."""
    from .. import core

    settings = props.to_bake_settings(context.scene.navjump)
    try:
        settings.validate()
    except core.SettingsError as exc:
        report({'ERROR'}, summary.settings_error_message(exc, props.setting_label))
        return None
    try:
        gathered = (gather or gather_mod.gather_from_context)(context)
    except ValueError as exc:
        report({'ERROR'}, str(exc))
        return None
    if gathered.triangle_count == 0:
        report({'ERROR'}, "Nothing to bake: no visible mesh, curve or text objects "
                          "(check the source and the objects' NavJump role)")
        return None
    from .bake_nav import prepare_nav

    try:
        (nav or prepare_nav)(context, settings, gathered)
    except core.SettingsError as exc:
        report({'ERROR'}, summary.settings_error_message(exc, props.setting_label))
        return None
    except ValueError as exc:
        report({'ERROR'}, str(exc))
        return None
    return settings, gathered


def finish(scene, job: BakeJob, report, compress: bool | None = None) -> set[str]:
    """Report the job's outcome; store the result only when it succeeded (the previous
    result stays until the new one is completely built). ``compress``: see
    :func:`.storage.write_result` (Auto re-bake stores the blob uncompressed)."""
    from .. import core

    if job.cancelled:
        report({'WARNING'}, "NavJump bake cancelled; the previous result is kept")
        return {'CANCELLED'}
    if job.error is not None:
        if isinstance(job.error, core.SettingsError):
            report({'ERROR'},
                   summary.settings_error_message(job.error, props.setting_label))
        elif isinstance(job.error, ValueError):
            report({'ERROR'}, f"NavJump bake failed: {job.error}")
        else:
            log.error("NavJump bake failed:\n%s", job.error_traceback)
            report({'ERROR'}, f"NavJump bake failed ({type(job.error).__name__}): "
                              f"{job.error}; see the console for details")
        return {'CANCELLED'}
    if scene is None:
        report({'ERROR'}, "The scene was removed during the bake")
        return {'CANCELLED'}
    g = job.gathered
    navmesh = job.result
    assert navmesh is not None  # neither cancelled nor failed: the bake returned one
    warnings = summary.result_warnings(navmesh, job.settings) + job.climb_warnings
    gather_info = {"triangles": g.triangle_count, "obstacle_triangles": g.obstacle_count,
                   "objects": len(g.object_names), "seconds": g.seconds,
                   "bake_seconds": job.seconds}
    try:
        storage.write_result(scene, navmesh, gather_info, warnings, debug=job.debug,
                             agents=job.results, compress=compress)
    except Exception as exc:
        log.exception("Storing the NavJump result failed")
        report({'ERROR'}, f"Storing the NavJump result failed: {exc}")
        return {'CANCELLED'}
    for w in warnings:
        report({'WARNING'}, w)
    report({'INFO'}, f"NavJump: {navmesh.polygon_count} polygons, "
                     f"{navmesh.link_count} links in "
                     f"{g.seconds + job.seconds:.2f} s")
    return {'FINISHED'}


class NAVJUMP_OT_bake(Operator):
    """Bake the navigation mesh and jump links of the scene"""

    bl_idname = "navjump.bake"
    bl_label = "Bake NavJump"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        if running():
            cls.poll_message_set("A NavJump bake is already running")
            return False
        return context.scene is not None

    # ------------------------------------------------------------ shared steps
    def _prepare(self, context):
        return prepare(context, self.report)

    def _finish(self, context, scene, job: BakeJob):
        return finish(scene, job, self.report)

    # ------------------------------------------------------------ synchronous
    def execute(self, context):
        prepared = self._prepare(context)
        if prepared is None:
            return {'CANCELLED'}
        settings, gathered = prepared
        wm = context.window_manager
        area = context.area

        def show(stage, fraction):
            wm.progress_update(int(fraction * 1000))
            if area is not None:
                area.header_text_set(f"NavJump: {stage} ({fraction * 100:.0f}%)")

        job = BakeJob(_pipeline(), gathered, settings,
                      on_progress=None if bpy.app.background else show,
                      keep_debug=context.scene.navjump.keep_debug)
        wm.progress_begin(0, 1000)
        try:
            job.run()
        finally:
            wm.progress_end()
            if area is not None:
                area.header_text_set(None)
        return self._finish(context, context.scene, job)

    # ------------------------------------------------------------ modal + thread
    def invoke(self, context, event):
        global _active_job
        prefs = preferences(context)
        threaded = prefs.use_background_thread if prefs is not None else True
        if bpy.app.background or context.window is None or not threaded:
            return self.execute(context)
        prepared = self._prepare(context)
        if prepared is None:
            return {'CANCELLED'}
        settings, gathered = prepared
        self._scene_name = context.scene.name
        self._job = BakeJob(None, gathered, settings,
                            keep_debug=context.scene.navjump.keep_debug)
        _active_job = self._job
        self._job.start()
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.modal_handler_add(self)
        wm.progress_begin(0, 1000)
        self._show(context, "starting")
        return {'RUNNING_MODAL'}

    def _show(self, context, text=None):
        job = self._job
        if text is None:
            text = f"{job.stage} ({job.fraction * 100:.0f}%)"
        message = f"NavJump bake: {text}  (Esc to cancel)"
        context.window_manager.progress_update(int(job.fraction * 1000))
        if context.workspace is not None:
            context.workspace.status_text_set(message)
        if context.area is not None:
            context.area.header_text_set(message)

    def _cleanup(self, context):
        global _active_job
        wm = context.window_manager
        if getattr(self, "_timer", None) is not None:
            wm.event_timer_remove(self._timer)
            self._timer = None
        wm.progress_end()
        if context.workspace is not None:
            context.workspace.status_text_set(None)
        if context.area is not None:
            context.area.header_text_set(None)
        # A worker still running (cancel timed out) keeps blocking new bakes through
        # poll() until it ends: two bakes must not run numba kernels at once.
        if _active_job is self._job and self._job.done:
            _active_job = None

    def modal(self, context, event):
        job = self._job
        if event.type == 'ESC' and event.value == 'PRESS':
            job.cancel()
            self._show(context, "cancelling...")
            return {'RUNNING_MODAL'}
        if event.type == 'TIMER':
            if job.done:
                self._cleanup(context)
                # The scene is looked up again: undo or file changes may have replaced it.
                return self._finish(context, bpy.data.scenes.get(self._scene_name), job)
            self._show(context)
        return {'PASS_THROUGH'}

    def cancel(self, context):
        # Blender is closing the operator (file load, window closed): stop the worker.
        self._job.cancel()
        self._job.wait(timeout=30.0)
        self._cleanup(context)


@persistent
def _cancel_running_bake(*_args):
    # A file is being loaded: the running bake's scene is going away.
    if _active_job is not None:
        _active_job.cancel()


classes = (NAVJUMP_OT_bake,)


_register_classes, _unregister_classes = register_classes_factory(classes)


def register():
    _register_classes()
    bpy.app.handlers.load_pre.append(_cancel_running_bake)


def unregister():
    global _active_job
    if _cancel_running_bake in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.remove(_cancel_running_bake)
    if _active_job is not None:
        _active_job.cancel()
        _active_job = None
    _unregister_classes()
