"""The one place that sets numba up for NavJump's kernels: where they are cached, how the
cache is keyed, and the kernels shipped in the extension zip.

Every front end (the CLI, ``scripts/bake.py``, the extension inside Blender) imports the
core package, whose ``__init__`` calls :func:`configure`; nothing else touches numba's
settings. The kernels then live in one folder per user and version::

    <root>/<numba version>-py<X.Y>-<fingerprint>/            (e.g. numba0.68.1-py3.11-3f2a...)
        core/*.nbi, *.nbc, *.nbc.sym; query/...; last_used; warm

- ``<root>``: ``$NAVJUMP_KERNEL_CACHE``, else ``$NUMBA_CACHE_DIR/navjump``, else the
  user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, ``~/Library/Caches``,
  ``%LOCALAPPDATA%``) + ``navjump/kernels``. The same folder for every checkout, the CLI
  and Blender: a kernel is found by the CONTENT of the core's sources, not by their path,
  their modification time or the name Python imported them under.
- ``<fingerprint>``: a hash of the relative path and bytes of every ``.py`` file of the core
  (a kernel that calls into another file is recompiled when that file changes). Folders of
  other fingerprints stay; those unused for :data:`PRUNE_AFTER_DAYS` are removed, or all of
  them by ``python -m blender_navjump cache --prune/--clear``.

How numba is told: a cache *locator* (:class:`KernelLocator`, first in numba's list) gives
the folder and the source stamp of every cached function defined under the core; numba's
other locators serve everything else unchanged. numba pickles the name of a kernel's module
(``blender_navjump.core.detail`` on the command line, ``bl_ext.<repo>.blender_navjump.core
.detail`` inside Blender); reading an index or a kernel, NavJump's cache files map any such
name to the core loaded in this process (``_KernelUnpickler``), so one compile serves all.

numba reads its settings when it is imported; :func:`configure` installs the locator right
away when numba is already imported, else the moment it is (a hook on ``import numba``),
so importing the core stays cheap for code that needs only ``NavMesh`` or the settings.

Loading cheaply: beside each of numba's ``.nbc`` files a ``.nbc.sym`` lists the names the
kernel defines, so a load does not parse the kernel's LLVM bitcode (parsed only when a
kernel compiled later in the process links it in; see "lazy linking modules" below), and
a load does not import numba's compiler registries (see "loading without a refresh").
:func:`preload` loads every cached entry kernel without compiling (the extension runs it
in a background thread after an interactive Blender starts).

Shipped kernels: ``scripts/build_extension.py`` compiles every kernel (:func:`warm_up`) for
a portable CPU (``NUMBA_CPU_NAME=generic``: plain x86-64, any such machine runs it) into
``<extension>/kernels/<platform>/`` with a ``kernels.json`` saying for which numba,
llvmlite, Python, fingerprint and target they are. On first use on a new machine they are
copied into the user folder when all of those match; numba's index keys a kernel by the
target CPU, so a lookup for this machine's CPU that misses tries the portable key too
(:meth:`_KernelIndex.load`). Anything that does not match is compiled as usual, into the
same user folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.abc
import importlib.util
import io
import json
import os
import pickle
import platform
import re
import shutil
import sys
import tempfile
import time
from typing import Any

CORE_DIR = os.path.dirname(os.path.abspath(__file__))
CORE_PACKAGE = __package__ or "blender_navjump.core"
EXTENSION_DIR = os.path.dirname(CORE_DIR)
SHIPPED_DIR = os.path.join(EXTENSION_DIR, "kernels")
FINGERPRINT_LENGTH = 16
PRUNE_AFTER_DAYS = 30
ROOT_ENV = "NAVJUMP_KERNEL_CACHE"
# The portable target the extension's kernels are built for (numba's own name for "no
# CPU-specific instructions"); NUMBA_CPU_FEATURES is empty for it.
PORTABLE_CPU = "generic"
SHIPPED_MANIFEST = "kernels.json"
PACK_SUFFIX = ".tar.xz"
# "0": shipped kernels are never copied into the user folder (they still serve as the
# portable fallback of kernels already there)
INSTALL_SHIPPED_ENV = "NAVJUMP_INSTALL_SHIPPED"
WARM_MARKER = "warm"
LAST_USED = "last_used"
# Rough first-compile time on a 2-core machine, for the one status line.
COMPILE_SECONDS_ESTIMATE = 90
# Names the core is imported under by the front ends: the package on the command line and
# an extension module in Blender (any repository).
_CORE_NAME = re.compile(r"^(?:blender_navjump|bl_ext\.[A-Za-z0-9_]+\.blender_navjump)"
                        r"\.core(?=\.|$)")
_FOLDER = re.compile(rf"^numba[0-9A-Za-z.+_-]*-py\d+\.\d+-[0-9a-f]{{{FINGERPRINT_LENGTH}}}$")


# ---------------------------------------------------------------- keys and folders
# Core files without kernels (the cache machinery itself, the warm-up scene): editing them
# does not invalidate the compiled kernels.
NOT_KERNEL_SOURCES = ("kernel_cache.py", "warmup_scene.py")


def source_fingerprint(root: str = CORE_DIR) -> str:
    """Hex digest of the relative paths and contents of the .py files under root (but
    :data:`NOT_KERNEL_SOURCES` at its top)."""
    if root == CORE_DIR and _fingerprint_memo:
        return _fingerprint_memo[0]
    sources = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        sources += [os.path.join(folder, name) for name in files if name.endswith(".py")]
    h = hashlib.sha1()
    for rel, path in sorted((os.path.relpath(p, root).replace(os.sep, "/"), p)
                            for p in sources):
        if rel in NOT_KERNEL_SOURCES:
            continue
        with open(path, "rb") as fh:
            data = fh.read()
        h.update(f"{rel}:{len(data)}:".encode())
        h.update(data)
    digest = h.hexdigest()[:FINGERPRINT_LENGTH]
    if root == CORE_DIR:
        _fingerprint_memo.append(digest)
    return digest


_fingerprint_memo: list[str] = []


def installed_version(dist: str) -> str:
    """Version of an installed distribution without importing it ('' when absent)."""
    module = sys.modules.get(dist)
    if module is not None and getattr(module, "__version__", None):
        return module.__version__
    import importlib.metadata  # 50-70 ms: only off the bake's path (numba is imported)

    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return ""


def version_tag() -> str:
    return (f"numba{installed_version('numba') or 'unknown'}-py{sys.version_info[0]}."
            f"{sys.version_info[1]}")


def default_root() -> str:
    """The user's kernel cache root (see the module docstring)."""
    if os.environ.get(ROOT_ENV):
        return os.environ[ROOT_ENV]
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.path.join(os.environ["NUMBA_CACHE_DIR"], "navjump")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"),
                                                              "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                ".cache")
    return os.path.join(base, "navjump", "kernels")


