"""Ctrl-C held while a command line loads its modules.

A KeyboardInterrupt raised while numpy, numba and the core are imported does not always
reach the command: inside numpy's import it turns into an ImportError; inside a callback of
the import system (the import lock's weakref callback) it is dropped, and the bake runs
to the end with exit status 0. Raised while the ``bpy`` module starts Blender, it crashes Blender
(SIGSEGV). So ``python -m blender_navjump`` (``__main__``) and ``scripts/bake.py`` hold
Ctrl-C before they import anything, and :meth:`HeldInterrupts.release` answers it once
the modules (and Blender) are loaded. Only ``signal`` is imported here.
"""

import signal


class HeldInterrupts:
    """From its creation on, each Ctrl-C is counted instead of raised, until
    :meth:`release`. A process started with Ctrl-C ignored (a background job of a script)
    keeps ignoring it."""

    def __init__(self):
        self.count = 0
        self._released = False
        self._previous = signal.getsignal(signal.SIGINT)
        if self._held():
            signal.signal(signal.SIGINT, self._hold)

    def _held(self) -> bool:
        return self._previous not in (signal.SIG_IGN, None)

    def _hold(self, signum, frame):
        self.count += 1

    def release(self) -> None:
        """Ctrl-C acts as before again; raises KeyboardInterrupt now if one was held.
        Only the first call does anything."""
        if self._released:
            return
        self._released = True
        if self._held():
            signal.signal(signal.SIGINT, self._previous)
        if self.count:
            raise KeyboardInterrupt
