"""kill -1 then kill itself with SIGKILL when asked for orders: status crashed, signal 9."""
import os
import signal

from _proto import play


def die():
    try:
        os.kill(-1, signal.SIGKILL)  # nothing else to kill: ESRCH
    except ProcessLookupError:
        pass
    os.kill(os.getpid(), signal.SIGKILL)


play("Kamikaze", on_orders=die)
