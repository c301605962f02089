#!/usr/bin/env python
"""Build the installable NavJump extension: one zip per platform with numba bundled.

    python scripts/build_extension.py [--platforms linux-x64,windows-x64,macos-arm64]
        [--python 3.11,3.13] [--out dist] [--wheels-cache build/wheels_cache]
        [--stage build/extension] [--blender-ext PATH] [--no-kernels]
        [--kernels-cache build/kernels_cache]
    python scripts/build_extension.py --checkout-kernels [--kernels-cache ...]

Steps:

1. download the numba and llvmlite wheels (versions pinned in pyproject.toml) for each
   platform and Python version with ``pip download --only-binary=:all: --no-deps``, into a
   cache folder that later runs reuse (numpy is not bundled: Blender ships it);
2. stage ``<stage>/<id>/``: a copy of the ``blender_navjump`` package, the wheels in
   ``wheels/``, and ``blender_manifest.toml`` generated from the top-level manifest plus
   ``platforms`` and ``wheels``;
3. compile every numba kernel for a portable CPU target (``NUMBA_CPU_NAME=generic``) in a
   fresh process and ship them as ``kernels/<platform>/`` (this machine's platform and
   Python only, e.g. linux-x64 / 3.11; see ``core/kernel_cache.py``): a new machine with the
   same numba, llvmlite and Python loads them instead of compiling. Kept in
   ``--kernels-cache`` between builds, so an unchanged core is not compiled again;
4. run Blender's own extension tool, ``blender_ext.py`` from the installed ``bpy`` module
   (``bpy/<ver>/scripts/addons_core/bl_pkg/cli/``), with this Python: ``validate`` the
   staged folder, then ``build --split-platforms`` into ``--out``:
   ``<id>-<version>-linux_x64.zip`` and so on, each holding only its platform's wheels.

``--checkout-kernels`` does step 3 alone, into this checkout's
``blender_navjump/kernels/linux-x64.tar.xz`` (xz, about 4 MB) and ``linux-x64.json`` (its
manifest). Committed with the sources they were compiled from, they spare a clean clone (the
README's demo, the tests) the first compile; once a core source changes they no longer match
its fingerprint and are ignored (everything compiles as without them), never used wrongly,
and ``tests/core/test_kernel_pack.py`` fails until the pack is built again.

Blender 4.2-5.0 run Python 3.11 and 5.1+ Python 3.13: with both wheel sets in a zip,
Blender installs the ones matching its own Python. Defaults: all three platforms, both
Pythons. ``--out`` defaults to dist/ (git-ignored), the cache to ``$NAVJUMP_WHEELS_CACHE``
or build/wheels_cache (git-ignored).
Exit code 0 on success, 1 when a step fails (the message says which).
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIR = ROOT / "blender_navjump"
MANIFEST = ROOT / "blender_manifest.toml"
PYPROJECT = ROOT / "pyproject.toml"

# Blender platform -> the pip platform tag to download for, and a regex its wheel names
# match. pip also accepts older tags (manylinux_2_27, macosx_12_0) for these.
PLATFORMS = {
    "linux-x64": ("manylinux_2_28_x86_64", r"manylinux.*_x86_64"),
    "windows-x64": ("win_amd64", r"win_amd64"),
    "macos-arm64": ("macosx_14_0_arm64", r"macosx_\d+_\d+_arm64"),
}
PYTHONS = ("3.11", "3.13")
BUNDLED = ("numba", "llvmlite")
STAGE_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
# Downloaded wheels are kept here between runs ($NAVJUMP_WHEELS_CACHE overrides, e.g. to
# share one cache between clones).
DEFAULT_WHEELS_CACHE = Path(os.environ.get("NAVJUMP_WHEELS_CACHE")
                            or ROOT / "build" / "wheels_cache")
# Kernels compiled for the portable target, kept between builds.
DEFAULT_KERNELS_CACHE = ROOT / "build" / "kernels_cache"


class BuildError(Exception):
    pass


# ---------------------------------------------------------------- inputs
def pinned_versions(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """``{"numba": "0.68.1", "llvmlite": "0.50.0"}`` from the ``==`` pins in pyproject."""
    with open(pyproject, "rb") as fh:
        deps = tomllib.load(fh)["project"]["dependencies"]
    pins = {}
    for dep in deps:
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s;]+)\s*", dep)
        if m:
            pins[m.group(1).lower()] = m.group(2)
    missing = [name for name in BUNDLED if name not in pins]
    if missing:
        raise BuildError(f"{pyproject}: no '==' pin for {', '.join(missing)}")
    return {name: pins[name] for name in BUNDLED}


def find_blender_ext() -> Path:
    """``blender_ext.py`` inside the installed bpy module (found without importing bpy)."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.origin:
        raise BuildError("the bpy module is not installed (pip install bpy==5.0.1), so "
                         "Blender's extension tool cannot be found; pass --blender-ext")
    bpy_dir = Path(spec.origin).parent
    found = sorted(glob.glob(str(bpy_dir / "*" / "scripts" / "addons_core" / "bl_pkg" / "cli"
                                 / "blender_ext.py")))
    if not found:
        raise BuildError(f"blender_ext.py not found under {bpy_dir}; pass --blender-ext")
    return Path(found[-1])


