#!/usr/bin/env python
"""How long the first bake and the first path query take in a new process: JSON out.

    python scripts/bench_cold_start.py [--zip dist/blender_navjump-0.1.0-linux_x64.zip]
        [--obj ../shared/data/recast/dungeon.obj] [--only checkout_empty,zip_new_machine,...]
        [--only clean_clone]
        [--out cold_start.json]

Scenarios, each a new Python process with bpy and a fresh Blender user folder:

- ``checkout_empty``: this checkout loaded as an extension (as ``scripts/bake.py`` does) with
  an empty kernel cache: every kernel is compiled;
- ``checkout_warm``: the same again, the cache now filled;
- ``zip_new_machine``: the Linux zip (built with its shipped kernels) installed into the
  fresh user folder, an empty kernel cache, numba only from the zip's wheels;
- ``zip_warm``: that installation started again (its preferences saved, as Blender does on
  quit: the extension's wheels stay unpacked).

- ``clean_clone`` (only when asked for): ``git clone`` of this checkout's HEAD, then the
  README's demo command, ``bash scripts/run_demo.sh``, with an empty kernel cache and a fresh
  Blender user folder; the wheels it installs are downloaded first into a folder that pip
  then installs from without an index (``download_s``, apart: pip's download cache), and
  ``demo_s`` is the command's wall time (``demo_cpu_s``: the CPU of it and its children).

In each other: ``start_s`` (import bpy, install/enable the extension), ``demo_bake_s`` (first bake
of assets/demo_level.blend with jump links, through the extension's command line),
``demo_bake_cpu_s`` (the CPU seconds of the process during it: on a shared machine the wall
time follows the load), ``demo_phases_s`` (its open, gather, bake and write phases),
``first_path_s`` (a path query on it right after), ``obj_bake_s`` (the OBJ baked next in the
same process, core.bake with links), and numba's own counts of kernels compiled
(``compiled``) and loaded from the cache (``loaded``). Without ``--zip`` the zip scenarios are
built first with scripts/build_extension.py (Linux, Python 3.11).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "assets" / "demo_level.blend"
DEFAULT_OBJ = ROOT.parent / "shared" / "data" / "recast" / "dungeon.obj"
SCENARIOS = ("checkout_empty", "checkout_warm", "zip_new_machine", "zip_warm")
EXTRA_SCENARIOS = ("clean_clone",)

CHILD = r"""
import importlib, json, os, sys, time
args = json.loads(sys.argv[1])
t0 = time.perf_counter()
import bpy
if args["zip"]:
    prefs = bpy.context.preferences
    repo = args["repo_module"]
    if prefs.extensions.repos.get(repo) is None:
        prefs.extensions.repos.new(name=repo, module=repo, custom_directory=args["repo_dir"],
                                   source='USER')
        bpy.ops.extensions.repo_refresh_all()
    module = f"bl_ext.{repo}.blender_navjump"
    if module not in prefs.addons:
        if os.listdir(args["repo_dir"]):
            bpy.ops.preferences.addon_enable(module=module)
        else:
            bpy.ops.extensions.package_install_files(filepath=args["zip"], repo=repo,
                                                     enable_on_install=True)
    # Blender keeps the repository and the enabled extension in the saved preferences (it
    # saves them on quit); without them the next start would unpack the wheels again.
    bpy.ops.wm.save_userpref()
else:
    sys.path.insert(0, args["root"])
    from blender_navjump.blender import devload
    module = devload.attach_extension()
start_s = time.perf_counter() - t0
kc = importlib.import_module(module + ".core.kernel_cache")
cli = importlib.import_module(module + ".blender.cli_command")
t = time.perf_counter()
cpu = time.process_time()
report = os.path.join(args["out"], "report.json")
code = cli.execute(["bake", args["demo"], "--out", args["out"], "--format", "json",
                    "--set", "links_enabled=true", "--report", report])
demo_bake_s = time.perf_counter() - t
demo_bake_cpu_s = time.process_time() - cpu
assert code == 0, code
baked = kc.kernel_stats()
json_io = importlib.import_module(module + ".export.navjump_json")
query = importlib.import_module(module + ".core.query")
nm = json_io.read_json(os.path.join(args["out"], "level.navjump.json"))
pts = query.random_navmesh_points(nm, 2, rng=1)
t = time.perf_counter()
query.find_paths(nm, pts[:1], pts[1:], on_error="status")
first_path_s = time.perf_counter() - t
obj_bake_s = None
if args["obj"]:
    core = importlib.import_module(module + ".core")
    objio = importlib.import_module(module + ".core.objio")
    v, tris = objio.read_obj(args["obj"], up="y")
    t = time.perf_counter()
    core.bake(v, tris, core.BakeSettings(links_enabled=True))
    obj_bake_s = time.perf_counter() - t
stats = kc.kernel_stats()
import numba
print("BENCH " + json.dumps({
    "start_s": start_s, "demo_bake_s": demo_bake_s, "demo_bake_cpu_s": demo_bake_cpu_s,
    "first_path_s": first_path_s,
    "obj_bake_s": obj_bake_s, "compiled": stats["misses"], "loaded": stats["hits"],
    "compiled_by_demo_bake": baked["misses"], "kernel_dir": kc.active_dir(),
    "demo_phases_s": json.load(open(report))["files"][0]["phases_s"],
    "numba": numba.__file__, "module": module}))
