"""Spins forever when asked for orders."""
from _proto import play


def spin():
    while True:
        pass


play("Spinner", on_orders=spin)
