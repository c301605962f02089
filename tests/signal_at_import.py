"""Run a command line that sends itself SIGINT the moment given modules are about to be
imported: a Ctrl-C aimed at one moment of the loading, which a timer cannot hit.

    python tests/signal_at_import.py MODULE[,MODULE...] MARKER -m PACKAGE [ARGS...]
    python tests/signal_at_import.py MODULE[,MODULE...] MARKER SCRIPT.py [ARGS...]

Each named module gets one signal, in whichever thread imports it; MARKER (a file) lists
the modules signalled, one per line, so a test can tell that its moment came.
"""

import os
import pathlib
import runpy
import signal
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


class SignalAt:
    def __init__(self, targets, marker):
        self.targets = set(targets)
        self.marker = marker

    def find_spec(self, name, path=None, target=None):
        if name in self.targets:
            self.targets.discard(name)
            with open(self.marker, "a") as fh:
                fh.write(name + "\n")
            os.kill(os.getpid(), signal.SIGINT)


def main():
    targets, marker, rest = sys.argv[1].split(","), sys.argv[2], sys.argv[3:]
    sys.path.insert(0, str(ROOT))  # this checkout's package, as `-m` from ROOT would
    sys.meta_path.insert(0, SignalAt(targets, marker))
    if rest[0] == "-m":
        sys.argv = [rest[1], *rest[2:]]
        runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = rest
        runpy.run_path(rest[0], run_name="__main__")


if __name__ == "__main__":
    main()
