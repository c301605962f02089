"""Kernels ready before the first bake: right after the extension is enabled in an
interactive Blender, a background thread loads the cached kernels (or, on a machine with
none, compiles them), so the first Bake starts at once.

Enabling stays as fast as before: ``register`` only adds a one-shot timer; the timer fires
once Blender's event loop runs (after start-up) and starts a daemon thread. The thread
holds no Blender data and never touches bpy. Not in background mode (``blender -b``, the
bpy module, the batch): there the bake itself loads what it needs and nothing runs that
the command did not ask for.
"""

from __future__ import annotations

import threading
import time

import bpy

# Seconds after the event loop starts: Blender's own start-up (the splash, the file the
# user opens) comes first.
START_DELAY = 1.0
THREAD_NAME = "navjump-kernels"

_state: dict = {"thread": None, "stop": None, "status": "idle", "result": None}


def status() -> str:
    """'idle', 'loading', 'compiling', 'ready' or 'failed: ...' (shown in the preferences)."""
    return _state["status"]


def _work(stop: threading.Event):
    t0 = time.perf_counter()
    try:
        from ..core import kernel_cache

        if kernel_cache.compile_notice() is None:  # warm, or kernels shipped for this CPU
            _state["status"] = "loading"
            result = kernel_cache.preload(stop.is_set)
        else:
            _state["status"] = "compiling"
            result = {"compiled_in_s": kernel_cache.warm_up()}
        result["seconds"] = time.perf_counter() - t0
        _state["result"] = result
        _state["status"] = "ready"
    except Exception as exc:  # noqa: BLE001 - the first bake then loads or compiles itself
        _state["status"] = f"failed: {type(exc).__name__}: {exc}"


def start() -> threading.Thread:
    """Start loading (or compiling) the kernels in a daemon thread, once per session."""
    thread = _state["thread"]
    if thread is None:
        stop = threading.Event()
        thread = threading.Thread(target=_work, args=(stop,), name=THREAD_NAME, daemon=True)
        _state.update(thread=thread, stop=stop, status="loading")
        thread.start()
    return thread


def _on_timer():
    start()
    return None  # one shot


def register():
    if not bpy.app.background and _state["thread"] is None:
        bpy.app.timers.register(_on_timer, first_interval=START_DELAY)


def unregister():
    if bpy.app.timers.is_registered(_on_timer):
        bpy.app.timers.unregister(_on_timer)
    if _state["stop"] is not None:
        _state["stop"].set()  # a load in progress ends at the next kernel
