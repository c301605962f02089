"""One .blend file's batch bake (needs bpy and the enabled extension).

:func:`bake_file` opens a level, bakes it with its saved settings (plus an agent preset and
``--set`` values), writes the chosen formats and optionally saves the result into the
.blend, all or nothing. It always runs in the enabled extension's own copy of this module
(``bl_ext.<repo>.<id>.blender.headless``, :func:`.devload.extension_headless`). The driver
around it (options, results, summary lines, report, worker pool) needs no bpy:
:mod:`.batch`; the command lines: ``batch_cli.py``.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from pathlib import Path

from .batch import (
    BakeOptions,
    BatchError,
    apply_overrides,
    backup_blend_path,
    blend_header_problem,
    new_result,
    output_target,
)
from .stdio import stdout_to_stderr


def resolve_preset(name: str) -> str:
    """Preset file for a menu name ("Human", "large robot", "Large_robot"); BatchError
    listing the available ones otherwise."""
    from . import ops_presets

    found = ops_presets.find_preset(name)
    if found is not None:
        return found

    def key(text):
        return text.replace("_", " ").strip().lower()

    available: dict[str, str] = {}
    for directory in ops_presets.preset_dirs():
        for fname in sorted(os.listdir(directory)):
            if fname.endswith(".py"):
                available.setdefault(fname[:-3].replace("_", " "),
                                     os.path.join(directory, fname))
    for display, path in available.items():
        if key(display) == key(name):
            return path
    raise BatchError(f"unknown preset {name!r}; available presets: "
                     f"{', '.join(sorted(available)) or '(none)'}")


def _write_back(settings_pg, settings, overrides: dict):
    """Put ``--set`` values into the panel so the saved file re-bakes the same way."""
    for name in overrides:
        if name in ("cell_size", "cell_height"):
            settings_pg.auto_cell_size = False
            settings_pg.cell_size = settings.cell_size
            settings_pg.cell_height = settings.cell_height
        elif hasattr(settings_pg, name):
            value = getattr(settings, name)
            setattr(settings_pg, name, value.upper() if name == "partition" else value)


def bake_file(path, options: dict, reuse_open: bool = False) -> dict:
    """Open a .blend, bake its scene with its saved settings (+ preset, + overrides), write
    the formats, optionally store the result and save. Returns the per-file result dict;
    never raises for a per-file problem (``ok`` False and ``error`` say what happened).

    reuse_open: bake the file Blender already has open when it is ``path`` (``blender -b
    level.blend --python ...``) instead of opening it again.
    """
    opts = BakeOptions.from_dict(options)
    result = new_result(path)
    t0 = time.perf_counter()
    try:
        with stdout_to_stderr():
            _bake_into(result, Path(path), opts, reuse_open)
    except BatchError as exc:
        result["error"] = str(exc)
    except Exception as exc:  # unexpected: keep the traceback for the report
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["traceback"] = traceback.format_exc()
    result["ok"] = result["error"] is None
    result["seconds"] = time.perf_counter() - t0
    return result


def _open(path: Path, reuse_open: bool):
    import bpy

    if not path.is_file():
        raise BatchError(f"file not found: {path}")
    current = bpy.data.filepath
    if reuse_open and current and os.path.exists(current) and os.path.samefile(current, path):
        return
    try:
        bpy.ops.wm.open_mainfile(filepath=str(path.resolve()), load_ui=False)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown error"
        raise BatchError(f"cannot open the file: {first.removeprefix('Error: ')}") from None


def _bake_into(result: dict, path: Path, opts: BakeOptions, reuse_open: bool):
    import bpy

    from ..cli import run_interruptibly
    from ..core.settings import SettingsError
    from ..export import check_outputs, export_navmesh
    from . import gather as gather_mod
    from . import props, storage, summary

    phases = result["phases_s"]
    t = time.perf_counter()
    _open(path, reuse_open)
    phases["open"] = time.perf_counter() - t

    scene = bpy.context.scene
    settings_pg = getattr(scene, "navjump", None)
    if settings_pg is None:
        raise BatchError("the NavJump extension is not enabled in this Blender session")
    if opts.preset:
        preset_file = resolve_preset(opts.preset)
        bpy.ops.script.execute_preset(filepath=preset_file,
                                      menu_idname="NAVJUMP_MT_agent_presets")
        result["preset"] = Path(preset_file).stem.replace("_", " ")
    result["overrides"] = dict(opts.overrides)

    # Settings first: a bad value stops here, before anything is written.
    try:
        settings = apply_overrides(props.to_bake_settings(settings_pg), opts.overrides,
                                   settings_pg.auto_cell_size, props.auto_voxel_size)
        settings.validate()
    except SettingsError as exc:
        raise BatchError(summary.settings_error_message(exc, props.setting_label)) from None
    result["settings"] = settings.to_dict()
    target = output_target(path, opts.out)
    # The outputs too: a folder that cannot be written fails now, not after the bake.
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        check_outputs(target, opts.formats, inputs=[path])
    except OSError as exc:
        raise BatchError(f"cannot create the output folder {target.parent}: "
                         f"{exc.strerror or exc}") from None
    except ValueError as exc:
        raise BatchError(str(exc)) from None

    t = time.perf_counter()
    try:
        gathered = gather_mod.gather_from_context(bpy.context, settings_pg)
    except ValueError as exc:
        raise BatchError(str(exc)) from None
    phases["gather"] = time.perf_counter() - t
    if gathered.triangle_count == 0:
        raise BatchError("nothing to bake: no visible mesh, curve or text objects (check "
                         "the NavJump source and the objects' roles)")
    from .bake_nav import bake_all, prepare_nav

    try:  # the scene's agents, modifier volumes and hand-placed links (issue 14)
        prepare_nav(bpy.context, settings, gathered)
    except SettingsError as exc:
        raise BatchError(summary.settings_error_message(exc, props.setting_label)) from None
    except ValueError as exc:
        raise BatchError(str(exc)) from None

    t = time.perf_counter()
    from ..core import pipeline

    try:
        # off the main thread: Ctrl-C must not land inside a numba kernel (see cli.py)
        agents = None
        if gathered.nav.any:
            navmesh, agents = run_interruptibly(bake_all, gathered, settings, None)
        else:
            navmesh = run_interruptibly(pipeline.bake, gathered.vertices,
                                        gathered.triangles, settings,
                                        walkable=gathered.walkable)
        from .bake_nav import climb_all

        navmesh, agents, climb_warnings = run_interruptibly(climb_all, navmesh, agents,
                                                            gathered, settings)
    except SettingsError as exc:
        raise BatchError(summary.settings_error_message(exc, props.setting_label)) from None
    except ValueError as exc:
        raise BatchError(f"bake failed: {exc}") from None
    phases["bake"] = time.perf_counter() - t

    warnings = summary.result_warnings(navmesh, settings) + climb_warnings
    gather_info = {"triangles": gathered.triangle_count,
                   "obstacle_triangles": gathered.obstacle_count,
                   "objects": len(gathered.object_names), "seconds": phases["gather"],
                   "bake_seconds": phases["bake"]}
    stats = summary.summarize(navmesh)
    stats.update({"triangles": gathered.triangle_count,
                  "obstacle_triangles": gathered.obstacle_count,
                  "objects": len(gathered.object_names),
                  "grid": (navmesh.stats or {}).get("grid"),
                  "walkable_area_m2": float(sum(stats["area_by_stance_m2"].values()))})
    result["stats"] = stats
    result["warnings"] = warnings

    # The outputs and the saved .blend change together or not at all: every file goes to
    # a temporary beside its target first; they replace the targets only when all of them
    # (the verified .blend included) are complete.
    from ..export._common import all_or_nothing

    t = time.perf_counter()
    with all_or_nothing() as staged:
        if agents:  # one set of files per agent, as the command line's --agent
            from ..core.agents import agent_out_path

            outputs = []
            for name, agent_nm in agents.items():
                outputs += export_navmesh(agent_nm, agent_out_path(target, name),
                                          opts.formats, inputs=[path])
        else:
            outputs = export_navmesh(navmesh, target, opts.formats, inputs=[path])
        phases["write"] = time.perf_counter() - t
        if opts.save:
            t = time.perf_counter()
            storage.write_result(scene, navmesh, gather_info, warnings, agents=agents)
            _write_back(settings_pg, settings, opts.overrides)
            staged.add(save_blend_copy(path), path, keep_old_as=backup_blend_path(path))
    if opts.save:
        phases["save"] = time.perf_counter() - t
    result["outputs"] = [str(p) for p in outputs]
    result["saved"] = opts.save


def blend_file_problem(path) -> str | None:
    """Why ``path`` is not a complete .blend file (None when it is): the header, the end
    marker (:func:`.batch.blend_header_problem`), and Blender's own reader listing its data
    blocks."""
    from .stub_gaps import library_load

    problem = blend_header_problem(path)
    if problem:
        return problem
    try:
        with library_load(str(path)) as (data_from, _):
            if not list(data_from.scenes):
                return "Blender reads no scene in it"
    except (OSError, RuntimeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"Blender cannot read it back: {first.removeprefix('Error: ')}"
    return None


def save_blend_copy(path: Path) -> Path:
    """Save the open file as a verified copy in ``path``'s folder; the copy's path.

    Blender reports success even when the disk fills up or a file-size limit cuts the
    file short, so the copy is synced, then checked (:func:`blend_file_problem`) before
    the caller moves it over ``path``. BatchError (the copy removed) when it is not whole.
    """
    import bpy

    from ..export._common import staged_temp_name

    tmp = staged_temp_name(path.resolve(), suffix=".blend")
    tmp.unlink()  # a fresh name: over an existing file Blender would keep a ".blend1" of it
    try:
        try:
            bpy.ops.wm.save_as_mainfile(filepath=str(tmp), copy=True)
        except RuntimeError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown error"
            raise BatchError(f"--save: cannot save {path.name}: "
                             f"{first.removeprefix('Error: ')}; nothing was written") from None
        try:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise BatchError(f"--save: cannot save {path.name}: {exc}; nothing was "
                             f"written") from None
        problem = blend_file_problem(tmp)
        if problem:
            raise BatchError(f"--save: the saved copy of {path.name} is not whole: "
                             f"{problem} (disk full or a file-size limit?); {path.name} "
                             f"and the outputs were left as they were")
    except BaseException:
        for leftover in (tmp, tmp.with_name(tmp.name + "@"),  # Blender writes "<name>@"
                         tmp.with_name(tmp.name + "1")):
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise
    return tmp

