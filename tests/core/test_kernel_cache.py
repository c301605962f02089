"""NavJump's kernel cache: keyed by the content of the core's sources, one folder per user
and version, shared by every module name the core is imported under, pruned by age or on
request, shipped kernels checked before use.

The cross-process tests run the path-query kernels only (a few seconds once they are
cached in the session's kernel root, which the query tests fill anyway)."""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from blender_navjump.core import kernel_cache

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _write(path, text, mtime_ns):
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


# ---------------------------------------------------------------- the key
def test_fingerprint_follows_content_not_mtime_or_place(tmp_path):
    src = tmp_path / "a"
    (src / "sub").mkdir(parents=True)
    _write(src / "a.py", "x = 1\n", 1_000_000_000)
    _write(src / "sub" / "b.py", "y = 2\n", 1_000_000_000)
    first = kernel_cache.source_fingerprint(str(src))
    assert len(first) == kernel_cache.FINGERPRINT_LENGTH
    # a touched file (fresh clone, unzip) keeps the key
    _write(src / "sub" / "b.py", "y = 2\n", 2_000_000_000)
    assert kernel_cache.source_fingerprint(str(src)) == first
    # the same tree elsewhere has the same key
    other = tmp_path / "elsewhere" / "core"
    shutil.copytree(src, other)
    assert kernel_cache.source_fingerprint(str(other)) == first
    # an edit in a file a kernel only calls into changes it
    _write(src / "sub" / "b.py", "y = 3\n", 2_000_000_000)
    assert kernel_cache.source_fingerprint(str(src)) != first
    # moving code between files changes it too
    _write(src / "sub" / "b.py", "y = 2\n", 2_000_000_000)
    (src / "sub" / "b.py").rename(src / "c.py")
    assert kernel_cache.source_fingerprint(str(src)) != first
    # caches and non-Python files do not count
    (src / "sub" / "b.py").write_text("y = 2\n")
    (src / "c.py").unlink()
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "c.py").write_text("z\n")
    (src / "notes.txt").write_text("n\n")
    # nor the cache machinery: it holds no kernels
    (src / "kernel_cache.py").write_text("# cache code\n")
    assert kernel_cache.source_fingerprint(str(src)) == first
    (src / "sub" / "kernel_cache.py").write_text("# a kernel module of that name\n")
    assert kernel_cache.source_fingerprint(str(src)) != first


