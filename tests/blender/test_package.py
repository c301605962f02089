"""The installable package: scripts/build_extension.py builds the Linux zip (cp311 numba +
llvmlite wheels) with Blender's own ``blender_ext.py``; the zip validates, installs into the
bpy module through a temporary extension repository, and bakes the demo level with the
numba it bundles.

Only linux-x64 / Python 3.11 is built here (about 64 MB; the wheels are downloaded once into
build/wheels_cache, or $NAVJUMP_WHEELS_CACHE). The zip ships the kernels compiled for the
portable CPU target; the build keeps them in a stable folder, so only the first run of this
module (or the first after a core change) compiles them (a few minutes on 2 cores), later
runs load them (seconds). The install runs in a fresh process whose import path has no numba
of its own and whose kernel cache is empty, so the bake can only use the wheels Blender
unpacked from the zip and the kernels shipped in it: numba's own statistics must show that
nothing was compiled.
"""

import getpass
import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from script_modules import load_script

from blender_navjump.export import navjump_json

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "demo_level.blend"
# Stable between runs (the kernels and wheels stay), one per checkout (two checkouts on one
# account must not rebuild each other's zip while a test installs it).
WORK = Path(tempfile.gettempdir()) / (
    f"navjump-package-test-{getpass.getuser()}-"
    f"{hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]}")
REPO_MODULE = "navjump_pkg"


build_extension = load_script("build_extension")


@pytest.fixture(scope="module")
def manifest_id():
    with open(ROOT / "blender_manifest.toml", "rb") as fh:
        data = tomllib.load(fh)
    return data["id"], data["version"]


@pytest.fixture(scope="module")
def blender_ext():
    pytest.importorskip("bpy", reason="Blender's bpy module is not installed")
    try:
        return build_extension.find_blender_ext()
    except build_extension.BuildError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def linux_zip(blender_ext):
    try:
        zips = build_extension.build(
            platforms=["linux-x64"], pythons=["3.11"], out_dir=WORK / "dist",
            cache=build_extension.DEFAULT_WHEELS_CACHE, stage_root=WORK / "stage",
            blender_ext=blender_ext, log=lambda *_: None,
            kernels_cache=WORK / "kernels_cache")
    except build_extension.BuildError as exc:
        if "pip download failed" in str(exc):
            pytest.skip(f"numba/llvmlite wheels could not be downloaded: {exc}")
        raise
    assert len(zips) == 1
    return zips[0]


# ---------------------------------------------------------------- no downloads needed
def test_release_manifest_adds_platforms_and_wheels(tmp_path):
    data = build_extension.release_manifest(
        ["linux-x64", "windows-x64"], ["numba-1-cp311-cp311-win_amd64.whl"])
    text = build_extension.to_toml(data)
    assert tomllib.loads(text) == data
    with open(ROOT / "blender_manifest.toml", "rb") as fh:
        source = tomllib.load(fh)
    assert {k: v for k, v in data.items() if k not in ("platforms", "wheels")} == source
    assert data["platforms"] == ["linux-x64", "windows-x64"]
    assert data["wheels"] == ["./wheels/numba-1-cp311-cp311-win_amd64.whl"]

    already = tmp_path / "blender_manifest.toml"
    already.write_text((ROOT / "blender_manifest.toml").read_text().replace(
        "[permissions]", 'wheels = ["./wheels/x.whl"]\n\n[permissions]'))
    with pytest.raises(build_extension.BuildError, match="wheels"):
        build_extension.release_manifest(["linux-x64"], ["y.whl"], already)


def test_wheels_are_picked_per_platform_and_python(tmp_path):
    names = [
        "numba-0.68.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "numba-0.68.1-cp313-cp313-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
        "numba-0.68.1-cp311-cp311-win_amd64.whl",
        "numba-0.68.1-cp311-cp311-macosx_12_0_arm64.whl",
        "numba-0.68.1-cp311-cp311-macosx_12_0_x86_64.whl",
        "numba-0.68.0-cp311-cp311-win_amd64.whl",
    ]
    for name in names:
        (tmp_path / name).write_bytes(b"")

    def pick(platform, python, version="0.68.1"):
        found = build_extension.find_cached_wheel(tmp_path, "numba", version, platform, python)
        return found.name if found else None

    assert pick("linux-x64", "3.11") == names[0]
    assert pick("linux-x64", "3.13") == names[1]
    assert pick("windows-x64", "3.11") == names[2]
    assert pick("macos-arm64", "3.11") == names[3]
    assert pick("windows-x64", "3.13") is None
    assert pick("windows-x64", "3.11", "0.68.0") == names[5]
    versions = build_extension.pinned_versions()
    assert set(versions) == {"numba", "llvmlite"} and all(versions.values())


