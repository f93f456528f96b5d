"""An infinite loop at request `when`: never answers, never reads again."""
from _raw import play


def spin(msg):
    while True:
        pass


play(spin)