def cache_dir(root: str | None = None) -> str:
    """This version's folder: ``<root>/<numba version>-py<X.Y>-<fingerprint>``."""
    return os.path.join(root or default_root(), f"{version_tag()}-{source_fingerprint()}")


def is_cache_folder(name: str) -> bool:
    return bool(_FOLDER.match(name))


def prune(root: str | None = None, max_age_days: float | None = PRUNE_AFTER_DAYS,
          keep: str | None = None) -> list[str]:
    """Remove kernel folders under root not used for max_age_days (None: all of them),
    except ``keep``; returns the folders removed. Best effort: a folder another process
    holds open may stay."""
    root = root or default_root()
    removed: list[str] = []
    try:
        names = os.listdir(root)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        folder = os.path.join(root, name)
        if not is_cache_folder(name) or (keep and os.path.abspath(folder) ==
                                         os.path.abspath(keep)):
            continue
        if max_age_days is not None:
            marker = os.path.join(folder, LAST_USED)
            try:
                used = os.stat(marker if os.path.exists(marker) else folder).st_mtime
            except OSError:
                continue
            if now - used < max_age_days * 86400:
                continue
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.exists(folder):
            removed.append(folder)
    return removed


def folder_size(folder: str) -> int:
    total = 0
    for base, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.path.getsize(os.path.join(base, name))
    return total


# ---------------------------------------------------------------- the locator
def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


_CORE_REAL = _real(CORE_DIR)
_CORE_PARENT_NAMES = (os.path.normcase(os.path.abspath(CORE_DIR)), _CORE_REAL)


class KernelLocator:
    """numba cache locator for functions defined under this core (duck-typed to numba's
    ``_CacheLocator``: numba calls exactly these methods)."""

    navjump_kernels = True  # marks NavJump locators of any loaded copy of the core

    def __init__(self, py_func, folder: str):
        self._py_file = py_func.__code__.co_filename
        self._lineno = py_func.__code__.co_firstlineno
        self._folder = folder
        # The core package the function was imported under (two copies of the core can
        # share a process: the plain package and the extension in Blender's tests).
        own = _CORE_NAME.match(getattr(py_func, "__module__", "") or "")
        self.package = own.group(0) if own else CORE_PACKAGE

    @classmethod
    def from_function(cls, py_func, py_file):
        rel = _relative_to_core(py_file)
        if rel is None:
            return None
        sub = os.path.dirname(rel)
        self = cls(py_func, os.path.join(_active_dir(), "core", sub) if sub else
                   os.path.join(_active_dir(), "core"))
        try:
            self.ensure_cache_path()
        except OSError:
            return None  # numba's own locators take over (in-tree or user-wide)
        return self

    def ensure_cache_path(self):
        os.makedirs(self._folder, exist_ok=True)
        tempfile.TemporaryFile(dir=self._folder).close()

    def get_cache_path(self):
        return self._folder

    def get_source_stamp(self):
        return source_fingerprint()

    def get_disambiguator(self):
        return str(self._lineno)


def _relative_to_core(py_file: str) -> str | None:
    path = os.path.normcase(os.path.abspath(py_file))
    for base in _CORE_PARENT_NAMES:
        if path.startswith(base + os.sep):
            return os.path.relpath(path, base)
    real = _real(py_file)
    if real.startswith(_CORE_REAL + os.sep):
        return os.path.relpath(real, _CORE_REAL)
    return None


