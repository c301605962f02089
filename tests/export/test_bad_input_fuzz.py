"""Issue 12: random corruptions of saved navmesh files never crash, hang or mislead.

A corrupted npz or JSON file either loads as a NavMesh that every consumer (path query,
Detour/OBJ/glTF/JSON export) handles, or is refused with a ValueError naming the file.
``NAVJUMP_FUZZ_EXAMPLES`` raises the example counts for a long session.
"""

import dataclasses
import json
import math
import os
import tempfile

import numpy as np
from export_navmeshes import bump_square, grid_floor, mixed_navmesh, two_platforms
from fuzz_budget import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st

from blender_navjump.core.navmesh import NavMesh
from blender_navjump.core.navmesh_check import NavMeshError, check_navmesh
from blender_navjump.core.query import find_path
from blender_navjump.export import detour, gltf, navjump_json, obj

BASES = {"mixed": mixed_navmesh, "platforms": two_platforms, "bump": bump_square,
         "grid": lambda: grid_floor(nx=2, ny=2)}


def consume(nm: NavMesh, tmp: str) -> None:
    """Every consumer either works or raises ValueError; round trips stay exact."""
    event("loaded")
    lo = nm.vertices.min(axis=0) if nm.vertices.size else np.zeros(3)
    hi = nm.vertices.max(axis=0) if nm.vertices.size else np.ones(3)
    try:
        r = find_path(nm, lo + 0.3 * (hi - lo), lo + 0.7 * (hi - lo))
        assert np.isfinite(r.points).all()
    except ValueError:
        pass
    for name, write in (("n.detour.bin", detour.write_detour), ("n.obj", obj.write_obj),
                        ("n.glb", gltf.write_glb), ("n.json", navjump_json.write_json)):
        path = os.path.join(tmp, name)
        try:
            write(nm, path)
        except ValueError:
            assert not os.path.exists(path)
            continue
        if name == "n.json":
            assert navjump_json.read_json(path).equals(nm)
        if name == "n.detour.bin":
            tile = detour.read_detour(path).tiles[0]
            assert tile.header["offMeshBase"] == nm.polygon_count


SPECIAL = st.sampled_from([-1, 0, 1, 2, 3, 5, 7, 255, 256, -129, 2**31, -(2**31) - 1, 2**40,
                           1e20, -1e20, np.nan, np.inf, -np.inf, 0.5, 1e300, -0.0])


@st.composite
def corrupted_arrays(draw):
    nm = BASES[draw(st.sampled_from(sorted(BASES)))]()
    nm = dataclasses.replace(nm, **{f: getattr(nm, f).copy() for f in nm.array_fields()})
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(nm.array_fields()))
        arr = getattr(nm, name)
        mode = draw(st.sampled_from(["value", "value", "value", "truncate", "append",
                                     "dtype", "reshape", "swap"]))
        if mode == "value" and arr.size and arr.dtype.kind in "biuf":
            k = draw(st.integers(0, arr.size - 1))
            value = draw(SPECIAL)
            wide = arr.astype(np.float64) if isinstance(value, float) and \
                arr.dtype.kind != "f" else arr.astype(np.int64) if arr.dtype.kind in "iub" \
                else arr.copy()
            wide.reshape(-1)[k] = value
            arr = wide
        elif mode == "truncate" and arr.shape[0]:
            arr = arr[:draw(st.integers(0, arr.shape[0] - 1))]
        elif mode == "append" and arr.shape[0]:
            arr = np.concatenate([arr, arr[-1:]])
        elif mode == "dtype" and arr.dtype.kind in "biuf":
            arr = arr.astype(draw(st.sampled_from([np.bool_, np.float32, np.int64, np.uint8,
                                                   np.int8, np.float64, "U3"])))
        elif mode == "reshape":
            arr = arr.reshape(-1)
        elif mode == "swap" and arr.shape[0] > 1:
            i, j = draw(st.integers(0, arr.shape[0] - 1)), draw(st.integers(0, arr.shape[0] - 1))
            arr = arr.copy()
            arr[[i, j]] = arr[[j, i]]
        setattr(nm, name, arr)
    return nm


@fuzz_settings(40)
@given(corrupted_arrays())
def test_corrupted_arrays_in_npz(nm):
    with tempfile.TemporaryDirectory() as tmp:
        try:
            check_navmesh(nm, "mine")
            ok_in_memory = True
        except NavMeshError as exc:
            assert str(exc).startswith("mine: '")
            ok_in_memory = False
        path = os.path.join(tmp, "c.npz")
        nm.save(path)
        try:
            back = NavMesh.load(path)
        except ValueError as exc:
            event("refused")
            assert str(exc).startswith(path)
            assert not ok_in_memory or "U3" in repr([getattr(nm, f).dtype
                                                     for f in nm.array_fields()])
            return
        assert ok_in_memory
        consume(back, tmp)


@fuzz_settings(40)
@given(st.sampled_from(sorted(BASES)), st.data())
def test_damaged_npz_bytes(base, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "d.npz")
        BASES[base]().save(path)
        raw = bytearray(open(path, "rb").read())
        mode = data.draw(st.sampled_from(["flip", "truncate", "zero"]))
        if mode == "truncate":
            raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
        else:
            for _ in range(data.draw(st.integers(1, 8))):
                k = data.draw(st.integers(0, len(raw) - 1))
                raw[k] = 0 if mode == "zero" else raw[k] ^ data.draw(st.integers(1, 255))
        with open(path, "wb") as fh:
            fh.write(bytes(raw))
        try:
            back = NavMesh.load(path)
        except ValueError as exc:
            event("refused")
            assert str(exc).startswith(path)
            return
        consume(back, tmp)


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=4),
              st.sampled_from([-1, 0, 1, 2, 3, 6, 7, 65, 2**31, 1e20])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=8)


def _paths(doc, prefix=()):
    """Every (path) to a value inside the document."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:6]):
            out += _paths(v, prefix + (i,))
    return out


@fuzz_settings(60)
@given(st.sampled_from(sorted(BASES)), st.data())
def test_corrupted_json_documents(base, data):
    doc = navjump_json.navmesh_to_json_dict(BASES[base]())
    doc = json.loads(json.dumps(doc))
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.sampled_from(_paths(doc)[1:]))
        parent = doc
        for key in where[:-1]:
            parent = parent[key]
        action = data.draw(st.sampled_from(["set", "set", "delete", "number"]))
        if action == "delete":
            del parent[where[-1]]
        elif action == "number" and isinstance(parent[where[-1]], (int, float)) and \
                not isinstance(parent[where[-1]], bool):
            parent[where[-1]] = data.draw(st.sampled_from([-1, 0, 1, 7, 2**31, -(2**63),
                                                           1e20, 0.5, 1e300]))
        else:
            parent[where[-1]] = data.draw(JSON_VALUES)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c.json")
        with open(path, "w") as fh:
            json.dump(doc, fh)
        try:
            back = navjump_json.read_json(path)
        except ValueError as exc:
            event("refused")
            assert str(exc).startswith(path)
            assert "-9223372036854775808" not in str(exc) or "-9223372036854775808" in \
                json.dumps(doc)
            assert len(str(exc)) < 1000
            return
        assert all(math.isfinite(x) for x in back.vertices.reshape(-1))
        consume(back, tmp)
