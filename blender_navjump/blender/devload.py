"""Load the source tree as a real Blender extension (tests, scripts, development).

The product layout keeps ``blender_manifest.toml`` at the repository top and the code in
``blender_navjump/``; Blender wants both in one folder named after the manifest ``id``.
:func:`stage_extension` builds that folder from symlinks (copies where symlinks are not
allowed) plus a copy of the manifest; :func:`enable_source_extension` registers a local
extension repository holding it and enables the add-on as ``bl_ext.<repo>.<id>``.
Nothing here runs inside an installed extension.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tomllib
from pathlib import Path

from .stdio import stdout_to_stderr
from .stub_gaps import blender_preferences

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # .../blender_navjump
REPO_ROOT = PACKAGE_DIR.parent
MANIFEST = REPO_ROOT / "blender_manifest.toml"
DEFAULT_REPO_MODULE = "navjump_dev"
DEV_REPO_ENV = "NAVJUMP_DEV_REPO"  # local repository the source tree is staged into
_SKIP = {"__pycache__"}


def manifest_id(manifest: Path = MANIFEST) -> str:
    with open(manifest, "rb") as fh:
        return tomllib.load(fh)["id"]


def stage_extension(repo_dir, package_dir: Path = PACKAGE_DIR,
                    manifest: Path = MANIFEST) -> Path:
    """Create ``repo_dir/<id>/`` linking every entry of the package, plus the manifest."""
    ext_dir = Path(repo_dir) / manifest_id(manifest)
    if ext_dir.is_symlink() or ext_dir.is_file():
        ext_dir.unlink()
    elif ext_dir.exists():
        shutil.rmtree(ext_dir)
    ext_dir.mkdir(parents=True)
    for entry in sorted(Path(package_dir).iterdir()):
        if entry.name in _SKIP or entry.name == "blender_manifest.toml":
            continue
        target = ext_dir / entry.name
        try:
            os.symlink(entry, target, target_is_directory=entry.is_dir())
        except OSError:  # no symlink permission (Windows without developer mode)
            if entry.is_dir():
                shutil.copytree(entry, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(entry, target)
    shutil.copy2(manifest, ext_dir / "blender_manifest.toml")
    return ext_dir


def find_repo(module: str):
    for repo in blender_preferences().extensions.repos:
        if repo.module == module:
            return repo
    return None


def default_repo_dir(repo_module: str = DEFAULT_REPO_MODULE) -> Path:
    """``<Blender user folder>/extensions/<repo_module>``, beside Blender's own repos.

    A fixed place matters: numba keys its cache on the source path, so a new staging
    folder per run would recompile every kernel.
    """
    import bpy

    return Path(bpy.utils.user_resource('EXTENSIONS', path=repo_module, create=True))


def enable_source_extension(repo_dir=None, repo_module: str = DEFAULT_REPO_MODULE) -> str:
    """Stage the source into ``repo_dir`` (default :func:`default_repo_dir`), register it
    as an extension repository and enable the add-on.

    Returns the add-on module name, ``bl_ext.<repo_module>.<id>``.
    """
    import bpy

    repo_dir = Path(repo_dir) if repo_dir is not None else default_repo_dir(repo_module)
    repo_dir.mkdir(parents=True, exist_ok=True)
    ext_id = stage_extension(repo_dir).name
    repo = find_repo(repo_module)
    if repo is not None and Path(repo.directory).resolve() != repo_dir.resolve():
        blender_preferences().extensions.repos.remove(repo)
        repo = None
    if repo is None:
        blender_preferences().extensions.repos.new(
            name=repo_module, module=repo_module, custom_directory=str(repo_dir),
            source='USER')
    bpy.ops.extensions.repo_refresh_all()
    module = f"bl_ext.{repo_module}.{ext_id}"
    result = bpy.ops.preferences.addon_enable(module=module)
    if result != {'FINISHED'} or module not in blender_preferences().addons:
        raise RuntimeError(f"could not enable {module} from {repo_dir}")
    return module


def disable_source_extension(repo_module: str = DEFAULT_REPO_MODULE,
                             remove_repo: bool = False) -> None:
    """Disable the add-on (the staged folder is left alone).

    The repository stays registered unless ``remove_repo``: removing one makes bpy 4.2.0
    crash when the process exits, and the bpy module never saves preferences anyway.
    """
    import bpy

    module = f"bl_ext.{repo_module}.{manifest_id()}"
    if module in blender_preferences().addons:
        bpy.ops.preferences.addon_disable(module=module)
    repo = find_repo(repo_module)
    if remove_repo and repo is not None:
        blender_preferences().extensions.repos.remove(repo)


# ---------------------------------------------------------------- the extension for batch bakes
def find_enabled_extension(ext_id: str | None = None) -> str | None:
    """Module name of an enabled NavJump extension (``bl_ext.<repo>.<id>``), or None."""
    ext_id = ext_id or manifest_id()
    for name in blender_preferences().addons.keys():
        if name.startswith("bl_ext.") and name.rsplit(".", 1)[-1] == ext_id:
            return name
    return None


def dev_repo_module() -> str:
    return os.environ.get(DEV_REPO_ENV) or DEFAULT_REPO_MODULE


def staged_is_current(ext_dir: Path) -> bool:
    """True when ``ext_dir`` links exactly the package's entries and has its manifest."""
    ext_dir = Path(ext_dir)
    manifest = ext_dir / "blender_manifest.toml"
    if not ext_dir.is_dir() or not manifest.is_file():
        return False
    if manifest.read_bytes() != MANIFEST.read_bytes():
        return False
    wanted = {e.name: e for e in PACKAGE_DIR.iterdir()
              if e.name not in _SKIP and e.name != "blender_manifest.toml"}
    have = {e.name for e in ext_dir.iterdir() if e.name != "blender_manifest.toml"}
    if have != set(wanted):
        return False
    for name, source in wanted.items():
        link = ext_dir / name
        if not link.is_symlink() or Path(os.readlink(link)) != source:
            return False
    return True


