"""What the seasons app tells the apps above it (they connect receivers in their AppConfig.ready()).

- `season_finished(sender=Season, season)`: a season's final standings were written (inside the
  transaction that writes them; a receiver that mails defers it with `transaction.on_commit`).
- `standings_rewritten(sender=Season, season, places_before)`: a finished season's final standings
  were written again without the entries staff disqualified (inside that transaction);
  `places_before` maps each bot's id (`bot_ref`) to its place before.
- `season_closed(sender=Season, season)`: a season closed and its entries were frozen (inside the
  transaction that froze them; a receiver that starts work defers it with `transaction.on_commit`).
"""

from __future__ import annotations

from django.dispatch import Signal

season_finished = Signal()
season_closed = Signal()
standings_rewritten = Signal()