"""


def site_without_numba(dest: Path) -> Path:
    """Links to this interpreter's site-packages entries except numba, llvmlite and this
    project (for ``python -S`` with PYTHONPATH: bpy and numpy stay, numba comes from the zip)."""
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


def build_zip(work: Path) -> Path:
    sys.path.insert(0, str(ROOT / "scripts"))
    import build_extension

    zips = build_extension.build(platforms=["linux-x64"], pythons=["3.11"],
                                 out_dir=work / "dist", stage_root=work / "stage",
                                 log=lambda msg: print(msg, file=sys.stderr))
    return zips[0]


def run(scenario: str, work: Path, zip_path: Path | None, obj: Path | None) -> dict:
    is_zip = scenario.startswith("zip")
    base = work / ("zip" if is_zip else "checkout")
    if scenario.endswith(("empty", "new_machine")) and base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True, exist_ok=True)
    (base / "repo").mkdir(exist_ok=True)
    level = base / "level.blend"
    shutil.copy2(DEMO, level)
    out = base / "out"
    out.mkdir(exist_ok=True)
    # A user's Python writes bytecode (PYTHONDONTWRITEBYTECODE would make every warm run
    # compile NavJump's sources again).
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "PYTHONHOME", "NUMBA_CPU_NAME",
                        "NUMBA_CPU_FEATURES", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    env.update(BLENDER_USER_RESOURCES=str(base / "user"),
               NAVJUMP_KERNEL_CACHE=str(base / "kernels"))
    cmd = [sys.executable]
    if is_zip:
        env["PYTHONPATH"] = str(site_without_numba(work / "site"))
        cmd.append("-S")
    args = {"zip": str(zip_path) if is_zip else None, "repo_dir": str(base / "repo"),
            "repo_module": "navjump_bench", "root": str(ROOT), "demo": str(level),
            "out": str(out), "obj": str(obj) if obj else None}
    proc = subprocess.run([*cmd, "-c", CHILD, json.dumps(args)], env=env,
                          capture_output=True, text=True, timeout=3600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{scenario} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    result = json.loads(lines[-1][6:])
    result["first_bake_total_s"] = result["start_s"] + result["demo_bake_s"]
    return result


def demo_requirements() -> list[str]:
    """The pins the demo installs (scripts/setup_env.sh --demo): the bake's and bpy's."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"],
            *[r for r in project["optional-dependencies"]["test"] if r.startswith("bpy==")]]


def run_clean_clone(work: Path) -> dict:
    import resource
    import time

    clone, wheels = work / "clone", work / "wheels"
    for folder in (clone, wheels, work / "clone_kernels", work / "clone_user"):
        shutil.rmtree(folder, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "-d", str(wheels),
                    *demo_requirements()], check=True)
    download_s = time.perf_counter() - t
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "PYTHONHOME", "PYTHONPATH", "VIRTUAL_ENV",
                        "PYTHONDONTWRITEBYTECODE", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    env.update(NAVJUMP_KERNEL_CACHE=str(work / "clone_kernels"),
               BLENDER_USER_RESOURCES=str(work / "clone_user"), PIP_NO_INDEX="1",
               PIP_FIND_LINKS=str(wheels))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(["bash", "scripts/run_demo.sh", str(work / "clone_out")], cwd=clone,
                          env=env, capture_output=True, text=True, timeout=3600)
    demo_s = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"clean_clone failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return {"download_s": download_s, "demo_s": demo_s,
            "demo_cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "waited_for_background_compile": "waiting for the NavJump kernels" in proc.stderr,
            "summary": [ln for ln in proc.stdout.splitlines() if ln.strip()][-8:]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--zip", type=Path, default=None,
                        help="the Linux extension zip (default: build it)")
    parser.add_argument("--obj", type=Path, default=DEFAULT_OBJ,
                        help="an OBJ (Y up) baked after the demo level (default: dungeon.obj)")
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help="comma-separated scenarios from "
                             f"{', '.join(SCENARIOS + EXTRA_SCENARIOS)} "
                             f"(default: all but {', '.join(EXTRA_SCENARIOS)})")
    parser.add_argument("--work", type=Path, default=None,
                        help="scratch folder (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    scenarios = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in scenarios if s not in SCENARIOS + EXTRA_SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}")
    obj = args.obj if args.obj and args.obj.is_file() else None
    work = args.work or Path(tempfile.mkdtemp(prefix="navjump-cold-"))
    zip_path = args.zip
    if zip_path is None and any(s.startswith("zip") for s in scenarios):
        zip_path = build_zip(work / "build")
    report = {"demo": str(DEMO), "obj": str(obj) if obj else None,
              "zip": str(zip_path) if zip_path else None, "scenarios": {}}
    for scenario in scenarios:
        print(f"running {scenario}", file=sys.stderr, flush=True)
        report["scenarios"][scenario] = (run_clean_clone(work) if scenario == "clean_clone"
                                         else run(scenario, work, zip_path, obj))
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