# ---------------------------------------------------------------- foreign module names
def local_name(module: str, package: str = CORE_PACKAGE) -> str:
    """A core module name as written by another front end, in this process's package."""
    return _CORE_NAME.sub(package, module, count=1)


class _KernelUnpickler(pickle.Unpickler):
    """Reads numba's cache files written under any of the core's module names."""

    def __init__(self, data: bytes, package: str):
        super().__init__(io.BytesIO(data))
        self._package = package

    def find_class(self, module, name):
        found = super().find_class(local_name(module, self._package), name)
        if module == "numba.core.environment" and name == "_rebuild_env":
            package = self._package

            def rebuild_env(modname, consts, env_name):
                return found(local_name(modname, package) if modname else modname, consts,
                             env_name)

            return rebuild_env
        return found


def _index_class(caching):
    """numba's index/data file reader, reading foreign module names and portable keys."""

    class _KernelIndex(caching.IndexDataCacheFile):  # type: ignore[name-defined]  # numba passed in
        navjump_package = CORE_PACKAGE
        navjump_portable: tuple = ()

        def _loads(self, data: bytes):
            return _KernelUnpickler(data, self.navjump_package).load()

        def _load_index(self):
            try:
                with open(self._index_path, "rb") as f:
                    version = pickle.load(f)
                    data = f.read()
            except FileNotFoundError:
                return {}
            if version != self._version:
                return {}
            try:
                stamp, overloads = self._loads(data)
            except Exception:  # noqa: BLE001 - unreadable (e.g. a class since renamed):
                return {}  # compiled again and rewritten, never a crash
            return overloads if stamp == self._source_stamp else {}

        def _load_data(self, name):
            with open(self._data_path(name), "rb") as f:
                data = f.read()
            try:
                payload = self._loads(data)
            except Exception as exc:  # noqa: BLE001 - numba treats OSError as "not cached"
                raise OSError(f"unreadable kernel cache file {name}: {exc}") from exc
            # A compile result: (library, function descriptor, ...). numba imports the
            # descriptor's module by name to make the callable.
            fndesc = payload[1] if isinstance(payload, tuple) and len(payload) > 1 else None
            if fndesc is not None and isinstance(getattr(fndesc, "modname", None), str):
                fndesc.modname = local_name(fndesc.modname, self.navjump_package)
            return _lazy_payload(payload, self._data_path(name))

        def _save_data(self, name, data):
            super()._save_data(name, data)
            if _state["lazy"]:
                _write_symbols(data, self._data_path(name))

        def load(self, key):
            found = super().load(key)
            if found is not None or not self.navjump_portable:
                return found
            sig, magic, code = key
            if magic[0] != self.navjump_portable[0]:
                return None
            return super().load((sig, self.navjump_portable, code))

    return _KernelIndex


def _cache_class(caching):
    index_class = _index_class(caching)

    class KernelFunctionCache(caching.FunctionCache):  # type: ignore[name-defined]  # numba passed in
        """numba's per-function cache; NavJump's functions get :class:`_KernelIndex`."""

        navjump_kernels = True

        navjump_light = False

        def __init__(self, py_func):
            super().__init__(py_func)
            locator = self._impl.locator
            # Only this copy's functions: another copy of the core in the process (the plain
            # package beside the extension) has its own subclass in this chain.
            if type(locator) is KernelLocator:
                self._cache_file.__class__ = index_class
                self._cache_file.navjump_package = locator.package
                self._cache_file.navjump_portable = portable_magic()
                self.navjump_light = True  # (numba extensions' kernels keep numba's path)

        def load_overload(self, sig, target_context):
            if not (self.navjump_light and _state["light_load"]):
                return super().load_overload(sig, target_context)
            _ready_for_cached_code(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)

    return KernelFunctionCache


# ---------------------------------------------------------------- loading without a refresh
# numba refreshes its target context before every cache load: the first refresh imports
# some fifty lowering modules (typed containers, linalg, random, polynomials...) and
# installs their registries, a third of a warm bake's kernel loading, although running
# machine code needs none of them. What the loaded code does need is the symbols it links
# against: numba's helper library, the math and exception symbols (registered when the
# target context is created), the runtime (NRT) and the hash secrets (registered when
# numba.cpython.hashing is imported). Audited for these numba versions; any other one takes
# numba's own path. A compile refreshes the context itself, so later compiles are unchanged.
LIGHT_LOAD_NUMBA = ("0.68.",)


def _ready_for_cached_code(target_context) -> None:
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
    import numba.cpython.hashing  # noqa: F401 - registers the hash secrets' symbols


# ---------------------------------------------------------------- lazy linking modules
# A cached kernel is machine code plus the LLVM bitcode of everything it defines, kept so
# that a kernel compiled later can inline it. numba parses that bitcode on every load (a
# third of a warm bake's kernel loading) only to list the names it defines. NavJump keeps
# those names beside each cache file (``<kernel>.<n>.nbc.sym``, JSON with the SHA-1 of the
# bitcode they were read from); a load then registers the names and parses the bitcode only
# if a compile in this process links the kernel in. numba's own files are unchanged: any
# version of NavJump or numba reads them, and a .sym that does not match (the .nbc was
# compiled again) is ignored and rewritten.
_LIBRARY_KIND = "object"
SYMBOLS_SUFFIX = ".sym"


