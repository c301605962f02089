"""File formats for a baked NavMesh (no bpy): NavJump JSON, OBJ, glTF binary, Detour.

``write_formats(nm, out, ["json", "obj", "gltf", "detour"])`` writes the chosen formats
beside ``out``: ``<stem>.json``, ``<stem>.obj``, ``<stem>.glb``, ``<stem>.detour.bin``:
all of them, or (when one fails) none. ``check_outputs`` checks the names, the folder and
that no output would overwrite an input, before a bake starts. ``export_navmesh`` is the
one export every front end runs (the ``bake`` command line, the headless batch, the
``navjump.export`` operator in Blender): both steps, on a baked NavMesh.
"""

from __future__ import annotations

import os
import pathlib

from ._common import all_or_nothing

FORMAT_SUFFIXES = {
    "json": ".json",
    "obj": ".obj",
    "gltf": ".glb",
    "detour": ".detour.bin",
}
FORMATS = tuple(FORMAT_SUFFIXES)


def format_path(out, fmt: str) -> pathlib.Path:
    """Where ``fmt`` goes for the output path ``out`` (its suffix is replaced)."""
    out = pathlib.Path(out)
    stem = out.name[:-len(".detour.bin")] if out.name.endswith(".detour.bin") else out.stem
    return out.with_name(stem + FORMAT_SUFFIXES[fmt])


def check_formats(formats) -> list[str]:
    """The format names, validated; ValueError names the unknown one and the allowed ones."""
    if isinstance(formats, str):
        formats = [formats]
    names = []
    for f in formats:
        if f not in FORMAT_SUFFIXES:
            raise ValueError(f"unknown export format {f!r}; allowed formats are: "
                             f"{', '.join(FORMATS)}")
        if f not in names:
            names.append(f)
    return names


def _same_file(a: pathlib.Path, b: pathlib.Path) -> bool:
    if os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def check_outputs(out_json_path, formats, inputs=()) -> list[pathlib.Path]:
    """The paths ``write_formats`` would write, after checking (nothing is written):

    the format names; that the output folder exists and is a writable folder; that no
    output is an existing folder; that no output is (or links to) one of ``inputs``.
    ValueError names the path and what is wrong.
    """
    paths = [format_path(out_json_path, f) for f in check_formats(formats)]
    for path in paths:
        folder = path.parent
        if not folder.exists():
            raise ValueError(f"output folder {folder} does not exist")
        if not folder.is_dir():
            raise ValueError(f"output folder {folder} is not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ValueError(f"output folder {folder} is not writable")
        if path.is_dir():
            raise ValueError(f"output {path} is a folder")
        for source in inputs:
            if _same_file(path, pathlib.Path(source)):
                raise ValueError(f"output {path} would overwrite the input {source}; "
                                 f"choose another --out name or folder")
    return paths


def write_formats(nm, out_json_path, formats) -> list[pathlib.Path]:
    """Write ``nm`` in each of ``formats`` beside ``out_json_path``; return the paths.

    Names are checked before anything is written. All files are written to temporaries
    first and then moved into place together: when one fails (or the caller is
    interrupted), no existing file is replaced and no new one is left behind.
    """
    from . import detour, gltf, navjump_json, obj

    writers = {
        "json": navjump_json.write_json,
        "obj": obj.write_obj,
        "gltf": gltf.write_glb,
        "detour": detour.write_detour,
    }
    paths = []
    with all_or_nothing():
        for f in check_formats(formats):
            path = format_path(out_json_path, f)
            writers[f](nm, path)
            paths.append(path)
    return paths


def export_navmesh(nm, out_json_path, formats, inputs=()) -> list[pathlib.Path]:
    """Check the outputs (:func:`check_outputs`, again: the folder may have changed since
    a bake started) and write ``nm`` in ``formats`` beside ``out_json_path``
    (:func:`write_formats`). Returns the written paths; ValueError or OSError name what
    failed, and then no file has changed."""
    check_outputs(out_json_path, formats, inputs=inputs)
    return write_formats(nm, out_json_path, formats)
