"""Closes its standard output at request `when`, then keeps running."""
import os
import time

from _raw import play


def close(msg):
    os.close(1)
    time.sleep(30)


play(close)
