"""glTF 2.0 binary (.glb) export of a NavMesh, written by hand (no dependency).

* Y-up as glTF requires: (x, y, z) Z-up -> (x, z, -y), a rotation, so polygons that are
  counter-clockwise seen from above stay front-facing (glTF's counter-clockwise rule).
* One node and mesh named ``<name>-navmesh``: Godot's importer turns a node with that suffix
  into a NavigationMesh.
* Polygons are fan-triangulated; their vertices are duplicated per polygon so that the
  per-vertex ``COLOR_0`` (by stance) is constant over each polygon. Custom attributes
  ``_STANCE`` (float: index into the stance names) and ``_POLYGON`` (float: polygon index)
  let a tool map triangles back to navmesh polygons.
* Links, the climb graph (``climb``, as in NavJump JSON) and metadata go in the node's
  ``extras.navjump`` (coordinates in glTF's Y-up frame).
"""

from __future__ import annotations

import json
import pathlib
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import kinds
from ..core.kinds import srgb_to_linear
from ..core.navmesh import LINK_KINDS, STANCE_NAMES, NavMesh
from ..core.navmesh_check import check_navmesh
from ._common import (
    atomic_write,
    check_float32_reach,
    polygon_rows,
    y_up_to_z_up,
    z_up_to_y_up,
)
from .navjump_json import _climb_to_json, _has_climb

GLB_MAGIC = b"glTF"
GLB_VERSION = 2
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942
ARRAY_BUFFER = 34962
ELEMENT_ARRAY_BUFFER = 34963
MODE_TRIANGLES = 4

EXTRAS_FORMAT = "navjump-gltf"
EXTRAS_VERSION = 1
# Linear RGB per stance (stand, crouch, prone): the viewport's colours (core.kinds) as
# linear light; anything else is grey.
STANCE_COLORS = tuple(tuple(round(srgb_to_linear(c), 6) for c in kinds.STANCE_COLORS[n][:3])
                      for n in kinds.STANCE_NAMES)
UNKNOWN_COLOR = tuple(round(srgb_to_linear(c), 6) for c in kinds.UNKNOWN_COLOR[:3])

COMPONENT_DTYPES = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16,
                    5125: np.uint32, 5126: np.float32}
TYPE_SIZES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


def _pad4(data: bytes, fill: bytes = b"\0") -> bytes:
    return data + fill * (-len(data) % 4)


class _BinBuilder:
    """Packs arrays into one buffer, one 4-aligned bufferView and accessor per array."""

    def __init__(self):
        self.blob = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def add(self, array: np.ndarray, component: int, gl_type: str, target: int,
            with_bounds: bool = False) -> int:
        data = np.ascontiguousarray(array, dtype=COMPONENT_DTYPES[component]).tobytes()
        offset = len(self.blob)
        self.blob += _pad4(data)
        self.views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(data),
                           "target": target})
        acc = {"bufferView": len(self.views) - 1, "componentType": component,
               "count": int(array.shape[0]), "type": gl_type}
        if with_bounds:
            acc["min"] = np.asarray(array).min(axis=0).astype(float).tolist()
            acc["max"] = np.asarray(array).max(axis=0).astype(float).tolist()
        self.accessors.append(acc)
        return len(self.accessors) - 1


def _links_extras(nm: NavMesh) -> list[dict]:
    out = []
    start = z_up_to_y_up(nm.link_start)
    end = z_up_to_y_up(nm.link_end)
    for i in range(nm.link_count):
        kind = int(nm.link_kind[i])
        out.append({
            "kind": LINK_KINDS[kind] if 0 <= kind < len(LINK_KINDS) else str(kind),
            "start": start[i].tolist(),
            "end": end[i].tolist(),
            "width": float(np.linalg.norm(nm.link_start[i, 1] - nm.link_start[i, 0])),
            "bidirectional": bool(nm.link_bidirectional[i]),
            "polygons": [int(nm.link_start_poly[i]), int(nm.link_end_poly[i])],
            "apex": float(nm.link_apex[i]),
            "length": float(nm.link_length[i]),
            "cost": float(nm.link_cost[i]),
            "area": str(nm.area_names[int(nm.link_area[i])]),
        })
    return out


