"""What the integrity app tells the apps above it (they connect receivers in their AppConfig.ready()).

- `disqualified(sender=Disqualification, decision, entrants)`: staff disqualified entries from a
  season (inside the transaction that withdrew them; a receiver that mails writes the mail in it,
  and it is sent once that commits); `entrants` is each withdrawn entry's (team id, owner id).
"""

from __future__ import annotations

from django.dispatch import Signal

disqualified = Signal()