class _LazyBitcode(bytes):
    """A kernel's linking bitcode, not parsed yet, with the names of what it defines."""

    symbols: frozenset = frozenset()


def _library_bitcode(payload) -> bytes | None:
    """The linking bitcode in numba's reduced compile result, else None."""
    try:
        _name, kind, (_objcode, bitcode) = payload[0]
    except (TypeError, ValueError):
        return None
    return bitcode if kind == _LIBRARY_KIND and isinstance(bitcode, bytes) else None


def _defined_symbols(bitcode: bytes) -> list[str]:
    import llvmlite.binding as ll

    module = ll.parse_bitcode(bitcode)
    return sorted({gv.name for group in (module.functions, module.global_variables)
                   for gv in group if not gv.is_declaration})


def _write_symbols(payload, data_path: str, symbols: list[str] | None = None):
    bitcode = _library_bitcode(payload)
    if bitcode is None:
        return
    if symbols is None:
        symbols = _defined_symbols(bitcode)
    record = {"sha1": hashlib.sha1(bitcode).hexdigest(), "symbols": symbols}
    tmp = f"{data_path}{SYMBOLS_SUFFIX}.tmp.{os.getpid()}"
    with contextlib.suppress(OSError):
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, data_path + SYMBOLS_SUFFIX)


def _lazy_payload(payload, data_path: str):
    """The payload with its bitcode as a :class:`_LazyBitcode` (names from the .sym file,
    or read now and stored for the next process)."""
    bitcode = _library_bitcode(payload)
    if bitcode is None or not _state["lazy"]:
        return payload
    digest = hashlib.sha1(bitcode).hexdigest()
    symbols = None
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        with open(data_path + SYMBOLS_SUFFIX, encoding="utf-8") as fh:
            record = json.load(fh)
        if record["sha1"] == digest:
            symbols = [str(n) for n in record["symbols"]]
    if symbols is None:
        symbols = _defined_symbols(bitcode)
        _write_symbols(payload, data_path, symbols)
    lazy = _LazyBitcode(bitcode)
    lazy.symbols = frozenset(symbols)
    (name, kind, (objcode, _bitcode)) = payload[0]
    return ((name, kind, (objcode, lazy)), *payload[1:])


def _install_lazy_linking(codegen) -> bool:
    """Teach numba's JIT library to load a :class:`_LazyBitcode` without parsing it."""
    library = getattr(codegen, "CPUCodeLibrary", None)
    unserialize = getattr(library, "_unserialize", None)
    for_linking = getattr(library, "_get_module_for_linking", None)
    engine = getattr(codegen, "JitEngine", None)
    if engine is None or not hasattr(engine, "_load_defined_symbols") or \
            not hasattr(codegen, "ll"):
        return False
    if unserialize is None or for_linking is None or getattr(library, "navjump_lazy", False):
        return bool(getattr(library, "navjump_lazy", False))
    stock_unserialize = unserialize.__func__

    def _unserialize(cls, codegen_, state):
        name, kind, data = state
        # duck-typed: another copy of the core in this process has its own _LazyBitcode
        symbols = getattr(data[1], "symbols", None) if kind == _LIBRARY_KIND else None
        if symbols is None:
            return stock_unserialize(cls, codegen_, state)
        objcode, bitcode = data
        self = codegen_.create_library(name)
        self.enable_object_caching()
        self._set_compiled_object(objcode)
        self._navjump_bitcode = bytes(bitcode)
        self._finalize_final_module()
        codegen_._engine._defined_symbols |= symbols
        return self

    def _get_module_for_linking(self):
        bitcode = self.__dict__.pop("_navjump_bitcode", None)
        if bitcode is not None and self._shared_module is None:
            self._shared_module = codegen.ll.parse_bitcode(bitcode)
        return for_linking(self)

    assert library is not None  # checked above: _unserialize exists on it
    library._unserialize = classmethod(_unserialize)
    library._get_module_for_linking = _get_module_for_linking
    library.navjump_lazy = True
    return True


# ---------------------------------------------------------------- shipped kernels
def platform_tag() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "arm64": "arm64", "aarch64": "arm64"}.get(
        machine, machine)
    system = {"win32": "windows", "darwin": "macos"}.get(sys.platform, sys.platform)
    return f"{system}-{arch}"


def portable_magic() -> tuple:
    """numba's target key of the shipped kernels when this machine can run them, else ()."""
    if _state["portable"] is None:
        info = shipped_info()
        _state["portable"] = () if info is None else tuple(info["magic"])
    return _state["portable"]


