"""File formats for a baked NavMesh (no bpy): NavJump JSON, OBJ, glTF binary, Detour.

``write_formats(nm, out, ["json", "obj", "gltf", "detour"])`` writes the chosen formats
beside ``out``: ``<stem>.json``, ``<stem>.obj``, ``<stem>.glb``, ``<stem>.detour.bin``.
"""

from __future__ import annotations

import pathlib

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


def write_formats(nm, out_json_path, formats) -> list[pathlib.Path]:
    """Write ``nm`` in each of ``formats`` beside ``out_json_path``; return the paths.

    Names are checked before anything is written. Every file is written atomically.
    """
    from . import detour, gltf, navjump_json, obj

    writers = {
        "json": navjump_json.write_json,
        "obj": obj.write_obj,
        "gltf": gltf.write_glb,
        "detour": detour.write_detour,
    }
    paths = []
    for f in check_formats(formats):
        path = format_path(out_json_path, f)
        writers[f](nm, path)
        paths.append(path)
    return paths
