"""NavJump JSON: a lossless, engine-neutral text form of a NavMesh.

The schema is documented in docs/navjump-json.md. Floats are written with ``repr`` (what
``json`` does), so ``read_json(write_json(nm))`` gives back bit-identical arrays with the
dtypes of :class:`~blender_navjump.core.navmesh.NavMesh`.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from ..core.navmesh import LINK_KINDS, STANCE_NAMES, NavMesh, empty_navmesh
from ._common import atomic_write, polygon_rows

FORMAT = "navjump"
VERSION = 1

REQUIRED_KEYS = ("format", "version", "up", "settings", "vertices", "polygons", "neighbours",
                 "polygon_area", "polygon_region", "polygon_stance", "detail", "links")
LINK_KEYS = ("kind", "start", "end", "bidirectional", "start_polygon", "end_polygon", "apex",
             "length", "cost")


def _plain(value):
    """json ``default`` hook: numpy scalars and arrays that may sit in settings or stats."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} value {value!r} cannot be written to JSON")


def navmesh_to_json_dict(nm: NavMesh) -> dict:
    """The NavJump JSON document for ``nm`` as plain Python objects."""
    rows = polygon_rows(nm)
    stance_names = []
    for s in nm.polygon_stance.tolist():
        if not 0 <= s < len(STANCE_NAMES):
            raise ValueError(f"polygon stance {s} is not one of 0..{len(STANCE_NAMES) - 1}")
        stance_names.append(STANCE_NAMES[s])
    links = []
    for i in range(nm.link_count):
        kind = int(nm.link_kind[i])
        if not 0 <= kind < len(LINK_KINDS):
            raise ValueError(f"link {i} has kind {kind}, not one of 0..{len(LINK_KINDS) - 1}")
        links.append({
            "kind": LINK_KINDS[kind],
            "start": nm.link_start[i].tolist(),
            "end": nm.link_end[i].tolist(),
            "bidirectional": bool(nm.link_bidirectional[i]),
            "start_polygon": int(nm.link_start_poly[i]),
            "end_polygon": int(nm.link_end_poly[i]),
            "apex": float(nm.link_apex[i]),
            "length": float(nm.link_length[i]),
            "cost": float(nm.link_cost[i]),
        })
    return {
        "format": FORMAT,
        "version": VERSION,
        "up": "z",
        "settings": nm.settings,
        "polygon_max_vertices": int(nm.polygons.shape[1]),
        "vertices": nm.vertices.tolist(),
        "polygons": [r.tolist() for r in rows],
        "neighbours": [nm.neighbours[p, :len(r)].tolist() for p, r in enumerate(rows)],
        "polygon_area": nm.polygon_area.tolist(),
        "polygon_region": nm.polygon_region.tolist(),
        "polygon_stance": stance_names,
        "detail": {
            "meshes": nm.detail_meshes.tolist(),
            "vertices": nm.detail_vertices.tolist(),
            "triangles": nm.detail_triangles.tolist(),
        },
        "links": links,
        "stats": nm.stats,
    }