def _shipped_manifest_path(shipped_dir: str = SHIPPED_DIR) -> str:
    """The manifest of the kernels shipped as a folder (``<platform>/kernels.json``, the
    extension zip) or, without one, of those packed as ``<platform>.tar.xz`` beside
    ``<platform>.json`` (a checkout's own pack, :func:`write_pack`)."""
    folder = os.path.join(shipped_dir, platform_tag(), SHIPPED_MANIFEST)
    if os.path.exists(folder):
        return folder
    return _pack_paths(shipped_dir)[1]


def _pack_paths(shipped_dir: str) -> tuple[str, str]:
    base = os.path.join(shipped_dir, platform_tag())
    return base + PACK_SUFFIX, base + ".json"


def shipped_info(shipped_dir: str = SHIPPED_DIR, why: list | None = None) -> dict | None:
    """The shipped kernels' manifest when they fit this machine and process, else None
    (``why`` gets the reason)."""
    path = _shipped_manifest_path(shipped_dir)
    try:
        with open(path, encoding="utf-8") as fh:
            info = json.load(fh)
    except (OSError, ValueError):
        if why is not None:
            why.append(f"no shipped kernels for {platform_tag()}")
        return None
    wanted = {"fingerprint": source_fingerprint(), "numba": installed_version("numba"),
              "llvmlite": installed_version("llvmlite"),
              "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
              "platform": platform_tag()}
    for key, value in wanted.items():
        if info.get(key) != value:
            if why is not None:
                why.append(f"shipped kernels are for {key} {info.get(key)!r}, this is "
                           f"{value!r}")
            return None
    magic = info.get("magic")
    if not (isinstance(magic, list) and len(magic) == 3 and magic[1] == PORTABLE_CPU):
        if why is not None:
            why.append(f"shipped kernels have an unknown target {magic!r}")
        return None
    return info


def install_shipped(target: str | None = None, shipped_dir: str = SHIPPED_DIR) -> int:
    """Copy the shipped kernels that fit into the user folder (files already there are
    kept); the number of files copied."""
    if os.environ.get(INSTALL_SHIPPED_ENV) == "0":
        return 0  # (tests of the compiling path: the folder is filled some other way)
    info = shipped_info(shipped_dir)
    if info is None:
        return 0
    source = os.path.join(shipped_dir, platform_tag())
    target = target or cache_dir()
    if not os.path.isdir(source):
        return _install_pack(_pack_paths(shipped_dir)[0], target)
    copied = 0
    for base, _dirs, files in os.walk(source):
        rel = os.path.relpath(base, source)
        for name in files:
            if not _is_kernel_file(name):
                continue
            dest_dir = os.path.normpath(os.path.join(target, rel))
            dest = os.path.join(dest_dir, name)
            if os.path.exists(dest):
                continue
            try:
                os.makedirs(dest_dir, exist_ok=True)
                tmp = f"{dest}.tmp.{os.getpid()}"
                shutil.copyfile(os.path.join(base, name), tmp)
                os.replace(tmp, dest)
                copied += 1
            except OSError:
                return copied
    mark_warm(target)  # every shipped kernel is there (copied now or before)
    return copied


def _is_kernel_file(name: str) -> bool:
    return name.endswith((".nbi", ".nbc", ".nbc" + SYMBOLS_SUFFIX))


def _install_pack(pack: str, target: str) -> int:
    """Unpack a checkout's kernel pack into the user folder (files already there are kept,
    members that are not kernel files under ``core/`` are never written); files unpacked."""
    import tarfile

    copied = 0
    try:
        with tarfile.open(pack, "r:xz") as tar:
            for member in tar:
                parts = member.name.split("/")
                if not member.isfile() or parts[0] != "core" or ".." in parts or \
                        not _is_kernel_file(parts[-1]):
                    continue
                dest = os.path.join(target, *parts)
                if os.path.exists(dest):
                    continue
                data = tar.extractfile(member)
                if data is None:
                    continue
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                tmp = f"{dest}.tmp.{os.getpid()}"
                with open(tmp, "wb") as fh:
                    shutil.copyfileobj(data, fh)
                os.replace(tmp, dest)
                copied += 1
    except (OSError, tarfile.TarError, EOFError):
        return copied  # a damaged pack: what is missing compiles as usual
    mark_warm(target)  # every shipped kernel is there (copied now or before)
    return copied


def write_pack(folder: str) -> tuple[str, str]:
    """Turn ``<folder>/<platform>/`` written by :func:`write_shipped` into
    ``<folder>/<platform>.tar.xz`` and ``<folder>/<platform>.json`` (a checkout's pack:
    about a sixth of the folder's size, one file for git)."""
    import tarfile

    source = os.path.join(folder, platform_tag())
    pack, manifest = _pack_paths(folder)
    names = []
    for base, _dirs, files in os.walk(os.path.join(source, "core")):
        names += [os.path.join(base, n) for n in files if _is_kernel_file(n)]
    tmp = pack + ".tmp"
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        for path in sorted(names):
            info = tar.gettarinfo(path, arcname=os.path.relpath(path, source).replace(
                os.sep, "/"))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with open(path, "rb") as fh:
                tar.addfile(info, fh)
    os.replace(tmp, pack)
    shutil.move(os.path.join(source, SHIPPED_MANIFEST), manifest)
    shutil.rmtree(source)
    return pack, manifest


