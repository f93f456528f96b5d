"""kill -1 then kill itself with SIGKILL when asked for orders: status crashed, signal 9."""
import contextlib
import os
import signal

from _proto import play


def die():
    with contextlib.suppress(ProcessLookupError):  # nothing else to kill: ESRCH
        os.kill(-1, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


play("Kamikaze", on_orders=die)
