"""Outputs written all together or not at all, and checked before anything is written
(issue 12, "data lost"): real files, real failures (a folder where a file goes, a value
JSON cannot encode, an interrupt)."""

import os

import pytest
from export_navmeshes import mixed_navmesh
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blender_navjump.export import check_outputs, write_formats
from blender_navjump.export._common import all_or_nothing, atomic_write


def snapshot(folder):
    """Every file in ``folder`` (hidden temporaries included) with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_failing_later_format_replaces_no_earlier_one(tmp_path):
    """json and obj are moved into place before the glb move fails (its target is a
    folder): both come back as they were, and no temporary is left."""
    old = {"a.json": b"old json", "a.obj": b"old obj"}
    for name, data in old.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "a.glb").mkdir()
    (tmp_path / "a.glb" / "keep").write_text("x")
    with pytest.raises(OSError):
        write_formats(mixed_navmesh(), tmp_path / "a.json", ["json", "obj", "gltf"])
    assert snapshot(tmp_path) == old
    assert (tmp_path / "a.glb" / "keep").read_text() == "x"


def test_a_format_that_cannot_be_encoded_leaves_the_others_unwritten(tmp_path):
    nm = mixed_navmesh()
    nm.stats = {"bad": float("nan")}  # JSON refuses NaN; obj (written first) would not
    (tmp_path / "a.obj").write_bytes(b"old obj")
    with pytest.raises(ValueError, match="a.json"):
        write_formats(nm, tmp_path / "a.json", ["obj", "json", "detour"])
    assert snapshot(tmp_path) == {"a.obj": b"old obj"}


def test_interrupt_inside_a_staged_block_touches_nothing(tmp_path):
    (tmp_path / "a.bin").write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), all_or_nothing():
        atomic_write(tmp_path / "a.bin", lambda fh: fh.write(b"new"))
        atomic_write(tmp_path / "b.bin", lambda fh: fh.write(b"new"))
        assert (tmp_path / "a.bin").read_bytes() == b"old"  # not yet moved
        raise KeyboardInterrupt
    assert snapshot(tmp_path) == {"a.bin": b"old"}


def test_a_staged_block_keeps_the_old_file_when_asked(tmp_path):
    (tmp_path / "level.blend").write_bytes(b"v1")
    with all_or_nothing() as staged:
        tmp = tmp_path / ".level.tmp"
        tmp.write_bytes(b"v2")
        staged.add(tmp, tmp_path / "level.blend", keep_old_as=tmp_path / "level.blend1")
    assert snapshot(tmp_path) == {"level.blend": b"v2", "level.blend1": b"v1"}


def test_check_outputs_lists_what_would_be_written(tmp_path):
    paths = check_outputs(tmp_path / "x.json", ["detour", "json", "detour"],
                          inputs=[tmp_path / "level.obj"])
    assert [p.name for p in paths] == ["x.detour.bin", "x.json"]
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------- property: all or nothing
# CI runs a few dozen examples; a long fuzz run sets NAVJUMP_HYPOTHESIS_EXAMPLES.
EXAMPLES = int(os.environ.get("NAVJUMP_HYPOTHESIS_EXAMPLES", "0")) or None
_TARGET = st.fixed_dictionaries({
    "old": st.one_of(st.none(), st.binary(max_size=8)),  # None: no file there yet
    "new": st.binary(max_size=8),
    "blocked": st.booleans(),  # a folder where the file goes: its move fails
})


@settings(max_examples=EXAMPLES or 60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(targets=st.lists(_TARGET, min_size=1, max_size=5))
def test_staged_files_replace_all_or_none(tmp_path_factory, targets):
    """Whatever mix of existing, new and unwritable targets: after the block either every
    target holds its new bytes (no target blocked) or every one is as before; no
    temporary or backup file is left either way."""
    folder = tmp_path_factory.mktemp("stage")
    for i, t in enumerate(targets):
        path = folder / f"f{i}"
        if t["blocked"]:
            path.mkdir()
        elif t["old"] is not None:
            path.write_bytes(t["old"])
    before = snapshot(folder)
    any_blocked = any(t["blocked"] for t in targets)
    try:
        with all_or_nothing():
            for i, t in enumerate(targets):
                atomic_write(folder / f"f{i}", lambda fh, d=t["new"]: fh.write(d))
    except OSError:
        assert any_blocked
        assert snapshot(folder) == before
    else:
        assert not any_blocked
        assert snapshot(folder) == {f"f{i}": t["new"] for i, t in enumerate(targets)}
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"f{i}" for i, t in enumerate(targets) if t["blocked"] or t["old"] is not None
        or not any_blocked)


_NAMES = ["level.obj", "level.json", "level.glb", "level", "level.detour.bin", "other.json"]


@settings(max_examples=EXAMPLES or 80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(_NAMES), out=st.sampled_from(_NAMES),
       formats=st.lists(st.sampled_from(["json", "obj", "gltf", "detour"]), min_size=1,
                        max_size=4), alias=st.sampled_from(["none", "symlink", "hardlink"]))
def test_check_outputs_refuses_exactly_the_outputs_that_are_inputs(
        tmp_path_factory, source, out, formats, alias):
    """An input reached under its own name, a symlink or a hard link in the output
    folder: refused exactly when one of the format paths is that file; nothing is
    written either way."""
    from blender_navjump.export import format_path

    folder = tmp_path_factory.mktemp("io")
    src = folder / "in" / source
    src.parent.mkdir()
    src.write_bytes(b"input")
    out_dir = folder / "in" if alias == "none" else folder / "out"
    out_dir.mkdir(exist_ok=True)
    if alias != "none":
        (os.symlink if alias == "symlink" else os.link)(src, out_dir / source)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    clash = any(format_path(out_dir / out, f).name == source for f in formats)
    try:
        check_outputs(out_dir / out, formats, inputs=[src])
    except ValueError as exc:
        assert clash and "would overwrite the input" in str(exc)
    else:
        assert not clash
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