def write_shipped(source: str, dest: str, magic) -> dict:
    """Pack a kernel folder compiled for the portable target as ``dest/<platform>/``."""
    out = os.path.join(dest, platform_tag())
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(os.path.join(source, "core"), os.path.join(out, "core"),
                    ignore=shutil.ignore_patterns("*.tmp.*"))
    info = {"fingerprint": source_fingerprint(), "numba": installed_version("numba"),
            "llvmlite": installed_version("llvmlite"),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
            "platform": platform_tag(), "magic": list(magic)}
    with open(os.path.join(out, SHIPPED_MANIFEST), "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=1)
    return info


# ---------------------------------------------------------------- set-up
_state: dict[str, Any] = {"configured": False, "installed": False, "dir": None,
                          "portable": None, "lazy": False, "light_load": False,
                          "compiling": False}


def _active_dir() -> str:
    if _state["dir"] is None:
        _state["dir"] = cache_dir()
    return _state["dir"]


def active_dir() -> str:
    """The folder NavJump's kernels are read from and written to in this process."""
    return _active_dir()


class _AfterNumbaImport(importlib.abc.MetaPathFinder):
    """Runs :func:`_install` right after ``import numba`` has executed numba's __init__.

    It stays on ``sys.meta_path`` until numba is executed: a lookup that imports nothing
    (``importlib.util.find_spec("numba")``, e.g. the command line's check that numba is
    installed) must not use it up, or numba loads with neither locator nor light load.
    """

    def find_spec(self, name, path=None, target=None):
        if name != "numba":
            return None
        index = sys.meta_path.index(self) if self in sys.meta_path else 0
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec("numba")
        finally:
            sys.meta_path.insert(index, self)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _ThenInstall(spec.loader, self)
        return spec


class _ThenInstall(importlib.abc.Loader):
    """numba's own loader, then :func:`_install` (see :class:`_AfterNumbaImport`)."""

    def __init__(self, loader, finder):
        self._loader = loader
        self._finder = finder

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__spec__.loader = self._loader
        module.__loader__ = self._loader
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self._finder)
        self._loader.exec_module(module)
        _install()


def configure() -> None:
    """Set numba up for the core's kernels (idempotent). The kernel folder is named when
    numba is imported (its version is then known without asking the package metadata)."""
    if not _state["configured"]:
        _state["configured"] = True
        if "numba" in sys.modules:
            _install()
        else:
            sys.meta_path.insert(0, _AfterNumbaImport())


def _install():
    if _state["installed"]:
        return
    _state["installed"] = True
    try:
        from numba.core import caching, codegen, dispatcher
    except ImportError:
        return  # no numba at all: the core says so when a kernel module is imported
    classes = getattr(getattr(caching, "CacheImpl", None), "_locator_classes", None)
    if not isinstance(classes, list) or not hasattr(caching, "IndexDataCacheFile"):
        # A numba whose cache internals differ: its own default cache serves (slower
        # to share, never wrong).
        return
    classes.insert(0, KernelLocator)
    _state["lazy"] = _install_lazy_linking(codegen)
    _state["light_load"] = _light_load_fits(caching)
    if not getattr(dispatcher.FunctionCache, "navjump_kernels", False) or \
            dispatcher.FunctionCache.__module__ != __name__:
        dispatcher.FunctionCache = _cache_class(caching)
    folder = _active_dir()
    with contextlib.suppress(OSError):
        os.makedirs(folder, exist_ok=True)
        if not is_warm(folder):
            install_shipped(folder)
        with open(os.path.join(folder, LAST_USED), "w") as fh:
            fh.write(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        prune(os.path.dirname(folder), PRUNE_AFTER_DAYS, keep=folder)


def _light_load_fits(caching) -> bool:
    import numba

    try:
        from numba.core.runtime import rtsys
    except ImportError:
        return False
    return numba.__version__.startswith(LIGHT_LOAD_NUMBA) and \
        hasattr(rtsys, "initialize") and \
        hasattr(caching.Cache, "_guard_against_spurious_io_errors") and \
        hasattr(caching.Cache, "_load_overload")


# ---------------------------------------------------------------- warm or cold
def is_warm(folder: str | None = None) -> bool:
    """True once every kernel was compiled into (or copied to) the folder."""
    return os.path.exists(os.path.join(folder or _active_dir(), WARM_MARKER))


def mark_warm(folder: str | None = None):
    with contextlib.suppress(OSError):
        with open(os.path.join(folder or _active_dir(), WARM_MARKER), "w") as fh:
            fh.write(version_tag())


def compile_notice() -> str | None:
    """The one line to show before a bake that will compile the kernels, else None. When
    another process is compiling them (:func:`compiling`), waits for it first (saying so
    on stderr): the bake then loads them instead of compiling them a second time."""
    if not is_warm():
        install_shipped(_active_dir())
    if is_warm():
        return None
    if wait_for_compiler():
        return None  # what a bake uses is compiled now (see warm_up)
    return (f"compiling NavJump kernels, first run only, ~{COMPILE_SECONDS_ESTIMATE} s "
            f"(cache: {_active_dir()})")


# ---------------------------------------------------------------- one compiler at a time
# A process compiling every kernel (warm_up: `cache --warm`, the demo's background job)
# holds an exclusive lock on <folder>/compiling.lock; a bake in another process that would
# compile waits for it and then loads. POSIX only (elsewhere nobody waits: both compile,
# as before). The lock goes with its process, even a killed one.
COMPILE_LOCK = "compiling.lock"
WAIT_SECONDS = 900  # a compiler that takes longer is not waited for: the bake compiles


@contextlib.contextmanager
def compiling(folder: str | None = None):
    """Hold the folder's compile lock while compiling (waits while another process holds
    it). Re-entrant within a process."""
    if _state["compiling"]:
        yield
        return
    fh = None
    with contextlib.suppress(ImportError, OSError):  # no fcntl (Windows): nobody waits
        import fcntl

        path = os.path.join(folder or _active_dir(), COMPILE_LOCK)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fh = open(path, "a+")
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
    _state["compiling"] = True
    try:
        yield
    finally:
        _state["compiling"] = False
        if fh is not None:
            fh.close()  # releases the lock


def wait_for_compiler(folder: str | None = None, timeout: float = WAIT_SECONDS,
                      log=None) -> bool:
    """When another process holds the folder's compile lock, wait until it lets go (at
    most ``timeout`` s); True if it waited and the lock was let go. ``log(line)``: default
    one line on stderr."""
    if _state["compiling"]:
        return False
    try:
        import fcntl
    except ImportError:
        return False
    path = os.path.join(folder or _active_dir(), COMPILE_LOCK)
    try:
        fh = open(path, "a+")
    except OSError:
        return False
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False  # nobody compiling
        except OSError:
            pass
        fh.seek(0)
        pid = fh.read().strip()
        line = (f"waiting for the NavJump kernels that another process (pid {pid or '?'}) "
                f"is compiling (cache: {os.path.dirname(path)})")
        if log is None:
            print(line, file=sys.stderr, flush=True)
        else:
            log(line)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.2)
            try:
                fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return True
            except OSError:
                continue
        return False


