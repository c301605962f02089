"""Command line without Blender: ``bake`` an OBJ, query a ``path`` on a baked navmesh.

Every failure the user can fix prints one line ``error: ...`` on stderr and exits 2;
no output file is left behind. Ctrl-C prints one line and exits 130, with nothing written.
A bake that gives no polygon writes its (empty) files, prints a ``warning: ...`` line
naming the likely causes and exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import threading
import time

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for a Ctrl-C
REQUIRED_MODULES = ("numpy", "numba")

# Flags that map straight onto BakeSettings fields (beside the generic --set NAME=VALUE).
_FLAG_FIELDS = {
    "--cell-size": "cell_size",
    "--cell-height": "cell_height",
    "--agent-height": "agent_height",
    "--agent-radius": "agent_radius",
    "--max-climb": "agent_max_climb",
    "--max-slope": "agent_max_slope",
    "--partition": "partition",
    "--stand-height": "stand_height",
    "--crouch-height": "crouch_height",
    "--prone-height": "prone_height",
    "--max-jump-height": "max_jump_height",
    "--max-jump-distance": "max_jump_distance",
    "--max-drop-height": "max_drop_height",
    "--gravity": "gravity",
    "--link-sample-step": "link_sample_step",
    "--min-link-width": "min_link_width",
    "--link-search-angle": "link_search_angle",
    "--cost-drop": "cost_drop",
    "--cost-jump-across": "cost_jump_across",
    "--cost-jump-up": "cost_jump_up",
}


class CliError(Exception):
    pass


# ---------------------------------------------------------------- shared by every command
def parse_set_values(items) -> dict:
    """``["agent_radius=0.5", ...]`` (``--set``) -> ``{"agent_radius": 0.5}``; ValueError
    names the item, or the setting and its limit."""
    from .core.settings import BakeSettings

    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--set expects NAME=VALUE, got {item!r}")
        out[name] = BakeSettings.parse_value(name, text.strip())
    return out


def parse_formats(text: str) -> tuple[str, ...]:
    """``"json,OBJ"`` (``--format``) -> ``("json", "obj")``; ValueError names an unknown
    format and the allowed ones."""
    from .export import check_formats

    names = [f.strip().lower() for f in text.split(",") if f.strip()]
    if not names:
        raise ValueError("no output format given; allowed formats are json, obj, gltf, detour")
    return tuple(check_formats(names))


def _bake_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m blender_navjump bake",
        description="Bake a navmesh (with stances and jump links) from an OBJ file.")
    p.add_argument("input", help="input .obj file")
    p.add_argument("--out", required=True, help="output navjump JSON file")
    p.add_argument("--up", choices=("y", "z"), default="z",
                   help="up axis of the OBJ (y for Recast-style files; converted to Z up)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="set any BakeSettings field, e.g. --set cell_size=0.2")
    p.add_argument("--format", default="json",
                   help="comma-separated output formats: json,obj,gltf,detour "
                        "(files written beside OUT)")
    p.add_argument("--stances", default=None,
                   help="enable multi-stance layers with these stances, e.g. stand,crouch,prone")
    p.add_argument("--links", action="store_true", help="generate jump links")
    p.add_argument("--no-drop", action="store_true", help="no drop-down links")
    p.add_argument("--no-jump-across", action="store_true", help="no jump-across links")
    p.add_argument("--no-jump-up", action="store_true", help="no jump-up links")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.add_argument("--agent", action="append", default=[],
                   metavar="NAME:FIELD=VALUE[,FIELD=VALUE...]",
                   help="bake this agent too (repeatable): the settings above changed by these "
                        "BakeSettings fields (and area_cost.AREA=COST); writes "
                        "OUT.<NAME>.json (and the other formats) per agent")
    p.add_argument("--area-cost", action="append", default=[], metavar="NAME=COST",
                   help="walking-cost multiplier of an area named by a modifier volume "
                        "(repeatable; COST < 0 or inf: not walkable); stored in the navmesh")
    for flag, field in _FLAG_FIELDS.items():
        p.add_argument(flag, dest=field, default=None, metavar="VALUE",
                       help=f"BakeSettings.{field}")
    return p


def build_settings(args):
    from .core.settings import STANCES, BakeSettings

    values = parse_set_values(args.set)
    for field in _FLAG_FIELDS.values():
        text = getattr(args, field, None)
        if text is not None:
            values[field] = BakeSettings.parse_value(field, text)
    if args.stances is not None:
        names = [s.strip() for s in args.stances.split(",") if s.strip()]
        unknown = [s for s in names if s not in STANCES]
        if unknown or not names:
            raise CliError(f"--stances: unknown stance {unknown[0] if unknown else '(none)'!r}; "
                           f"choose from {', '.join(STANCES)}")
        values["multi_stance"] = True
        for s in STANCES:
            values[f"{s}_enabled"] = s in names
    if args.links:
        values["links_enabled"] = True
    if args.no_drop:
        values["drop_enabled"] = False
    if args.no_jump_across:
        values["jump_across_enabled"] = False
    if args.no_jump_up:
        values["jump_up_enabled"] = False
    return BakeSettings.from_dict({**BakeSettings().to_dict(), **values}).validate()


class _BakeThread(threading.Thread):
    """Runs ``fn`` off the main thread, so the main thread can take Ctrl-C at any moment.

    A signal handler runs only on the main thread and only between bytecodes; with a
    numba kernel on the main thread, Ctrl-C either waits for the kernel or breaks it
    (a crash or a SystemError). Here the kernel runs in this thread (numba releases the
    GIL) and the main thread waits in short, interruptible joins.
    """

    NAME = "navjump-bake"

    def __init__(self, fn, *args, **kwargs):
        super().__init__(name=self.NAME, daemon=True)
        self._call = (fn, args, kwargs)
        self.value = None
        self.error: BaseException | None = None

    def run(self):
        fn, args, kwargs = self._call
        try:
            self.value = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the main thread
            self.error = exc

    def wait(self):
        self.start()
        while self.is_alive():
            self.join(0.05)
        if self.error is not None:
            raise self.error
        return self.value


def run_interruptibly(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a worker thread; KeyboardInterrupt reaches the caller at
    once (the worker, a daemon, is abandoned: the process must exit soon after)."""
    return _BakeThread(fn, *args, **kwargs).wait()