def glb_bytes(nm: NavMesh, name: str = "navjump") -> bytes:
    """The .glb file for ``nm`` as bytes; the node and mesh are named ``<name>-navmesh``."""
    nm = check_navmesh(nm)
    check_float32_reach(nm, "glTF")
    rows = polygon_rows(nm)
    node_name = name if name.endswith("-navmesh") else f"{name}-navmesh"
    node: dict = {"name": node_name}
    gltf: dict = {
        "asset": {"version": "2.0", "generator": "NavJump"},
        "scene": 0,
        "scenes": [{"name": name, "nodes": [0]}],
        "nodes": [node],
    }
    bin_data = b""
    if rows:
        counts = np.array([len(r) for r in rows], dtype=np.int64)
        corner_vertex = np.concatenate(rows).astype(np.int64)
        positions = z_up_to_y_up(nm.vertices[corner_vertex]).astype(np.float32)
        polygon_of_corner = np.repeat(np.arange(len(rows)), counts)
        stance = nm.polygon_stance.astype(np.int64)[polygon_of_corner]
        palette = np.array(STANCE_COLORS + (UNKNOWN_COLOR,), dtype=np.float32)
        known = (stance >= 0) & (stance < len(STANCE_COLORS))
        colors = palette[np.where(known, stance, len(STANCE_COLORS))]
        # Fan triangles (first, i, i + 1) over each polygon's own duplicated corners.
        n_tris = counts - 2
        first = np.repeat(np.cumsum(counts) - counts, n_tris)
        step = np.arange(n_tris.sum()) - np.repeat(np.cumsum(n_tris) - n_tris, n_tris) + 1
        triangles = np.stack([first, first + step, first + step + 1], axis=1).ravel()

        b = _BinBuilder()
        attributes = {
            "POSITION": b.add(positions, 5126, "VEC3", ARRAY_BUFFER, with_bounds=True),
            "COLOR_0": b.add(colors, 5126, "VEC3", ARRAY_BUFFER),
            "_STANCE": b.add(stance.astype(np.float32), 5126, "SCALAR", ARRAY_BUFFER),
            "_POLYGON": b.add(polygon_of_corner.astype(np.float32), 5126, "SCALAR",
                              ARRAY_BUFFER),
        }
        indices = b.add(triangles, 5125, "SCALAR", ELEMENT_ARRAY_BUFFER)
        node["mesh"] = 0
        gltf["meshes"] = [{"name": node_name, "primitives": [
            {"attributes": attributes, "indices": indices, "mode": MODE_TRIANGLES}]}]
        gltf["accessors"] = b.accessors
        gltf["bufferViews"] = b.views
        gltf["buffers"] = [{"byteLength": len(b.blob)}]
        bin_data = bytes(b.blob)
    node["extras"] = {"navjump": {
        "format": EXTRAS_FORMAT,
        "version": EXTRAS_VERSION,
        "up": "y",
        "stances": list(STANCE_NAMES),
        "stance_colors": [list(c) for c in STANCE_COLORS],
        "polygon_count": len(rows),
        # the area table (NavMesh.area_names) and each polygon's area name, in polygon order
        "areas": [str(n) for n in nm.area_names],
        "polygon_areas": [str(nm.area_names[a]) for a in nm.polygon_area.tolist()],
        "links": _links_extras(nm),
        # climbing (docs/climbing.md): the NavJump JSON "climb" object, points Y-up
        **({"climb": _climb_to_json(nm, z_up_to_y_up)} if _has_climb(nm) else {}),
    }}
    json_chunk = _pad4(json.dumps(gltf, separators=(",", ":"), allow_nan=False).encode(),
                       b" ")
    chunks = struct.pack("<II", len(json_chunk), CHUNK_JSON) + json_chunk
    if bin_data:
        chunks += struct.pack("<II", len(bin_data), CHUNK_BIN) + bin_data
    return GLB_MAGIC + struct.pack("<II", GLB_VERSION, 12 + len(chunks)) + chunks


def write_glb(nm: NavMesh, path, name: str | None = None) -> pathlib.Path:
    """Write ``nm`` to ``path`` atomically; ``name`` defaults to the file's stem."""
    path = pathlib.Path(path)
    data = glb_bytes(nm, name if name is not None else path.stem)
    return atomic_write(path, lambda fh: fh.write(data))


# ------------------------------------------------------------------------------- reading
@dataclass
class GlbFile:
    """A parsed .glb: its JSON, its BIN chunk and every accessor decoded to numpy."""

    path: str
    gltf: dict
    binary: bytes
    accessors: list[np.ndarray] = field(default_factory=list)

    def navmesh_node(self) -> dict:
        for node in self.gltf.get("nodes", []):
            if str(node.get("name", "")).endswith("-navmesh"):
                return node
        raise ValueError(f"{self.path}: no node named '<name>-navmesh'")

    def primitive(self) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Attributes and indices of the navmesh node's first primitive."""
        node = self.navmesh_node()
        if "mesh" not in node:
            return {}, np.zeros(0, np.uint32)
        prim = self.gltf["meshes"][node["mesh"]]["primitives"][0]
        attrs = {k: self.accessors[v] for k, v in prim["attributes"].items()}
        return attrs, self.accessors[prim["indices"]]

    def polygons_z_up(self) -> tuple[list[np.ndarray], np.ndarray]:
        """Each polygon's corner points in NavJump's Z-up frame, and its stance index."""
        attrs, _ = self.primitive()
        if not attrs:
            return [], np.zeros(0, np.int8)
        poly = attrs["_POLYGON"].astype(np.int64)
        pos = y_up_to_z_up(attrs["POSITION"])
        starts = np.flatnonzero(np.r_[True, poly[1:] != poly[:-1]])
        ends = np.r_[starts[1:], poly.size]
        polys = [pos[a:b] for a, b in zip(starts, ends, strict=True)]
        stances = attrs["_STANCE"][starts].astype(np.int8)
        return polys, stances


