"""``blender -c navjump bake level.blend [...]``: the batch bake as a Blender command.

Blender runs the command in background mode after loading the preferences, so it exists
only while the extension is enabled there (an extension installed with ``blender -c
extension install-file -e``, not under ``--factory-startup``). Arguments and behaviour
are those of :func:`..batch_cli.command_main`.
"""

import bpy

from .. import batch_cli
from .stub_gaps import register_cli_command

COMMAND_ID = "navjump"
_handle: object = None  # what register_cli_command returned; needed to unregister


def execute(argv) -> int:
    """Blender calls this with the arguments after ``-c navjump``; returns the exit code."""
    return batch_cli.command_main(list(argv))


def register():
    global _handle
    if _handle is None:
        _handle = register_cli_command(COMMAND_ID, execute)


def unregister():
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
