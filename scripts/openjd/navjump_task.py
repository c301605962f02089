#!/usr/bin/env python
"""Commands of the NavJump Open Job Description template (navjump-bake.openjd.yaml).

    python navjump_task.py bake-one LEVEL.blend --out DIR [--format LIST] [--preset NAME]
        [--settings 'NAME=VALUE ...']
    python navjump_task.py merge --out DIR LEVEL.blend [...]
    python navjump_task.py params LEVEL.blend|@levels.txt [...] --out DIR [--format LIST]
        [--preset NAME] [--settings '...'] [--json params.json]

Run with a Python that has the bpy module (``pip install bpy==5.0.1`` on Python 3.11).
Exit codes and the per-file report: see blender_navjump/farm/openjd_task.py and
docs/batch-report.md.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run from a checkout without installing
    from blender_navjump.farm.openjd_task import main

    sys.exit(main())
