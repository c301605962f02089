"""``python -m blender_navjump ...``: the command line without Blender."""

import sys

if __name__ == "__main__":
    from .interrupts import HeldInterrupts

    held = HeldInterrupts()  # before anything heavy is imported: see interrupts.py
    from .cli import main

    sys.exit(main(sys.argv[1:], held=held))