def write_json(nm: NavMesh, path) -> pathlib.Path:
    """Write ``nm`` to ``path`` atomically (nothing is left behind if writing fails)."""
    doc = navmesh_to_json_dict(nm)

    def dump(fh):
        # One top-level key per line, each encoded by json's fast C encoder. Streamed, so a
        # bad value in a later key fails mid-file: atomic_write then drops the temporary.
        fh.write("{")
        for i, (key, value) in enumerate(doc.items()):
            text = json.dumps(value, default=_plain, allow_nan=False, separators=(",", ":"))
            fh.write(("," if i else "") + "\n" + json.dumps(key) + ":" + text)
        fh.write("\n}\n")

    try:
        return atomic_write(path, dump, binary=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: cannot write NavJump JSON: {exc}") from exc


# ------------------------------------------------------------------------------- reading
class _Reader:
    """Validates one document; every error names the file and the offending key."""

    def __init__(self, path):
        self.path = path

    def fail(self, message: str):
        raise ValueError(f"{self.path}: {message}")

    def array(self, name: str, value, dtype, tail: tuple[int, ...]) -> np.ndarray:
        dtype = np.dtype(dtype)
        try:
            raw = np.asarray(value)
        except (ValueError, TypeError):
            self.fail(f"'{name}' is not a regular array")
        if raw.dtype == object:
            self.fail(f"'{name}' is not a regular array of numbers")
        if raw.size == 0:
            if raw.ndim and raw.shape[0] != 0:
                self.fail(f"'{name}' must be a list of {tail} items")
            return np.zeros((0, *tail), dtype)
        if raw.shape[1:] != tail:
            self.fail(f"'{name}' must hold items of shape {list(tail)}, "
                      f"got {list(raw.shape[1:])}")
        kind = raw.dtype.kind
        if dtype.kind == "b":
            if kind != "b":
                self.fail(f"'{name}' must hold true/false values")
        elif dtype.kind in "iu":
            if kind not in "iu":
                self.fail(f"'{name}' must hold whole numbers, got {raw.dtype.name} values")
            info = np.iinfo(dtype)
            if raw.min() < info.min or raw.max() > info.max:
                self.fail(f"'{name}' has values outside {info.min}..{info.max}")
        elif kind not in "iuf":
            self.fail(f"'{name}' must hold numbers")
        return raw.astype(dtype)

    def index_range(self, name: str, values: np.ndarray, lo: int, hi: int):
        if values.size and (values.min() < lo or values.max() >= hi):
            bad = values[(values < lo) | (values >= hi)].ravel()[0]
            self.fail(f"'{name}' has index {int(bad)} outside {lo}..{hi - 1}")

    def names(self, name: str, values, allowed: tuple[str, ...]) -> np.ndarray:
        if not isinstance(values, list):
            self.fail(f"'{name}' must be a list of names")
        out = np.zeros(len(values), np.int8)
        for i, v in enumerate(values):
            if v not in allowed:
                self.fail(f"'{name}'[{i}] is {v!r}, not one of {', '.join(allowed)}")
            out[i] = allowed.index(v)
        return out


def read_json(path) -> NavMesh:
    """Read a NavJump JSON file; raise ValueError naming the file and the problem."""
    r = _Reader(path)
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except json.JSONDecodeError as exc:
        r.fail(f"not valid JSON ({exc})")
    except UnicodeDecodeError as exc:
        r.fail(f"not a UTF-8 text file ({exc})")
    if not isinstance(doc, dict):
        r.fail("not a NavJump JSON file (the top level is not an object)")
    if doc.get("format") != FORMAT:
        r.fail(f"not a NavJump JSON file (format is {doc.get('format')!r}, "
               f"expected {FORMAT!r})")
    if doc.get("version") != VERSION:
        r.fail(f"NavJump JSON version {doc.get('version')!r} is not supported "
               f"(this reader reads version {VERSION})")
    missing = [k for k in REQUIRED_KEYS if k not in doc]
    if missing:
        r.fail(f"missing key(s): {', '.join(missing)}")
    if doc["up"] != "z":
        r.fail(f"'up' is {doc['up']!r}; NavJump JSON is always 'z'")
    for key in ("settings", "detail"):
        if not isinstance(doc[key], dict):
            r.fail(f"'{key}' must be an object")
    stats = doc.get("stats", {})
    if not isinstance(stats, dict):
        r.fail("'stats' must be an object")
    for key in ("polygons", "neighbours", "links"):
        if not isinstance(doc[key], list):
            r.fail(f"'{key}' must be a list")

    ref = empty_navmesh()
    vertices = r.array("vertices", doc["vertices"], ref.vertices.dtype, (3,))
    n_verts = vertices.shape[0]

    polys, neis = doc["polygons"], doc["neighbours"]
    n_polys = len(polys)
    if len(neis) != n_polys:
        r.fail(f"'neighbours' has {len(neis)} rows but 'polygons' has {n_polys}")
    longest = max((len(p) if isinstance(p, list) else 0 for p in polys), default=3)
    nvp = doc.get("polygon_max_vertices", max(longest, 3))
    if not isinstance(nvp, int) or isinstance(nvp, bool) or nvp < 3:
        r.fail(f"'polygon_max_vertices' must be a whole number >= 3, got {nvp!r}")
    for p in range(n_polys):
        row, nrow = polys[p], neis[p]
        if not isinstance(row, list) or not 3 <= len(row) <= nvp:
            r.fail(f"'polygons'[{p}] must be a list of 3..{nvp} vertex indices")
        if not isinstance(nrow, list) or len(nrow) != len(row):
            r.fail(f"'neighbours'[{p}] must have one entry per vertex of 'polygons'[{p}] "
                   f"({len(row)})")
    lengths = np.array([len(row) for row in polys], np.int64)
    rows = np.repeat(np.arange(n_polys), lengths)
    cols = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    polygons = np.full((n_polys, nvp), -1, ref.polygons.dtype)
    neighbours = np.full((n_polys, nvp), -1, ref.neighbours.dtype)
    polygons[rows, cols] = r.array("polygons", [i for row in polys for i in row],
                                   polygons.dtype, ())
    neighbours[rows, cols] = r.array("neighbours", [i for row in neis for i in row],
                                     neighbours.dtype, ())
    r.index_range("polygons", polygons[polygons != -1], 0, n_verts)
    r.index_range("neighbours", neighbours, -1, n_polys)

    per_poly = {}
    for name in ("polygon_area", "polygon_region"):
        per_poly[name] = r.array(name, doc[name], getattr(ref, name).dtype, ())
    per_poly["polygon_stance"] = r.names("polygon_stance", doc["polygon_stance"],
                                         STANCE_NAMES).astype(ref.polygon_stance.dtype)
    for name, arr in per_poly.items():
        if arr.shape[0] != n_polys:
            r.fail(f"'{name}' has {arr.shape[0]} entries but there are {n_polys} polygons")

    detail = doc["detail"]
    for key in ("meshes", "vertices", "triangles"):
        if key not in detail:
            r.fail(f"missing key 'detail.{key}'")
    d_meshes = r.array("detail.meshes", detail["meshes"], ref.detail_meshes.dtype, (4,))
    d_verts = r.array("detail.vertices", detail["vertices"], ref.detail_vertices.dtype, (3,))
    d_tris = r.array("detail.triangles", detail["triangles"], ref.detail_triangles.dtype, (4,))
    if d_meshes.shape[0] not in (0, n_polys):
        r.fail(f"'detail.meshes' has {d_meshes.shape[0]} rows; expected one per polygon "
               f"({n_polys}) or none")
    if d_meshes.size:
        vb, nv, tb, nt = d_meshes.T.astype(np.int64)
        if (d_meshes < 0).any():
            r.fail("'detail.meshes' has negative entries")
        if (vb + nv).max() > d_verts.shape[0] or (tb + nt).max() > d_tris.shape[0]:
            r.fail("'detail.meshes' points past the end of 'detail.vertices' or "
                   "'detail.triangles'")
        owner = np.repeat(np.arange(n_polys), nt)
        local = np.concatenate([np.arange(b, b + n) for b, n in zip(tb, nt, strict=True)]
                               + [np.zeros(0, np.int64)])
        tri_idx = d_tris[local, :3]
        if tri_idx.size and ((tri_idx < 0).any() or (tri_idx >= nv[owner][:, None]).any()):
            r.fail("'detail.triangles' has a vertex index outside its polygon's detail "
                   "vertices")

    links = doc["links"]
    n_links = len(links)
    kinds = np.zeros(n_links, ref.link_kind.dtype)
    fields: dict[str, list[object]] = {k: [] for k in LINK_KEYS if k != "kind"}
    for i, link in enumerate(links):
        if not isinstance(link, dict):
            r.fail(f"'links'[{i}] must be an object")
        absent = [k for k in LINK_KEYS if k not in link]
        if absent:
            r.fail(f"'links'[{i}] is missing key(s): {', '.join(absent)}")
        kinds[i] = r.names(f"links[{i}].kind", [link["kind"]], LINK_KINDS)[0]
        for k in fields:
            fields[k].append(link[k])
    link_arrays = {
        "link_kind": kinds,
        "link_start": r.array("links[].start", fields["start"], ref.link_start.dtype, (2, 3)),
        "link_end": r.array("links[].end", fields["end"], ref.link_end.dtype, (2, 3)),
        "link_bidirectional": r.array("links[].bidirectional", fields["bidirectional"],
                                      ref.link_bidirectional.dtype, ()),
        "link_start_poly": r.array("links[].start_polygon", fields["start_polygon"],
                                   ref.link_start_poly.dtype, ()),
        "link_end_poly": r.array("links[].end_polygon", fields["end_polygon"],
                                 ref.link_end_poly.dtype, ()),
        "link_apex": r.array("links[].apex", fields["apex"], ref.link_apex.dtype, ()),
        "link_length": r.array("links[].length", fields["length"], ref.link_length.dtype, ()),
        "link_cost": r.array("links[].cost", fields["cost"], ref.link_cost.dtype, ()),
    }
    r.index_range("links[].start_polygon", link_arrays["link_start_poly"], -1, n_polys)
    r.index_range("links[].end_polygon", link_arrays["link_end_poly"], -1, n_polys)

    return NavMesh(
        vertices=vertices, polygons=polygons, neighbours=neighbours,
        detail_meshes=d_meshes, detail_vertices=d_verts, detail_triangles=d_tris,
        settings=doc["settings"], stats=stats, **per_poly, **link_arrays)