def _cached_kernels(folder: str) -> list[tuple[str, str]]:
    """(module, function) of every kernel with an index in the folder, in the order they
    were written (first compiled first: a bake's own order)."""
    found = []
    core = os.path.join(folder, "core")
    for base, _dirs, files in os.walk(core):
        sub = os.path.relpath(base, core).replace(os.sep, ".")
        for name in files:
            if not name.endswith(".nbi"):
                continue
            stem = name.split("-", 1)[0]  # "<module>.<function>-<line>.py311.nbi"
            module, _, function = stem.rpartition(".")
            if module and function:
                path = os.path.join(base, name)
                with contextlib.suppress(OSError):
                    found.append((os.stat(path).st_mtime_ns, name,
                                  module if sub == "." else f"{sub}.{module}", function))
    return [(module, function) for _t, _n, module, function in sorted(found)]


def _code_names(code) -> set:
    """Global names a function's code (and the functions nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _core_modules() -> list:
    """Every module of the core package, imported (importing compiles nothing)."""
    import importlib
    import pkgutil

    modules = [importlib.import_module(CORE_PACKAGE)]
    for info in pkgutil.walk_packages([CORE_DIR], prefix=CORE_PACKAGE + "."):
        with contextlib.suppress(ImportError):
            modules.append(importlib.import_module(info.name))
    return modules


def _names_used_from_python() -> set:
    """Global and attribute names the plain Python code of the core refers to: module-level
    functions, methods and the functions nested in them (kernels themselves excluded)."""
    from numba.core.registry import CPUDispatcher

    names: set = set()

    def visit(value, module_name, depth=0):
        if isinstance(value, CPUDispatcher):
            return
        code = getattr(value, "__code__", None)
        if code is not None and getattr(value, "__module__", None) == module_name:
            names.update(_code_names(code))
        elif isinstance(value, type) and value.__module__ == module_name and depth == 0:
            for member in vars(value).values():
                if isinstance(member, property):
                    for accessor in (member.fget, member.fset, member.fdel):
                        visit(accessor, module_name, 1)
                else:
                    visit(getattr(member, "__func__", member), module_name, 1)

    for module in _core_modules():
        for value in list(vars(module).values()):
            visit(value, module.__name__)
    return names


def kernels_to_load(dispatchers: list) -> list:
    """The kernels of ``dispatchers`` that :func:`preload` loads, in their order.

    A kernel called only by other kernels is inside their machine code: loading it alone
    would be wasted (most cached functions are such helpers). One that plain Python code
    anywhere in the core also calls (through a module global, a local import or an
    attribute) is loaded: the bake calls it directly, whichever kernels are cached beside
    it.
    """
    from numba.core.registry import CPUDispatcher

    called: set[int] = set()
    for dispatcher in dispatchers:
        scope = dispatcher.py_func.__globals__
        called.update(id(scope[name]) for name in dispatcher.py_func.__code__.co_names
                      if isinstance(scope.get(name), CPUDispatcher))
    names = _names_used_from_python()
    return [d for d in dispatchers if id(d) not in called or d.py_func.__name__ in names]


def preload(stop=None) -> dict:
    """Load every kernel cached in this version's folder into this process, compiling
    nothing: a later bake or path query then starts at once. ``stop()`` True ends it early.
    Returns ``{"loaded": n, "seconds": s}``. Safe beside a running bake (numba's compile
    lock serialises the loads)."""
    import importlib

    t0 = time.perf_counter()
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import CPUDispatcher

    dispatchers = []
    for module_name, function in _cached_kernels(_active_dir()):
        try:
            module = importlib.import_module(f"{CORE_PACKAGE}.{module_name}")
        except ImportError:
            continue
        dispatcher = getattr(module, function, None)
        if isinstance(dispatcher, CPUDispatcher) and dispatcher not in dispatchers:
            dispatchers.append(dispatcher)
    loaded = 0
    for dispatcher in kernels_to_load(dispatchers):
        if stop is not None and stop():
            break
        cache = getattr(dispatcher, "_cache", None)
        if cache is None:
            continue
        index = getattr(cache, "_cache_file", None)
        try:
            keys = list(index._load_index()) if index is not None else []
        except Exception:  # noqa: BLE001 - an unreadable index: the bake compiles it
            continue
        for sig, _magic, _code in keys:
            with global_compiler_lock:
                if tuple(sig) in dispatcher.overloads:
                    continue
                cres = cache.load_overload(sig, dispatcher.targetctx)
                if cres is None:
                    continue  # another CPU or stale: compiled when a bake needs it
                dispatcher._cache_hits[sig] += 1
                if not cres.objectmode:
                    dispatcher.targetctx.insert_user_function(cres.entry_point, cres.fndesc,
                                                              [cres.library])
                dispatcher.add_overload(cres)
                loaded += 1
    return {"loaded": loaded, "seconds": time.perf_counter() - t0}


def warm_up(progress=None) -> float:
    """Compile (or load) every kernel a bake and the path queries use; seconds taken.

    Bakes a small scene with stances, links and detail (the default watershed partition),
    builds a climb graph on it, answers path queries (with and without climbing) on it, then
    bakes it again with the monotone partition. ``progress(fraction)`` is called between
    steps. Holds the compile lock (:func:`compiling`) until the queries are compiled: a bake
    in another process waits for what a default bake (the demo level climbs) and a path
    query use, then loads it, while this one goes on with the monotone partition's few
    kernels.
    """
    from . import bake
    from .query import AgentFilter, find_path, find_paths, query_for, random_navmesh_points
    from .settings import BakeSettings
    from .warmup_scene import warmup_scene

    t0 = time.perf_counter()
    vertices, triangles = warmup_scene()

    def bake_with(partition: str):
        return bake(vertices, triangles, BakeSettings(
            partition=partition, multi_stance=True, links_enabled=True, cell_size=0.25,
            cell_height=0.1).validate())

    def report(fraction: float):
        if progress is not None:
            progress(fraction)

    with compiling():
        navmesh = bake_with("watershed")
        report(1 / 3)
        # climbing: the climb graph's kernels, then queries that plan through it
        from .climb import add_climbing, climb_transits
        from .warmup_scene import warmup_climb_items

        navmesh, _warnings = add_climbing(navmesh, warmup_climb_items(), vertices, triangles,
                                          BakeSettings(climbing_enabled=True))
        climb_transits(navmesh)  # the Detour export's ways through the climb graph
        query = query_for(navmesh)
        pts = random_navmesh_points(navmesh, 8, rng=0)
        find_paths(query, pts[:4], pts[4:], on_error="status")
        find_paths(query, pts[:4], pts[4:], AgentFilter(), on_error="status")
        find_paths(query, pts[:4], pts[4:], AgentFilter(abilities=()), on_error="status")
        with contextlib.suppress(ValueError):
            find_path(query, pts[0], pts[-1])
        report(2 / 3)
    bake_with("monotone")
    mark_warm()
    report(1.0)
    return time.perf_counter() - t0


def kernel_stats(modules=None) -> dict:
    """Cache hits and misses of every NavJump kernel compiled in this process:
    ``{"hits": n, "misses": n, "kernels": {qualname: (hits, misses)}}`` (numba's own
    dispatcher statistics; a miss is a compile)."""
    from numba.core.registry import CPUDispatcher

    prefix = CORE_PACKAGE + "."
    seen, kernels = set(), {}
    for name, module in list(sys.modules.items()):
        if modules is not None and name not in modules:
            continue
        if module is None or not (name == CORE_PACKAGE or name.startswith(prefix)):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, CPUDispatcher) and id(value) not in seen:
                seen.add(id(value))
                stats = value.stats
                hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
                if hits or misses:
                    kernels[f"{value.py_func.__module__}.{value.py_func.__qualname__}"] = (
                        hits, misses)
    return {"hits": sum(h for h, _ in kernels.values()),
            "misses": sum(m for _, m in kernels.values()), "kernels": kernels}