def _cp(python: str) -> str:
    return "cp" + python.replace(".", "")


def wheel_pattern(name: str, version: str, platform: str, python: str) -> re.Pattern:
    cp = _cp(python)
    return re.compile(rf"{name}-{re.escape(version)}-{cp}-{cp}-.*{PLATFORMS[platform][1]}.*"
                      rf"\.whl$")


def find_cached_wheel(cache: Path, name: str, version: str, platform: str,
                      python: str) -> Path | None:
    pattern = wheel_pattern(name, version, platform, python)
    hits = sorted(p for p in cache.glob(f"{name}-{version}-*.whl") if pattern.match(p.name))
    return hits[0] if hits else None


def download_wheels(cache: Path, versions: dict[str, str], platforms, pythons,
                    log=print) -> list[Path]:
    """The wheels for every platform x Python, downloading only the missing ones."""
    cache.mkdir(parents=True, exist_ok=True)
    wheels = []
    for platform in platforms:
        for python in pythons:
            missing = [n for n in BUNDLED
                       if find_cached_wheel(cache, n, versions[n], platform, python) is None]
            if missing:
                log(f"downloading {', '.join(missing)} for {platform} / Python {python}")
                cmd = [sys.executable, "-m", "pip", "download", "--quiet",
                       "--only-binary=:all:", "--no-deps", "--implementation", "cp",
                       "--platform", PLATFORMS[platform][0], "--python-version", python,
                       "--abi", _cp(python), "-d", str(cache),
                       *[f"{n}=={versions[n]}" for n in missing]]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
                    raise BuildError(f"pip download failed for {platform} / Python "
                                     f"{python}:\n{tail}")
            for n in BUNDLED:
                wheel = find_cached_wheel(cache, n, versions[n], platform, python)
                if wheel is None:
                    raise BuildError(f"no {n} {versions[n]} wheel for {platform} / Python "
                                     f"{python} in {cache} after downloading")
                wheels.append(wheel)
    return wheels


# ---------------------------------------------------------------- manifest
def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        import json

        return json.dumps(value)  # JSON string escapes are valid TOML basic strings
    if isinstance(value, (list, tuple)):
        if not value:
            raise BuildError("empty lists are not allowed in an extension manifest")
        items = [_toml_value(v) for v in value]
        one_line = "[" + ", ".join(items) + "]"
        if len(one_line) <= 80:
            return one_line
        return "[\n" + "".join(f"  {item},\n" for item in items) + "]"
    raise BuildError(f"cannot write {type(value).__name__} values to TOML")


def to_toml(data: dict, prefix: str = "") -> str:
    """TOML text for a manifest: plain keys first, then one ``[table]`` per dict."""
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    text = "\n".join(lines) + ("\n" if lines else "")
    for key, value in tables:
        name = f"{prefix}{key}"
        text += f"\n[{name}]\n" + to_toml(value, prefix=f"{name}.")
    return text


