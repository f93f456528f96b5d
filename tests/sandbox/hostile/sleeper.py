"""Sleeps forever when asked for orders."""
import time

from _proto import play

play("Sleeper", on_orders=lambda: time.sleep(3600))