def stage_source_extension(repo_module: str | None = None) -> tuple[Path, str]:
    """Stage the source tree into the dev repository folder unless it already is.

    Staging only when needed matters: other processes (pool workers, a test session) may be
    running from the same folder, and re-staging removes it for a moment.
    """
    repo_module = repo_module or dev_repo_module()
    repo_dir = default_repo_dir(repo_module)
    if not staged_is_current(repo_dir / manifest_id()):
        stage_extension(repo_dir)
    return repo_dir, repo_module


def attach_staged_extension(repo_dir, repo_module: str) -> str:
    """Register an already staged repository folder and enable the add-on; its module name."""
    import bpy

    module = f"bl_ext.{repo_module}.{manifest_id()}"
    if module in blender_preferences().addons:
        return module
    repo = find_repo(repo_module)
    if repo is None:
        blender_preferences().extensions.repos.new(
            name=repo_module, module=repo_module, custom_directory=str(repo_dir),
            source='USER')
    with stdout_to_stderr():
        bpy.ops.extensions.repo_refresh_all()
        result = bpy.ops.preferences.addon_enable(module=module)
    if result != {'FINISHED'} or module not in blender_preferences().addons:
        raise RuntimeError(f"could not enable {module} from {repo_dir}")
    return module


def attach_extension() -> str:
    """The enabled NavJump extension (an installed one if enabled), else the source tree."""
    module = find_enabled_extension()
    if module is not None:
        return module
    repo_dir, repo_module = stage_source_extension()
    return attach_staged_extension(repo_dir, repo_module)


def extension_headless(module: str):
    """:mod:`.headless` (one file's bake, needs bpy) as loaded inside the extension ``module``."""
    return importlib.import_module(f"{module}.blender.headless")