def release_manifest(platforms, wheel_names, manifest: Path = MANIFEST) -> dict:
    with open(manifest, "rb") as fh:
        data = tomllib.load(fh)
    for key in ("platforms", "wheels"):
        if key in data:
            raise BuildError(f"{manifest} already sets '{key}'; the build adds it")
    plain = {k: v for k, v in data.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    plain["platforms"] = list(platforms)
    plain["wheels"] = [f"./wheels/{name}" for name in wheel_names]
    return {**plain, **tables}


# ---------------------------------------------------------------- staging and building
def stage(stage_root: Path, platforms, wheels, manifest: Path = MANIFEST,
          package_dir: Path = PACKAGE_DIR) -> Path:
    """``<stage_root>/<id>/``: package copy + wheels + generated manifest (fresh)."""
    data = release_manifest(platforms, [w.name for w in wheels], manifest)
    ext_dir = stage_root / data["id"]
    if ext_dir.exists():
        shutil.rmtree(ext_dir)
    top = os.path.abspath(package_dir)

    def ignore(folder, names):  # and a checkout's own kernel pack (--checkout-kernels)
        skip = set(STAGE_IGNORE(folder, names))
        return skip | {"kernels"} if os.path.abspath(folder) == top else skip

    shutil.copytree(package_dir, ext_dir, ignore=ignore)
    (ext_dir / "wheels").mkdir()
    for w in wheels:
        shutil.copy2(w, ext_dir / "wheels" / w.name)
    (ext_dir / "blender_manifest.toml").write_text(to_toml(data), encoding="utf-8")
    return ext_dir


KERNELS_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from blender_navjump.core import kernel_cache
seconds = kernel_cache.warm_up()
from numba.core.registry import cpu_target
magic = cpu_target.target_context.codegen().magic_tuple()
stats = kernel_cache.kernel_stats()
info = kernel_cache.write_shipped(kernel_cache.active_dir(), sys.argv[2], magic)
print("NAVJUMP_KERNELS " + json.dumps(dict(info, seconds=seconds, compiled=stats["misses"],
                                           loaded=stats["hits"])))
"""


def build_kernels(ext_dir: Path, cache: Path, log=print) -> dict:
    """Compile every kernel for the portable CPU target into ``<ext_dir>/kernels/<platform>``
    (this machine's platform and Python). ``cache`` keeps the compiled kernels between
    builds: an unchanged core is only loaded again, not recompiled."""
    import json

    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NUMBA_CPU_FEATURES", "NUMBA_DISABLE_JIT")}
    env.update(NAVJUMP_KERNEL_CACHE=str(cache), NUMBA_CPU_NAME="generic")
    log(f"compiling kernels for the portable target (cache {cache})")
    proc = subprocess.run([sys.executable, "-c", KERNELS_SCRIPT, str(ROOT),
                           str(ext_dir / "kernels")], capture_output=True, text=True, env=env)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("NAVJUMP_KERNELS ")]
    if proc.returncode != 0 or not lines:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
        raise BuildError(f"compiling the kernels failed:\n{tail}")
    info = json.loads(lines[-1].split(" ", 1)[1])
    log(f"kernels for {info['platform']} / Python {info['python']}: {info['compiled']} "
        f"compiled, {info['loaded']} loaded from {cache}, {info['seconds']:.1f} s")
    return info


def _kernel_cache_module():
    """``core/kernel_cache.py`` on its own (it imports nothing of the core): packing needs
    no numba set-up in this process."""
    spec = importlib.util.spec_from_file_location(
        "navjump_kernel_cache", PACKAGE_DIR / "core" / "kernel_cache.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_blender_ext(blender_ext: Path, *args: str, log=print) -> str:
    cmd = [sys.executable, str(blender_ext), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    out = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        raise BuildError(f"blender_ext.py {args[0]} failed (exit {proc.returncode}):\n{out}")
    if out:
        log(out)
    return out


def host_platform() -> str | None:
    """The build platform this machine compiles kernels for, or None."""
    import platform

    machine = platform.machine().lower()
    if sys.platform.startswith("linux") and machine in ("x86_64", "amd64"):
        return "linux-x64"
    if sys.platform == "win32" and machine in ("x86_64", "amd64"):
        return "windows-x64"
    if sys.platform == "darwin" and machine == "arm64":
        return "macos-arm64"
    return None


def build(platforms=tuple(PLATFORMS), pythons=PYTHONS, out_dir: Path = ROOT / "dist",
          cache: Path = DEFAULT_WHEELS_CACHE,
          stage_root: Path = ROOT / "build" / "extension", blender_ext: Path | None = None,
          log=print, kernels: bool = True,
          kernels_cache: Path = DEFAULT_KERNELS_CACHE) -> list[Path]:
    """Download, stage, compile the kernels, validate and build; returns the zips written
    (one per platform)."""
    unknown = [p for p in platforms if p not in PLATFORMS]
    if unknown:
        raise BuildError(f"unknown platform {unknown[0]!r}; choose from "
                         f"{', '.join(PLATFORMS)}")
    blender_ext = Path(blender_ext) if blender_ext else find_blender_ext()
    wheels = download_wheels(Path(cache), pinned_versions(), platforms, pythons, log=log)
    ext_dir = stage(Path(stage_root), platforms, wheels)
    log(f"staged {ext_dir}")
    python_here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if not kernels:
        log("kernels not shipped (--no-kernels): every platform compiles on first use")
    elif host_platform() in platforms and python_here in pythons:
        build_kernels(ext_dir, Path(kernels_cache), log=log)
    else:
        log(f"no kernels shipped: this machine builds them for {host_platform()} / Python "
            f"{python_here} only; the zips compile on first use")
    run_blender_ext(blender_ext, "validate", str(ext_dir), log=log)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(ext_dir / "blender_manifest.toml", "rb") as fh:
        manifest = tomllib.load(fh)
    prefix = f"{manifest['id']}-{manifest['version']}-"
    for old in out_dir.glob(f"{prefix}*.zip"):
        old.unlink()  # a zip left from a run with other platforms would look current
    run_blender_ext(blender_ext, "build", "--source-dir", str(ext_dir), "--output-dir",
                    str(out_dir), "--split-platforms", log=log)
    zips = sorted(out_dir.glob(f"{prefix}*.zip"))
    if len(zips) != len(platforms):
        raise BuildError(f"expected {len(platforms)} zips in {out_dir}, found "
                         f"{', '.join(z.name for z in zips) or 'none'}")
    return zips


def _csv(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--platforms", default=",".join(PLATFORMS),
                        help=f"comma-separated, from {', '.join(PLATFORMS)} (default: all)")
    parser.add_argument("--python", default=",".join(PYTHONS),
                        help="Python versions to bundle wheels for (default: 3.11,3.13)")
    parser.add_argument("--out", type=Path, default=ROOT / "dist",
                        help="output folder for the zips (default: dist/)")
    parser.add_argument("--wheels-cache", type=Path, default=DEFAULT_WHEELS_CACHE,
                        help="downloaded wheels are kept here (default: $NAVJUMP_WHEELS_CACHE "
                             "or build/wheels_cache)")
    parser.add_argument("--stage", type=Path, default=ROOT / "build" / "extension",
                        help="staging folder (default: build/extension)")
    parser.add_argument("--blender-ext", type=Path, default=None,
                        help="Blender's blender_ext.py (default: the one in the bpy module)")
    parser.add_argument("--no-kernels", action="store_true",
                        help="do not ship compiled kernels (they compile on first use)")
    parser.add_argument("--kernels-cache", type=Path, default=DEFAULT_KERNELS_CACHE,
                        help="compiled kernels are kept here between builds (default: "
                             "build/kernels_cache)")
    parser.add_argument("--checkout-kernels", action="store_true",
                        help="only compile the portable kernels into this checkout's "
                             "blender_navjump/kernels/ (a clone with the same core sources "
                             "then loads them instead of compiling), build no zip")
    args = parser.parse_args(argv)
    if args.checkout_kernels:
        try:
            build_kernels(ROOT / "blender_navjump", args.kernels_cache)
        except BuildError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        pack, _manifest = _kernel_cache_module().write_pack(
            str(ROOT / "blender_navjump" / "kernels"))
        print(f"packed {os.path.relpath(pack, ROOT)} ({os.path.getsize(pack) / 1e6:.1f} MB)")
        return 0
    try:
        zips = build(_csv(args.platforms), _csv(args.python), args.out, args.wheels_cache,
                     args.stage, args.blender_ext, kernels=not args.no_kernels,
                     kernels_cache=args.kernels_cache)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for z in zips:
        print(f"built {z} ({os.path.getsize(z) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