def test_build_rejects_unknown_platforms(blender_ext):
    with pytest.raises(build_extension.BuildError, match="unknown platform 'amiga-68k'"):
        build_extension.build(platforms=["amiga-68k"], blender_ext=blender_ext)


# ---------------------------------------------------------------- the Linux zip
def test_linux_zip_contents_and_validation(linux_zip, blender_ext, manifest_id):
    ext_id, version = manifest_id
    assert linux_zip.name == f"{ext_id}-{version}-linux_x64.zip"
    pins = build_extension.pinned_versions()
    with zipfile.ZipFile(linux_zip) as zf:
        names = set(zf.namelist())
        manifest = tomllib.loads(zf.read("blender_manifest.toml").decode())
    assert manifest["id"] == ext_id and manifest["platforms"] == ["linux-x64"]
    wheels = sorted(Path(w).name for w in manifest["wheels"])
    assert len(wheels) == 2
    for name in ("numba", "llvmlite"):
        (wheel,) = [w for w in wheels if w.startswith(f"{name}-{pins[name]}-cp311-cp311-")]
        assert "manylinux" in wheel and wheel.endswith("x86_64.whl")
        assert f"wheels/{wheel}" in names
    for path in ("__init__.py", "blender/headless.py", "blender/batch.py", "batch_cli.py",
                 "blender/cli_command.py",
                 "core/pipeline.py", "export/detour.py", "presets/navjump/agent/Human.py"):
        assert path in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    kernels = [n for n in names if n.endswith((".nbi", ".nbc"))]
    assert kernels and all(n.startswith("kernels/linux-x64/core/") for n in kernels)
    shipped = json.loads(zf_read(linux_zip, "kernels/linux-x64/kernels.json"))
    assert shipped["magic"][1] == "generic" and shipped["python"] == "3.11"
    assert shipped["numba"] == pins["numba"] and shipped["llvmlite"] == pins["llvmlite"]
    from blender_navjump.core import kernel_cache

    assert shipped["fingerprint"] == kernel_cache.source_fingerprint()
    # one index per kernel of the bake and the path queries
    assert any(n.startswith("kernels/linux-x64/core/query/batch_kernel.") for n in kernels)
    assert any(n.startswith("kernels/linux-x64/core/rasterize.") for n in kernels)
    proc = subprocess.run([sys.executable, str(blender_ext), "validate", str(linux_zip)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


INSTALL_AND_BAKE = r"""
import importlib, importlib.util, json, os, sys
zip_path, repo_dir, level, out_dir, repo_module = sys.argv[1:6]
numba_before = importlib.util.find_spec("numba") is not None
import bpy
prefs = bpy.context.preferences
prefs.extensions.repos.new(name=repo_module, module=repo_module, custom_directory=repo_dir,
                           source='USER')
bpy.ops.extensions.repo_refresh_all()
installed = bpy.ops.extensions.package_install_files(
    filepath=zip_path, repo=repo_module, enable_on_install=True)
manifest_id = sys.argv[6]
module = f"bl_ext.{repo_module}.{manifest_id}"
enabled = module in prefs.addons
cli = importlib.import_module(module + ".blender.cli_command")
report = os.path.join(out_dir, "report.json")
import time
t = time.perf_counter()
code = cli.execute(["bake", level, "--out", out_dir, "--format", "json,detour",
                    "--set", "links_enabled=true", "--report", report])
bake_seconds = time.perf_counter() - t
kernel_cache = importlib.import_module(module + ".core.kernel_cache")
baked = kernel_cache.kernel_stats()
json_io = importlib.import_module(module + ".export.navjump_json")
query = importlib.import_module(module + ".core.query")
nm = json_io.read_json(os.path.join(out_dir, "level.navjump.json"))
pts = query.random_navmesh_points(nm, 2, rng=1)
t = time.perf_counter()
batch = query.find_paths(nm, pts[:1], pts[1:], on_error="status")
path_seconds = time.perf_counter() - t
after_path = kernel_cache.kernel_stats()
import numba, llvmlite
print("NAVJUMP_RESULT " + json.dumps({
    "numba_before": numba_before, "installed": sorted(installed), "enabled": enabled,
    "code": code, "numba": numba.__file__, "numba_version": numba.__version__,
    "llvmlite": llvmlite.__file__, "extension": sys.modules[module].__file__,
    "extensions_dir": bpy.utils.user_resource('EXTENSIONS'),
    "kernel_dir": kernel_cache.active_dir(), "bake_misses": baked["misses"],
    "bake_hits": baked["hits"], "path_misses": after_path["misses"],
    "path_hits": after_path["hits"] - baked["hits"], "bake_seconds": bake_seconds,
    "path_seconds": path_seconds, "path_status": int(batch.status[0]),
    "compiled": sorted(k for k, (h, m) in after_path["kernels"].items() if m),
}))
"""


def zf_read(path, name) -> bytes:
    with zipfile.ZipFile(path) as zf:
        return zf.read(name)


def _site_without_numba(dest: Path) -> Path:
    """A folder linking this interpreter's site-packages entries except numba, llvmlite
    and this project, for ``python -S`` with PYTHONPATH (bpy and numpy stay importable)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for site_dir in site.getsitepackages():
        for entry in Path(site_dir).iterdir():
            low = entry.name.lower()
            if low.startswith(("numba", "llvmlite", "blender_navjump", "__editable__")) or \
                    low.endswith(".pth") or (dest / entry.name).exists():
                continue
            os.symlink(entry, dest / entry.name, target_is_directory=entry.is_dir())
    return dest


def test_installed_zip_bakes_with_the_bundled_numba(linux_zip, manifest_id, tmp_path):
    if not DEMO.is_file():
        pytest.fail(f"{DEMO} is missing: run python scripts/build_demo_level.py")
    ext_id, _ = manifest_id
    user_dir = WORK / "user"
    repo_dir = WORK / "repo"
    extensions_dir = user_dir / "extensions"
    # A fresh install every run; the user folder (numba's cache) stays.
    for stale in (repo_dir, extensions_dir / ".local"):
        if stale.exists():
            shutil.rmtree(stale)
    repo_dir.mkdir(parents=True)
    try:
        pythonpath = _site_without_numba(WORK / "site")
    except OSError as exc:
        pytest.skip(f"cannot build a numba-free import path here: {exc}")
    level = tmp_path / "level.blend"
    shutil.copy2(DEMO, level)
    out = tmp_path / "out"
    out.mkdir()
    # A new machine: no kernel cache at all (only the zip's kernels can serve).
    kernel_root = tmp_path / "kernel_cache"
    # (and the zip's kernels unpacked whatever the caller's NAVJUMP_INSTALL_SHIPPED)
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "PYTHONHOME", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES",
                        "NAVJUMP_INSTALL_SHIPPED")}
    env.update(PYTHONPATH=str(pythonpath), BLENDER_USER_RESOURCES=str(user_dir),
               NAVJUMP_KERNEL_CACHE=str(kernel_root))
    proc = subprocess.run(
        [sys.executable, "-S", "-c", INSTALL_AND_BAKE, str(linux_zip), str(repo_dir),
         str(level), str(out), REPO_MODULE, ext_id],
        capture_output=True, text=True, timeout=900, env=env)
    marked = [line for line in proc.stdout.splitlines() if line.startswith("NAVJUMP_RESULT ")]
    assert proc.returncode == 0 and marked, proc.stdout + proc.stderr[-3000:]
    result = json.loads(marked[-1].split(" ", 1)[1])

    assert result["numba_before"] is False  # nothing but the zip can provide numba
    assert result["installed"] == ["FINISHED"] and result["enabled"]
    assert Path(result["extension"]).resolve().is_relative_to(repo_dir.resolve())
    site_packages = (extensions_dir / ".local" / "lib" / f"python{sys.version_info[0]}."
                     f"{sys.version_info[1]}" / "site-packages").resolve()
    assert Path(result["extensions_dir"]).resolve() == extensions_dir.resolve()
    assert Path(result["numba"]).resolve().is_relative_to(site_packages)
    assert Path(result["llvmlite"]).resolve().is_relative_to(site_packages)
    assert result["numba_version"] == build_extension.pinned_versions()["numba"]

    assert result["code"] == 0, proc.stdout
    report = json.loads((out / "report.json").read_text())
    entry = report["files"][0]
    assert entry["ok"] and report["versions"]["numba"] == result["numba_version"]
    nm = navjump_json.read_json(out / "level.navjump.json")
    assert nm.polygon_count == entry["stats"]["polygons"] > 0
    assert (out / "level.navjump.detour.bin").is_file()
    assert nm.link_count > 0  # the jump-link kernels ran too

    # Nothing was compiled: every kernel the bake and the path query ran came from the
    # zip (numba's dispatcher statistics: a miss is a compile).
    assert Path(result["kernel_dir"]).parent == kernel_root
    assert result["bake_misses"] == 0 and result["bake_hits"] > 20, result["compiled"]
    assert result["path_misses"] == 0 and result["path_hits"] > 0, result
    assert result["path_status"] >= 0