def read_glb(path) -> GlbFile:
    """Parse and validate a .glb: header, chunks, buffers, views and accessor bounds."""
    data = pathlib.Path(path).read_bytes()

    def fail(message: str):
        raise ValueError(f"{path}: {message}")

    if len(data) < 12 or data[:4] != GLB_MAGIC:
        fail("not a binary glTF file (no 'glTF' magic)")
    version, length = struct.unpack_from("<II", data, 4)
    if version != GLB_VERSION:
        fail(f"glTF container version {version} is not supported (expected 2)")
    if length != len(data):
        fail(f"header says {length} bytes but the file has {len(data)}")
    chunks = []
    pos = 12
    while pos < len(data):
        if pos + 8 > len(data):
            fail(f"truncated chunk header at byte {pos}")
        size, ctype = struct.unpack_from("<II", data, pos)
        if pos + 8 + size > len(data):
            fail(f"chunk at byte {pos} ({size} bytes) runs past the end of the file")
        if size % 4:
            fail(f"chunk at byte {pos} is not padded to 4 bytes")
        chunks.append((ctype, data[pos + 8:pos + 8 + size]))
        pos += 8 + size
    if not chunks or chunks[0][0] != CHUNK_JSON:
        fail("the first chunk is not JSON")
    try:
        gltf = json.loads(chunks[0][1].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(f"the JSON chunk is not valid JSON ({exc})")
    if not isinstance(gltf, dict) or gltf.get("asset", {}).get("version") != "2.0":
        fail("the JSON chunk is not a glTF 2.0 document (asset.version != '2.0')")
    binary = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == CHUNK_BIN else b""

    buffers = gltf.get("buffers", [])
    for i, buf in enumerate(buffers):
        if "uri" in buf:
            fail(f"buffer {i} refers to an external file; only the BIN chunk is supported")
        if i > 0 or buf.get("byteLength", -1) > len(binary) or buf.get("byteLength", -1) < 0:
            fail(f"buffer {i} ({buf.get('byteLength')} bytes) does not fit the BIN chunk "
                 f"({len(binary)} bytes)")
    views = gltf.get("bufferViews", [])
    for i, view in enumerate(views):
        b = view.get("buffer", -1)
        if not 0 <= b < len(buffers):
            fail(f"bufferView {i} refers to missing buffer {b}")
        off, size = view.get("byteOffset", 0), view.get("byteLength", -1)
        if off < 0 or size < 0 or off + size > buffers[b]["byteLength"]:
            fail(f"bufferView {i} (offset {off}, {size} bytes) lies outside buffer {b}")
    accessors = []
    for i, acc in enumerate(gltf.get("accessors", [])):
        v = acc.get("bufferView", -1)
        if not 0 <= v < len(views):
            fail(f"accessor {i} refers to missing bufferView {v}")
        ctype, gl_type, count = acc.get("componentType"), acc.get("type"), acc.get("count", -1)
        if ctype not in COMPONENT_DTYPES or gl_type not in TYPE_SIZES:
            fail(f"accessor {i} has unknown componentType {ctype} or type {gl_type}")
        if not isinstance(count, int) or count < 1:
            fail(f"accessor {i} has a bad count {count!r}")
        dtype: np.dtype[Any] = np.dtype(COMPONENT_DTYPES[ctype]).newbyteorder("<")
        ncomp = TYPE_SIZES[gl_type]
        elem = dtype.itemsize * ncomp
        view = views[v]
        stride = view.get("byteStride", elem)
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        end = start + stride * (count - 1) + elem
        if stride < elem or end > view.get("byteOffset", 0) + view["byteLength"]:
            fail(f"accessor {i} ({count} x {gl_type}) reads past the end of bufferView {v}")
        raw = np.frombuffer(binary, dtype=np.uint8, count=end - start, offset=start)
        rows = np.lib.stride_tricks.as_strided(raw, shape=(count, elem), strides=(stride, 1))
        arr = np.ascontiguousarray(rows).view(dtype).reshape(count, ncomp)
        if acc.get("normalized") and dtype.kind in "iu":
            arr = arr.astype(np.float32) / np.iinfo(dtype).max
        accessors.append(arr[:, 0] if gl_type == "SCALAR" else arr)
    return GlbFile(path=str(path), gltf=gltf, binary=binary, accessors=accessors)
