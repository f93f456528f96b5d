"""Well-behaved opponent: the seed's Ziltoidians (MD-9)."""
from _proto import play

play("Ziltoidians")
