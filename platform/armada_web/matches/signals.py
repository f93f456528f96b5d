"""What the matches app tells the apps above it (they connect receivers in their AppConfig.ready()).

- `match_recorded(sender=Match, match, seats, outcome)`: a match was played to the end and its
  result is being recorded, inside the recording transaction, after the conditional update that
  proved it counts now and never again. A receiver may write what depends on the result (the
  ladder writes ratings and each seat's rating before and after) in the same transaction.
- `match_voided(sender=Match, match, was)`: staff voided a match that was `was` (its status and
  kind before: a finished ranked one counted); sent inside the voiding transaction.
"""

from __future__ import annotations

from django.dispatch import Signal

match_recorded = Signal()
match_voided = Signal()
