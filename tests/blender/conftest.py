"""Blender tests: the package loaded as a real extension into the ``bpy`` module.

bpy can be imported once per process, and only in a Python it was built for; every test
module here starts with ``pytest.importorskip("bpy")`` so a machine without it skips them
with a reason instead of failing. The whole ``tests/`` folder can run in one process.
"""

import getpass
import hashlib
import importlib
import os
import pathlib
import sys
import tempfile
from types import SimpleNamespace

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO_LEVEL = ROOT / "assets" / "demo_level.blend"
REPO_MODULE = "navjump_tests"

# A private Blender user folder (preferences, presets, extension data, numba cache): tests
# never touch the developer's own. It is stable across runs so compiled kernels stay
# cached. Blender reads it when bpy is imported, so it must be set first.
# One folder per checkout: the extension is staged there as links to this checkout's
# source, and test subprocesses (bake.py, farm workers) load it from there, so two
# checkouts tested at once must not share it.
if "bpy" not in sys.modules:
    _checkout = hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]
    os.environ.setdefault(
        "BLENDER_USER_RESOURCES",
        str(pathlib.Path(tempfile.gettempdir())
            / f"navjump-blender-tests-{getpass.getuser()}-{_checkout}"))


@pytest.fixture(scope="session")
def bpy():
    return pytest.importorskip("bpy", reason="Blender's bpy module is not installed "
                                             "(pip install bpy==5.0.1 on Python 3.11)")


@pytest.fixture(scope="session")
def navjump(bpy):
    """Enable the source tree as the extension ``bl_ext.navjump_tests.blender_navjump``.

    Gives the extension's own modules (not the plain ``blender_navjump`` package: the
    extension imports its own copy under the ``bl_ext`` name).
    """
    from blender_navjump.blender import devload

    # The default repository folder is fixed (inside the private user folder above), so
    # numba's cache, keyed on source paths, stays valid from one run to the next.
    repo_dir = devload.default_repo_dir(REPO_MODULE)
    module = devload.enable_source_extension(repo_dir, repo_module=REPO_MODULE)

    def sub(name):
        return importlib.import_module(f"{module}.{name}")

    ns = SimpleNamespace(
        module=module, repo_dir=repo_dir, package=importlib.import_module(module), sub=sub,
        core=sub("core"), pipeline=sub("core.pipeline"), storage=sub("blender.storage"),
        gather=sub("blender.gather"), props=sub("blender.props"),
        ops_bake=sub("blender.ops_bake"), ops_presets=sub("blender.ops_presets"),
        devload=devload)
    yield ns
    devload.disable_source_extension(REPO_MODULE)


@pytest.fixture
def scene(bpy, navjump):
    """An empty file with the extension enabled; returns its scene."""
    bpy.ops.wm.read_homefile(use_empty=True)
    return bpy.context.scene


@pytest.fixture
def demo_scene(bpy, navjump):
    if not DEMO_LEVEL.is_file():
        pytest.fail(f"{DEMO_LEVEL} is missing: run python scripts/build_demo_level.py")
    bpy.ops.wm.open_mainfile(filepath=str(DEMO_LEVEL))
    return bpy.context.scene