def test_folder_is_per_user_numba_python_and_sources(tmp_path, monkeypatch):
    monkeypatch.delenv(kernel_cache.ROOT_ENV, raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert kernel_cache.default_root() == str(tmp_path / "navjump" / "kernels")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert kernel_cache.default_root() == str(tmp_path / "numba" / "navjump")
    monkeypatch.setenv(kernel_cache.ROOT_ENV, str(tmp_path / "mine"))
    folder = pathlib.Path(kernel_cache.cache_dir())
    assert folder.parent == tmp_path / "mine"
    import numba

    assert folder.name == (f"numba{numba.__version__}-py{sys.version_info[0]}."
                           f"{sys.version_info[1]}-{kernel_cache.source_fingerprint()}")
    assert kernel_cache.is_cache_folder(folder.name)


# ---------------------------------------------------------------- pruning
def _folder(root, fingerprint, days_unused):
    name = f"numba0.68.1-py3.11-{fingerprint}"
    folder = root / name
    (folder / "core").mkdir(parents=True)
    (folder / "core" / "k.nbi").write_bytes(b"x")
    marker = folder / kernel_cache.LAST_USED
    marker.write_text("")
    t = time.time() - days_unused * 86400
    os.utime(marker, (t, t))
    return folder


def test_prune_by_age_keeps_recent_and_current_and_foreign_folders(tmp_path):
    old = _folder(tmp_path, "0" * 16, 40)
    recent = _folder(tmp_path, "1" * 16, 2)
    current = _folder(tmp_path, "2" * 16, 90)
    notes = tmp_path / "user-notes"
    notes.mkdir()
    removed = kernel_cache.prune(str(tmp_path), 30, keep=str(current))
    assert removed == [str(old)]
    assert recent.exists() and current.exists() and notes.exists() and not old.exists()
    # another checkout running does not evict anything: only age or an explicit prune
    assert kernel_cache.prune(str(tmp_path), 30, keep=str(current)) == []
    assert sorted(kernel_cache.prune(str(tmp_path), None, keep=str(current))) == [str(recent)]
    assert kernel_cache.prune(str(tmp_path), None) == [str(current)]
    assert notes.exists()
    assert kernel_cache.prune(str(tmp_path / "missing"), None) == []


def test_cache_command_lists_prunes_and_clears(tmp_path):
    root = tmp_path / "root"
    _folder(root, "3" * 16, 40)
    _folder(root, "4" * 16, 1)
    env = dict(os.environ, **{kernel_cache.ROOT_ENV: str(root)})

    def run(*args):
        proc = subprocess.run([sys.executable, "-m", "blender_navjump", "cache", *args],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    listing = run()
    assert str(root) in listing and "3" * 16 in listing and "4" * 16 in listing
    assert "removed 1 kernel folder" in run("--prune", "30")
    assert "3" * 16 not in run()
    assert "removed 1 kernel folder" in run("--prune")
    _folder(root, "5" * 16, 0)
    assert "removed 1 kernel folder" in run("--clear")
    assert not [p for p in root.iterdir() if kernel_cache.is_cache_folder(p.name)]
    bad = subprocess.run([sys.executable, "-m", "blender_navjump", "cache", "--prune", "-1"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "DAYS" in bad.stderr


@pytest.mark.parametrize("after", [5.0, 25.0])
def test_ctrl_c_while_cache_warm_compiles_exits_130_at_once(tmp_path, after):
    """``cache --warm`` into an empty folder, Ctrl-C some seconds into the compile: exit
    130 with one line, and the folder is left partial (what was compiled stays).
    Before the compile ran in a worker thread (as a bake's does), the interrupt landed
    inside numba's compiler on the main thread: of eleven runs, two hung and one crashed
    (SIGSEGV)."""
    root = tmp_path / "root"
    env = dict(os.environ, **{kernel_cache.ROOT_ENV: str(root),
                              kernel_cache.INSTALL_SHIPPED_ENV: "0"})
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.Popen([sys.executable, "-m", "blender_navjump", "cache", "--warm"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    notice = proc.stderr.readline()
    assert notice.startswith("compiling NavJump kernels"), notice
    time.sleep(after)
    assert proc.poll() is None, "the compile ended before the signal"
    proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("cache --warm still ran 120 s after Ctrl-C")
    assert proc.returncode == 130, (proc.returncode, stderr)
    assert stderr.strip() == ("navjump: interrupted (Ctrl-C); the kernels compiled so far "
                              "stay in the cache")
    assert stdout == ""
    folders = [p for p in root.iterdir() if kernel_cache.is_cache_folder(p.name)]
    assert len(folders) == 1 and not kernel_cache.is_warm(str(folders[0]))


# ---------------------------------------------------------------- shipped kernels
def _shipped(tmp_path, **changes):
    import llvmlite
    import numba

    info = {"fingerprint": kernel_cache.source_fingerprint(), "numba": numba.__version__,
            "llvmlite": llvmlite.__version__,
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
            "platform": kernel_cache.platform_tag(),
            "magic": ["x86_64-unknown-linux-gnu", "generic", ""]}
    info.update(changes)
    folder = tmp_path / "kernels" / kernel_cache.platform_tag()
    (folder / "core" / "query").mkdir(parents=True, exist_ok=True)
    (folder / "core" / "query" / "batch_kernel.k-1.py311.nbi").write_bytes(b"index")
    (folder / "core" / "query" / "batch_kernel.k-1.py311.1.nbc").write_bytes(b"data")
    (folder / kernel_cache.SHIPPED_MANIFEST).write_text(json.dumps(info))
    return str(tmp_path / "kernels")


@pytest.mark.parametrize("key, value, reason", [
    ("numba", "0.1.0", "numba"), ("llvmlite", "0.1.0", "llvmlite"),
    ("python", "2.7", "python"), ("fingerprint", "f" * 16, "fingerprint"),
    ("platform", "amiga-68k", "platform"),
    ("magic", ["x86_64-unknown-linux-gnu", "skylake", "+avx2"], "target"),
])
def test_shipped_kernels_that_do_not_fit_are_not_used(tmp_path, key, value, reason):
    shipped = _shipped(tmp_path, **{key: value})
    why = []
    assert kernel_cache.shipped_info(shipped, why) is None
    assert reason in why[0]
    target = tmp_path / "user"
    assert kernel_cache.install_shipped(str(target), shipped) == 0
    assert not target.exists()


def test_shipped_kernels_that_fit_are_copied_once(tmp_path, monkeypatch):
    shipped = _shipped(tmp_path)
    assert kernel_cache.shipped_info(shipped)["magic"][1] == kernel_cache.PORTABLE_CPU
    target = tmp_path / "user"
    monkeypatch.setenv(kernel_cache.INSTALL_SHIPPED_ENV, "0")  # turned off: nothing copied
    assert kernel_cache.install_shipped(str(target), shipped) == 0
    assert not target.exists()
    monkeypatch.delenv(kernel_cache.INSTALL_SHIPPED_ENV)
    assert kernel_cache.install_shipped(str(target), shipped) == 2
    assert (target / "core" / "query" / "batch_kernel.k-1.py311.1.nbc").read_bytes() == b"data"
    assert kernel_cache.is_warm(str(target))
    # a kernel compiled here since is never overwritten by the shipped one
    (target / "core" / "query" / "batch_kernel.k-1.py311.1.nbc").write_bytes(b"mine")
    assert kernel_cache.install_shipped(str(target), shipped) == 0
    assert (target / "core" / "query" / "batch_kernel.k-1.py311.1.nbc").read_bytes() == b"mine"
    assert kernel_cache.shipped_info(str(tmp_path / "none"), why := []) is None
    assert "no shipped kernels" in why[0]


# ---------------------------------------------------------------- where kernels really go
QUERY_RUN = r"""
import importlib, json, os, sys
package = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import navmesh_builders
build = navmesh_builders.for_package(package)
query = importlib.import_module(package + ".core.query")
kc = importlib.import_module(package + ".core.kernel_cache")
verts = [(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0), (8, 0, 0), (8, 4, 0)]
nm = build.navmesh_from_polygons(verts, [[0, 1, 2, 3], [1, 4, 5, 2]])
path = query.find_path(nm, (0.5, 0.5, 0), (7.5, 3.5, 0))
solve = importlib.import_module(package + ".core.query.batch_kernel")
from numba.core.registry import CPUDispatcher
paths = sorted({d._cache.cache_path for d in vars(solve).values()
                if isinstance(d, CPUDispatcher)})
stats = kc.kernel_stats()
print("RESULT " + json.dumps({"found": bool(path.found), "length": float(path.length),
      "dir": kc.active_dir(), "paths": paths, "hits": stats["hits"],
      "misses": stats["misses"], "modules": sorted(stats["kernels"])}))
"""


def _run_query(package, env, sys_path):
    env = dict(env, PYTHONPATH=os.pathsep.join(sys_path))
    proc = subprocess.run([sys.executable, "-c", QUERY_RUN, package, str(ROOT / "tests")], env=env,
                          capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][7:])


def _extension_copy(tmp_path, repo_name):
    """A folder where the core is ``bl_ext.<repo_name>.blender_navjump`` (a link to the
    sources), as Blender imports an installed extension."""
    ext_root = tmp_path / "ext"
    repo = ext_root / "bl_ext" / repo_name
    repo.mkdir(parents=True)
    (ext_root / "bl_ext" / "__init__.py").write_text("")
    (repo / "__init__.py").write_text("")
    os.symlink(ROOT / "blender_navjump", repo / "blender_navjump")
    return ext_root


def test_query_kernels_cache_in_the_user_folder_under_any_module_name(tmp_path):
    """The kernels compiled by the command line (``blender_navjump.core``) are loaded, not
    recompiled, by the same core imported as a Blender extension module
    (``bl_ext.<repo>.blender_navjump.core``) from another path: numba's own statistics
    count cache hits only, and its cache files are in the user folder."""
    t0 = time.time() - 1
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    first = _run_query("blender_navjump", env, [str(ROOT)])
    assert first["found"] and first["length"] == pytest.approx(58 ** 0.5, rel=1e-6)
    folder = pathlib.Path(first["dir"])
    assert folder.parent == pathlib.Path(kernel_cache.default_root())
    assert first["paths"] == [str(folder / "core" / "query")]
    assert list((folder / "core" / "query").glob("batch_kernel.*.nbi"))
    # the same sources under the extension's module name, reached through another path
    ext_root = _extension_copy(tmp_path, "navjump_check")
    second = _run_query("bl_ext.navjump_check.blender_navjump", env, [str(ext_root)])
    assert second["found"] and second["length"] == pytest.approx(first["length"])
    assert second["dir"] == first["dir"]
    assert second["misses"] == 0 and second["hits"] > 0, second
    assert all(m.startswith("bl_ext.navjump_check.blender_navjump.core.query.")
               for m in second["modules"])
    in_tree = ROOT / "blender_navjump" / "core" / "query" / "__pycache__"
    assert not [p for p in in_tree.glob("*.nbi") if p.stat().st_mtime >= t0]


# ---------------------------------------------------------------- the one status line
def test_cli_says_once_that_it_compiles(tmp_path):
    """The first bake into a kernel folder prints the one "compiling" line on stderr; the
    next does not. (The folder starts as a copy of this session's kernels without the
    "warm" mark, so the bake loads rather than compiles; the checkout's kernel pack is not
    unpacked into it, see test_kernel_pack for that.)"""
    session = pathlib.Path(kernel_cache.cache_dir())
    folder = tmp_path / "root" / session.name
    if session.is_dir():
        shutil.copytree(session, folder, ignore=shutil.ignore_patterns(
            kernel_cache.WARM_MARKER, kernel_cache.LAST_USED, "*.tmp.*"))
    obj = tmp_path / "floor.obj"
    obj.write_text("v 0 0 0\nv 6 0 0\nv 6 6 0\nv 0 6 0\nf 1 2 3\nf 1 3 4\n")
    env = dict(os.environ, **{kernel_cache.ROOT_ENV: str(tmp_path / "root"),
                              kernel_cache.INSTALL_SHIPPED_ENV: "0"})

    def bake():
        proc = subprocess.run([sys.executable, "-m", "blender_navjump", "bake", str(obj),
                               "--out", str(tmp_path / "out.json"), "--quiet"], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr

    first = bake()
    assert first.count("compiling NavJump kernels, first run only, ~") == 1
    assert str(folder) in first
    assert kernel_cache.is_warm(str(folder))
    assert "compiling" not in bake()


# ---------------------------------------------------------------- loading kernels cheaply
def _private_root(tmp_path):
    """A kernel root holding a copy of this session's kernels (when there are any)."""
    session = pathlib.Path(kernel_cache.cache_dir())
    folder = tmp_path / "root" / session.name
    if session.is_dir():
        shutil.copytree(session, folder, ignore=shutil.ignore_patterns("*.tmp.*"))
    return tmp_path / "root", folder


LAZY_RUN = r"""
import json, sys
import numba, numpy as np
from blender_navjump.core import kernel_cache as kc
from blender_navjump.core.geometry import used_vertex_bounds
verts = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [5, 5, 5], [9, 9, 9]], np.float64)
tris = np.array([[0, 1, 2], [2, 3, 0]], np.int32)
first = used_vertex_bounds(verts, tris)[1].tolist()
lib = used_vertex_bounds.overloads[used_vertex_bounds.signatures[0]].library
lazy = "_navjump_bitcode" in lib.__dict__
# numba's lowering registries (imported by a context refresh) are not needed to load
registries = "numba.np.linalg" in sys.modules

@numba.njit
def caller(v, t):  # compiled here: links the cached kernel's bitcode in
    return used_vertex_bounds(v, t)[1].sum()

linked = int(caller(verts, tris))
stats = kc.kernel_stats()
print("RESULT " + json.dumps({"first": first, "lazy": lazy, "linked": linked,
      "parsed_after_link": lib._shared_module is not None, "hits": stats["hits"],
      "misses": stats["misses"], "registries_on_load": registries}))
"""


def _run(script, env, *args):
    proc = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][7:])


def test_cached_kernels_load_without_parsing_their_bitcode(tmp_path):
    """A cached kernel is loaded with the names it defines read from its .sym file (and
    without numba's context refresh); its bitcode is parsed only when a kernel compiled
    later links it in, and a .sym that does not match its .nbc is not believed."""
    root, folder = _private_root(tmp_path)
    env = dict(os.environ, **{kernel_cache.ROOT_ENV: str(root)})
    env.pop("PYTHONPATH", None)
    _run(LAZY_RUN, env)  # compiles used_vertex_bounds if this session never did
    syms = sorted((folder / "core").glob("geometry.used_vertex_bounds-*.nbc.sym"))
    assert syms
    record = json.loads(syms[0].read_text())
    assert len(record["sha1"]) == 40 and \
        any("used_vertex_bounds" in n for n in record["symbols"])
    run = _run(LAZY_RUN, env)
    # the kernel (which allocates: numba's runtime) ran after a load that imported none of
    # numba's compiler registries, and a kernel compiled next still links it in
    assert run == {"first": [1.0, 1.0, 0.0], "lazy": True,
                   "linked": 2, "parsed_after_link": True, "hits": 1, "misses": 0,
                   "registries_on_load": False}
    # a stale .sym (the .nbc compiled again since) is ignored and rewritten
    for sym in syms:
        sym.write_text(json.dumps({"sha1": "0" * 40, "symbols": ["nothing"]}))
    assert _run(LAZY_RUN, env)["hits"] == 1
    assert json.loads(syms[0].read_text()) == record



def test_a_lookup_of_numba_before_its_import_keeps_the_kernel_folder(tmp_path):
    """The core imported first, then ``importlib.util.find_spec("numba")`` (what the
    command line's check that numba is installed does), then numba imported: the kernels
    still load from NavJump's folder, light (before the fix the lookup used up the hook
    that sets that up: the bake loaded from numba's own cache, 0.3 s slower)."""
    root, _ = _private_root(tmp_path)
    env = dict(os.environ, **{kernel_cache.ROOT_ENV: str(root)})
    env.pop("PYTHONPATH", None)
    head = "import numba, numpy as np\nfrom blender_navjump.core import kernel_cache as kc\n"
    assert head in LAZY_RUN
    script = LAZY_RUN.replace(head, "from blender_navjump.core import kernel_cache as kc\n"
                              "import importlib.util\n"
                              "assert importlib.util.find_spec('numba') is not None\n"
                              "import numba, numpy as np\n")
    _run(script, env)  # compiles used_vertex_bounds if this session never did
    run = _run(script, env)
    assert (run["lazy"], run["hits"], run["misses"]) == (True, 1, 0)

PRELOAD_RUN = r"""
import json, sys
from blender_navjump.core import kernel_cache as kc
sys.path.insert(0, "tests")
import navmesh_builders as build
from blender_navjump.core.query import find_path
verts = [(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0), (8, 0, 0), (8, 4, 0)]
nm = build.navmesh_from_polygons(verts, [[0, 1, 2, 3], [1, 4, 5, 2]])
preloaded = kc.preload() if sys.argv[1] == "preload" else {"loaded": 0}
before = kc.kernel_stats()
path = find_path(nm, (0.5, 0.5, 0), (7.5, 3.5, 0))
after = kc.kernel_stats()
print("RESULT " + json.dumps({"loaded": preloaded["loaded"], "length": path.length,
      "before": [before["hits"], before["misses"]], "after": [after["hits"], after["misses"]]}))
"""


def test_preload_loads_what_a_query_needs_and_compiles_nothing(tmp_path):
    """After ``preload`` a path query neither compiles nor loads a kernel: everything it
    calls was loaded from the cache (numba's own statistics)."""
    root, _folder = _private_root(tmp_path)
    env = dict(os.environ, **{kernel_cache.ROOT_ENV: str(root)})
    env.pop("PYTHONPATH", None)
    plain = _run(PRELOAD_RUN, env, "plain")  # fills the cache when the session did not
    assert plain["length"] == pytest.approx(58 ** 0.5, rel=1e-6)
    run = _run(PRELOAD_RUN, env, "preload")
    assert run["loaded"] > 0
    assert run["before"][1] == 0  # preload compiled nothing
    assert run["after"] == run["before"], run  # the query added no load and no compile
    assert run["length"] == pytest.approx(plain["length"])


def test_preload_keeps_a_kernel_python_calls_whatever_else_is_cached():
    """A kernel the bake calls from Python is loaded even when a cached kernel calls it too
    (a folder that also holds the tiled bake's kernels): ``footprint_cell_bound`` is called
    by ``tiles._core_kernel`` and, through a local import, by ``settings``. A helper only
    kernels call (``tiles._core_compact``) is left inside its caller's machine code."""
    from blender_navjump.core import geometry, rasterize, tiles

    cached = [tiles._core_kernel, geometry.footprint_cell_bound,
              rasterize.rasterize_kernel, tiles._core_compact]
    chosen = kernel_cache.kernels_to_load(cached)
    assert geometry.footprint_cell_bound in chosen
    assert rasterize.rasterize_kernel in chosen  # the plain bake calls it from Python
    assert tiles._core_kernel in chosen
    assert tiles._core_compact not in chosen
    assert chosen == [d for d in cached if d in chosen]  # in the cache's order


# ---------------------------------------------------------------- one compiler at a time
HOLD_LOCK = r"""
import sys, time
from blender_navjump.core import kernel_cache as kc
with kc.compiling(sys.argv[1]):
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold_lock(folder, seconds):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(folder), str(seconds)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


def test_a_bake_waits_for_another_process_compiling(tmp_path):
    """While another process holds a kernel folder's compile lock, wait_for_compiler (which
    compile_notice calls before a bake that would compile) waits for it and says for whom;
    with nobody compiling it returns at once."""
    assert not kernel_cache.wait_for_compiler(str(tmp_path))
    holder = _hold_lock(tmp_path, 1.5)
    lines = []
    t0 = time.monotonic()
    assert kernel_cache.wait_for_compiler(str(tmp_path), log=lines.append)
    assert time.monotonic() - t0 > 0.5
    assert holder.wait(timeout=60) == 0
    assert len(lines) == 1 and f"pid {holder.pid}" in lines[0] and str(tmp_path) in lines[0]
    assert not kernel_cache.wait_for_compiler(str(tmp_path))


def test_a_killed_compiler_is_not_waited_for(tmp_path):
    """The lock goes with its process: a compiler killed midway frees the waiting bake
    (which then compiles itself) long before the wait's time limit."""
    holder = _hold_lock(tmp_path, 600)
    threading.Timer(0.5, holder.kill).start()
    t0 = time.monotonic()
    assert kernel_cache.wait_for_compiler(str(tmp_path), log=lambda line: None)
    assert time.monotonic() - t0 < 30
    holder.wait(timeout=60)


WARM_RUN = r"""
import importlib, json, sys
package, block = sys.argv[1], sys.argv[2] == "block"


class NoPlainCore:
    # inside Blender the core is ``bl_ext.<repo>.blender_navjump`` and no plain
    # ``blender_navjump`` exists: a kernel that needs that name must fail here
    def find_spec(self, name, path=None, target=None):
        if name == "blender_navjump" or name.startswith("blender_navjump."):
            raise ImportError("a kernel imported the plain core: " + name)


if block:
    sys.meta_path.insert(0, NoPlainCore())
kc = importlib.import_module(package + ".core.kernel_cache")
kc.warm_up()
stats = kc.kernel_stats()
print("RESULT " + json.dumps({"hits": stats["hits"], "misses": stats["misses"],
      "compiled": sorted(k for k, (h, m) in stats["kernels"].items() if m)}))
"""


def test_kernels_load_under_the_extension_name(tmp_path):
    """Every kernel of a bake with stances, links and climbing and of the path queries
    (``warm_up``), compiled under ``blender_navjump`` (as the shipped pack is), loads
    under the extension's module name with no plain ``blender_navjump`` importable: no
    compile, no import of the plain name (a kernel returning a named tuple to Python
    refers to its class by module name: inside Blender that was a crash)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ext_root = _extension_copy(tmp_path, "navjump_warm")
    results = []
    for package, path, block in (("blender_navjump", ROOT, "no"),
                                 ("bl_ext.navjump_warm.blender_navjump", ext_root, "block")):
        proc = subprocess.run([sys.executable, "-c", WARM_RUN, package, block],
                              env=dict(env, PYTHONPATH=str(path)), cwd=tmp_path,
                              capture_output=True, text=True, timeout=900)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        assert proc.returncode == 0 and lines, (package, proc.returncode, proc.stderr[-3000:])
        results.append(json.loads(lines[-1][7:]))
    extension = results[1]
    assert extension["misses"] == 0 and extension["hits"] > 50, extension["compiled"]