def empty_result_warning(source) -> str:
    return (f"warning: {source}: the navmesh has 0 polygons (nothing walkable survived); "
            f"check the up axis (--up y for Y-up files such as Recast's), that floors face "
            f"up, agent_max_slope, and the agent size (agent_radius, agent_height, "
            f"cell_size) against the level")


def bake_command(argv: list[str]) -> int:
    _written.clear()
    args = _bake_parser().parse_args(argv)
    from .core.objio import read_obj_scene
    from .export import check_outputs, export_navmesh

    try:
        formats = parse_formats(args.format)
    except ValueError as exc:
        raise CliError(f"--format: {exc}") from None
    settings = build_settings(args)
    from .core.agents import Agent, agent_out_path, bake_agents, parse_agent
    from .core.areas import parse_area_costs

    costs = parse_area_costs(args.area_cost)
    agents = [parse_agent(text, settings, costs) for text in args.agent]
    outs = ({a.name: agent_out_path(args.out, a.name) for a in agents} if agents
            else {"": args.out})
    agents = agents or [Agent("", settings, costs)]
    # Everything about the outputs is checked before the (possibly long) bake.
    for out in outs.values():
        check_outputs(out, formats, inputs=[args.input])
    scene = read_obj_scene(args.input, up=args.up)
    for text in scene.warnings:  # e.g. the file seems to have another up axis
        print(f"warning: {text}", file=sys.stderr)
    vertices, triangles = scene.vertices, scene.triangles
    from .core import kernel_cache

    notice = kernel_cache.compile_notice()
    if notice:
        print(notice, file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    baked = run_interruptibly(bake_agents, vertices, triangles, agents,
                              volumes=scene.volumes, custom_links=scene.links)
    for agent in agents:
        if agent.settings.climbing_enabled and (scene.climb or agent.settings.auto_ledges):
            from .core.climb import add_climbing

            baked[agent.name], climb_warnings = run_interruptibly(
                add_climbing, baked[agent.name], scene.climb, vertices, triangles,
                agent.settings, ledge_mask=scene.ledge_mask)
            for text in climb_warnings:
                print(f"warning: {args.input}: {text}", file=sys.stderr)
    wall = time.perf_counter() - t0
    if notice:
        kernel_cache.mark_warm()
    from .export._common import all_or_nothing

    paths: dict[str, list] = {}
    with all_or_nothing():  # every agent's files, or none
        for agent in agents:
            paths[agent.name] = export_navmesh(baked[agent.name], outs[agent.name], formats,
                                               inputs=[args.input])
    for agent in agents:
        nm = baked[agent.name]
        _written.extend(paths[agent.name])
        who = f"{args.input} (agent {agent.name})" if agent.name else args.input
        if nm.polygon_count == 0:
            print(empty_result_warning(who), file=sys.stderr)
        if not args.quiet:
            s = nm.stats
            by = s.get("polygons_by_stance", {})
            print(f"baked {who}: {s['polygons']} polygons "
                  f"({', '.join(f'{k} {v}' for k, v in by.items() if v)}), "
                  f"{s['walkable_area_m2']:.1f} m2, {nm.link_count} links, "
                  + (f"{nm.climb_element_count} climb elements, "
                     if nm.climb_element_count else "")
                  + (f"{s['timings_ms']['total']:.1f} ms" if len(agents) > 1
                     else f"{wall * 1000:.1f} ms")
                  + f" -> {', '.join(str(p) for p in paths[agent.name])}")
    if len(agents) > 1 and not args.quiet:
        print(f"baked {len(agents)} agents in {wall * 1000:.1f} ms")
    return 0


def missing_dependency_message() -> str | None:
    """A one-line hint when this Python lacks numpy or numba (e.g. the system Python)."""
    missing = [m for m in REQUIRED_MODULES if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed "
            f"for {sys.executable}; run NavJump with the project's environment: "
            f".venv/bin/python -m blender_navjump ... (bash scripts/setup_env.sh creates "
            f".venv)")


_written: list = []  # outputs already in place, for the Ctrl-C message


def exit_interrupted(message: str) -> int:
    """After Ctrl-C: print ``message`` (one line) on stderr; EXIT_INTERRUPTED to return,
    or, while a bake thread still runs, end the process at once with that status (a numba
    kernel cannot be stopped; nothing of it reaches a file: outputs are written only after
    the bake returns)."""
    print(message, file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.flush()
    # CPython 3.11 marks a KeyboardInterrupt raised inside an eval/exec of source text (a
    # namedtuple or dataclass being made while the modules load) as unhandled even when it
    # is caught here, and the interpreter then ends by SIGINT (-2) instead of this status;
    # running source text again clears that mark
    exec("pass")
    if any(t.name == _BakeThread.NAME and t.is_alive() for t in threading.enumerate()):
        os._exit(EXIT_INTERRUPTED)
    return EXIT_INTERRUPTED


def _interrupted() -> int:
    done = (f"{', '.join(map(str, _written))} had already been written" if _written
            else "no output file was written")
    return exit_interrupted(f"navjump: interrupted (Ctrl-C); {done}")


def cache_command(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="python -m blender_navjump cache",
        description="Show NavJump's compiled-kernel cache; remove old or all versions.")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--prune", nargs="?", type=float, const=None, default=False,
                       metavar="DAYS",
                       help="remove the folders of other versions (only those unused for "
                            "DAYS days when given)")
    group.add_argument("--clear", action="store_true",
                       help="remove every folder, this version's too (recompiled on next use)")
    group.add_argument("--warm", action="store_true",
                       help="compile (or load) every kernel now")
    args = p.parse_args(argv)
    from .core import kernel_cache

    folder = kernel_cache.active_dir()
    root = os.path.dirname(folder)
    if args.clear:
        removed = kernel_cache.prune(root, None)
        print(f"removed {len(removed)} kernel folder(s) from {root}")
    elif args.prune is not False:
        if args.prune is not None and args.prune < 0:
            raise CliError(f"--prune: DAYS must be 0 or more, got {args.prune:g}")
        removed = kernel_cache.prune(root, args.prune, keep=folder)
        print(f"removed {len(removed)} kernel folder(s) from {root}")
    elif args.warm:
        notice = kernel_cache.compile_notice()
        if notice:
            print(notice, file=sys.stderr, flush=True)
        try:  # in a worker thread, as a bake: Ctrl-C never lands inside numba's compiler
            seconds = run_interruptibly(kernel_cache.warm_up)
        except KeyboardInterrupt:
            return exit_interrupted("navjump: interrupted (Ctrl-C); the kernels compiled "
                                    "so far stay in the cache")
        print(f"kernels ready in {seconds:.1f} s: {folder}")
    else:
        names = sorted(n for n in (os.listdir(root) if os.path.isdir(root) else [])
                       if kernel_cache.is_cache_folder(n))
        print(f"kernel cache: {root}")
        for name in names:
            path = os.path.join(root, name)
            mark = "*" if os.path.abspath(path) == os.path.abspath(folder) else " "
            state = "warm" if kernel_cache.is_warm(path) else "partial"
            print(f" {mark} {name}  {kernel_cache.folder_size(path) / 1e6:.1f} MB  {state}")
        if not names:
            print("  (empty)")
    return 0


# What each command imports on the main thread (the kernels load in the bake thread, where
# no Ctrl-C lands): imported up front while Ctrl-C is held (see interrupts.py). The stdlib
# ones: argparse's help, kernel_cache's version tag, and its copy of the shipped kernels.
_KERNEL_CACHE = ("importlib.metadata", "email.parser", "tarfile", ".core.kernel_cache")
COMMAND_MODULES = {
    "bake": ("locale", *_KERNEL_CACHE, ".core.objio", ".core.custom_links",
             ".core.areas", ".core.agents", ".export", ".export._common",
             ".export.detour", ".export.gltf", ".export.navjump_json", ".export.obj"),
    "path": ("locale", ".path_cli", ".core.navmesh", ".export.navjump_json",
             ".core.query.filter", ".core.query.path"),
    "cache": ("locale", *_KERNEL_CACHE),
}


def load_command_modules(argv: list[str]) -> None:
    """Import the modules the command in ``argv`` uses (none for help, an unknown command,
    or without numpy or numba: the command itself reports those)."""
    if not argv or {"-h", "--help"} & set(argv) or missing_dependency_message():
        return
    for name in COMMAND_MODULES.get(argv[0], ()):
        importlib.import_module(name, __package__)


def main(argv: list[str] | None = None, held=None) -> int:
    """The command line. ``held``: an ``interrupts.HeldInterrupts`` when Ctrl-C is held
    (``python -m blender_navjump``): the command's modules are loaded first, then Ctrl-C
    raises KeyboardInterrupt as usual, at once for one held while they loaded."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if held is not None:
            load_command_modules(argv)
            held.release()
        return _main(argv)
    except KeyboardInterrupt:
        return _interrupted()


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m blender_navjump {bake,path,cache} ...\n"
              "  bake IN.obj --out OUT.json [--up y|z] [--format json,obj,gltf,detour] "
              "[--set NAME=VALUE ...]\n"
              "  path NAVMESH.json --start X Y Z --goal X Y Z [--stances ...] [--no-links]\n"
              "  cache [--prune [DAYS] | --clear | --warm]")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command in ("bake", "path") and not {"-h", "--help"} & set(rest):
        missing = missing_dependency_message()
        if missing:
            print(f"error: {missing}", file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        if command == "bake":
            return bake_command(rest)
        if command == "path":
            from .path_cli import path_command

            # in a worker thread, as the bake: Ctrl-C never lands inside a query kernel
            return run_interruptibly(path_command, rest)
        if command == "cache":
            return cache_command(rest)
        raise CliError(f"unknown command {command!r}; use bake, path or cache")
    except (CliError, ValueError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"error: {msg}", file=sys.stderr)
        return EXIT_BAD_INPUT

