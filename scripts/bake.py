#!/usr/bin/env python
"""Bake NavJump navmeshes of .blend files headless, one summary line per file.

Plain Python with the ``bpy`` module (``pip install bpy==5.0.1`` on Python 3.11)::

    python scripts/bake.py level.blend [more.blend ...] [--out DIR]
        [--format json,obj,gltf,detour] [--preset NAME] [--set NAME=VALUE ...] [--save]
        [--jobs N | --scheduler ADDRESS [--connect-timeout SECONDS]] [--report report.json]

Inside Blender (the file Blender opened is baked; ``--jobs`` is not available)::

    blender --background level.blend --python-exit-code 1 --python scripts/bake.py -- \\
        [--out DIR] [--format ...] [--preset NAME] [--set NAME=VALUE ...] [--save]

Settings come from each file's saved NavJump panel, then ``--preset`` (an agent preset by
its menu name, e.g. "Human"), then ``--set`` (any BakeSettings field). Outputs are named
``<level>.navjump.json`` (+ ``.navjump.obj``, ``.navjump.glb``, ``.navjump.detour.bin``)
in DIR, or beside each .blend. ``--save`` also stores the result in the .blend.

``--jobs N`` bakes N files at once in worker processes (bpy holds one file per process).
``--scheduler ADDRESS`` sends one task per file to a Dask cluster instead (the ``farm``
extra; see blender_navjump/farm/dask_runner.py). For render farms that run Open Job
Description jobs: scripts/openjd/navjump-bake.openjd.yaml. Report format: docs/batch-report.md.
stdout gets one line per file (``OK ...`` / ``FAILED file: reason``) and a total line;
Blender's log goes to stderr. Exit code 0 only if every file baked; 2 for bad arguments.

The NavJump extension is taken from Blender when it is enabled there; otherwise this
checkout's source tree is loaded as an extension (staged into the local repository
``$NAVJUMP_DEV_REPO``, default ``navjump_dev``, in Blender's user folder). Installed
extensions also offer the same bake as ``blender -c navjump bake level.blend ...``.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _inside_blender() -> bool:
    # Blender has imported bpy before it runs a --python script; plain Python has not.
    return "bpy" in sys.modules


def main(argv: list[str] | None = None) -> int:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run from a checkout without installing
    inside = _inside_blender()
    if not inside:
        from blender_navjump.interrupts import HeldInterrupts

        # Ctrl-C is held until Blender and the extension are loaded (batch_cli.script_main)
        held = HeldInterrupts()
    from blender_navjump import batch_cli

    if inside:
        if argv is None:
            argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
        return batch_cli.blender_script_main(argv)
    argv = sys.argv[1:] if argv is None else argv
    scheduler_run = None
    if any(a == "--scheduler" or a.startswith("--scheduler=") for a in argv):
        from blender_navjump.farm import dask_runner

        scheduler_run = dask_runner.script_run
    return batch_cli.script_main(argv, scheduler_run=scheduler_run, held=held)


if __name__ == "__main__":
    sys.exit(main())
