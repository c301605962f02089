"""The kernels are loaded in the background after the extension is enabled, so the first
bake starts at once: real bpy, the source tree enabled as an extension in a fresh process
with a fresh Blender user folder and a private kernel root (a copy of this session's
kernels).

bpy runs in background mode here, where the extension never starts the thread by itself
(the batch and the tests ask for nothing they did not request); the test starts it as the
one-shot timer does in an interactive Blender and checks, from numba's own statistics,
that a bake afterwards neither compiled nor loaded a kernel.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from blender_navjump.core import kernel_cache

pytest.importorskip("bpy", reason="Blender's bpy module is not installed")

ROOT = pathlib.Path(__file__).resolve().parents[2]

CHILD = r"""
import importlib, json, sys, time
root, mode = sys.argv[1:3]
sys.path.insert(0, root)
import bpy
from blender_navjump.blender import devload
module = devload.attach_extension()
preload = importlib.import_module(module + ".blender.kernel_preload")
kc = importlib.import_module(module + ".core.kernel_cache")
core = importlib.import_module(module + ".core")
scene = importlib.import_module(module + ".core.warmup_scene")
timer = bpy.app.timers.is_registered(preload._on_timer)
result, seconds = None, 0.0
if mode == "preload":
    t = time.perf_counter()
    thread = preload.start()
    assert thread.daemon and thread.name == preload.THREAD_NAME
    thread.join(600)
    seconds = time.perf_counter() - t
    result = preload._state["result"]
before = kc.kernel_stats()
v, t = scene.warmup_scene()
nm = core.bake(v, t, core.BakeSettings(multi_stance=True, links_enabled=True, cell_size=0.25,
                                       cell_height=0.1).validate())
after = kc.kernel_stats()
print("RESULT " + json.dumps({"timer": timer, "status": preload.status(), "result": result,
      "seconds": seconds, "before": [before["hits"], before["misses"]],
      "after": [after["hits"], after["misses"]], "polygons": nm.polygon_count,
      "links": nm.link_count}))
"""


def _run(tmp_path, mode, env):
    env = dict(env, BLENDER_USER_RESOURCES=str(tmp_path / f"user-{mode}"))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), mode], env=env,
                          capture_output=True, text=True, timeout=1200)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-2000:] + proc.stderr[-3000:]
    return json.loads(lines[-1][7:])


def test_kernels_load_in_the_background_and_the_bake_then_loads_nothing(tmp_path):
    session = pathlib.Path(kernel_cache.cache_dir())
    folder = tmp_path / "root" / session.name
    if session.is_dir():
        shutil.copytree(session, folder, ignore=shutil.ignore_patterns("*.tmp.*"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env[kernel_cache.ROOT_ENV] = str(tmp_path / "root")
    plain = _run(tmp_path, "plain", env)  # fills the private root if the session had not
    assert plain["timer"] is False and plain["status"] == "idle"
    assert plain["polygons"] > 0 and plain["links"] > 0
    run = _run(tmp_path, "preload", env)
    assert run["timer"] is False  # background mode: nothing started by itself
    assert run["status"] == "ready", run
    assert run["result"]["loaded"] > 0
    assert run["before"][1] == 0  # loaded, never compiled
    assert run["after"] == run["before"], run  # the bake found every kernel loaded
    assert (run["polygons"], run["links"]) == (plain["polygons"], plain["links"])
