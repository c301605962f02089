"""Ctrl-C held while the command line loads its modules (``python -m blender_navjump``).

A KeyboardInterrupt raised inside numpy's or numba's imports does not always reach the
command: it can turn into an ImportError, or numba clears it and the bake runs to the end
with exit status 0. So ``__main__`` holds Ctrl-C before it imports anything, and
:meth:`HeldInterrupts.release` answers it once the modules are loaded. Only ``signal`` is
imported here.
"""

import signal


class HeldInterrupts:
    """From its creation on, each Ctrl-C is counted instead of raised, until
    :meth:`release`. A process started with Ctrl-C ignored (a background job of a script)
    keeps ignoring it."""

    def __init__(self):
        self.count = 0
        self._previous = signal.getsignal(signal.SIGINT)
        if self._held():
            signal.signal(signal.SIGINT, self._hold)

    def _held(self) -> bool:
        return self._previous not in (signal.SIG_IGN, None)

    def _hold(self, signum, frame):
        self.count += 1

    def release(self) -> None:
        """Ctrl-C acts as before again; raises KeyboardInterrupt now if one was held."""
        if self._held():
            signal.signal(signal.SIGINT, self._previous)
        if self.count:
            raise KeyboardInterrupt
