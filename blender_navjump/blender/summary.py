"""Bake results as plain values, bpy-free: the summary the panel and scripts print, the
report text, and the NavMesh as bytes / int32 words (Blender ID properties hold int
arrays, not bytes). :mod:`.storage` puts them into the .blend."""

from __future__ import annotations

import io
import json
import os
import tempfile

import numpy as np

from ..core.navmesh import LINK_KINDS, STANCE_NAMES, NavMesh


# ---------------------------------------------------------------- NavMesh <-> bytes
def navmesh_to_bytes(navmesh: NavMesh, compress: bool = True) -> bytes:
    # NavMesh.save writes to a path; go through a temporary file.
    fd, path = tempfile.mkstemp(suffix=".npz", prefix="navjump_")
    os.close(fd)
    try:
        navmesh.save(path, compress=compress)
        with open(path, "rb") as fh:
            return fh.read()
    finally:
        os.remove(path)


def navmesh_from_bytes(data: bytes) -> NavMesh:
    # Not checked here: the overlay draws what it can of a damaged blob and lists the invalid
    # parts itself; the path test and the exporters check the NavMesh (core/navmesh_check).
    return NavMesh.load(io.BytesIO(data), check=False)


def bytes_to_words(data: bytes) -> np.ndarray:
    """Bytes packed into int32 words (ID properties hold int arrays, not bytes)."""
    pad = (-len(data)) % 4
    return np.frombuffer(data + b"\0" * pad, dtype=np.int32).copy()


def words_to_bytes(words, size: int) -> bytes:
    return np.asarray(words, dtype=np.int32).tobytes()[:size]


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def to_json(value) -> str:
    return json.dumps(value, default=_json_default, sort_keys=True)


# ---------------------------------------------------------------- summaries
def summarize(navmesh: NavMesh) -> dict:
    """Numbers the panel and the scripts print: polygons, area per stance, links per kind."""
    stats = navmesh.stats or {}
    area = stats.get("area_by_stance_m2")
    if area is None:
        area = _area_by_stance(navmesh)
    kinds = np.asarray(navmesh.link_kind)
    return {
        "polygons": navmesh.polygon_count,
        "polygons_by_stance": {name: int((navmesh.polygon_stance == i).sum())
                               for i, name in enumerate(STANCE_NAMES)},
        "area_by_stance_m2": {k: float(v) for k, v in area.items()},
        "links": navmesh.link_count,
        "links_by_kind": {name: int((kinds == i).sum()) for i, name in enumerate(LINK_KINDS)},
        "timings_ms": dict(stats.get("timings_ms", {})),
        "climb": {"elements": navmesh.climb_element_count,
                  "nodes": int(np.asarray(navmesh.climb_node_position).shape[0]),
                  "edges": int(np.asarray(navmesh.climb_edge_kind).shape[0]),
                  "links": int(np.asarray(navmesh.climb_link_kind).shape[0])},
    }


def _area_by_stance(navmesh: NavMesh) -> dict:
    per_poly = navmesh.polygon_surface_areas()
    return {name: float(per_poly[navmesh.polygon_stance == i].sum())
            for i, name in enumerate(STANCE_NAMES)}


def report_text(summary: dict, gather_info: dict, warnings: list[str]) -> str:
    lines = ["NavJump bake", ""]
    lines.append(f"Input: {gather_info.get('triangles', 0)} triangles from "
                 f"{gather_info.get('objects', 0)} objects "
                 f"(gathered in {gather_info.get('seconds', 0.0) * 1000:.0f} ms)")
    lines.append(f"Polygons: {summary['polygons']}")
    for name, area in summary["area_by_stance_m2"].items():
        lines.append(f"  {name}: {summary['polygons_by_stance'].get(name, 0)} polygons, "
                     f"{area:.1f} m2")
    lines.append(f"Links: {summary['links']}")
    for name, count in summary["links_by_kind"].items():
        lines.append(f"  {name}: {count}")
    if summary["timings_ms"]:
        lines.append("Time per stage (ms):")
        for name, ms in summary["timings_ms"].items():
            lines.append(f"  {name}: {ms:.0f}")
    if warnings:
        lines.append("Warnings:")
        lines.extend(f"  {w}" for w in warnings)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- messages
def settings_error_message(exc, label=lambda name: name) -> str:
    """"Invalid setting 'Crouch' (crouch_height): ..." for a SettingsError; ``label`` gives
    a setting's name as the user sees it. Other errors: their own text."""
    name = getattr(exc, "setting", None)
    text = str(exc)
    if name is None:
        return text
    if text.startswith(f"{name}: "):
        text = text[len(name) + 2:]
    return f"Invalid setting '{label(name)}' ({name}): {text}"


def result_warnings(navmesh: NavMesh, settings) -> list[str]:
    """What the user should hear about a finished bake: the bake's own warnings, skipped
    triangles, an empty result, links switched on but none found."""
    stats = navmesh.stats or {}
    warnings = [str(w) for w in stats.get("warnings", [])]
    skipped = int(stats.get("degenerate_triangles_skipped", 0) or 0)
    if skipped:
        warnings.append(f"{skipped} zero-area triangles were skipped")
    if navmesh.polygon_count == 0:
        warnings.append("No walkable polygons: check Max Slope and the agent size, and that "
                        "floors face up")
    elif settings.links_enabled and navmesh.link_count == 0:
        warnings.append("Jump links are on but none were found")
    return warnings
