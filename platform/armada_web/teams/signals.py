"""What the teams app tells the apps above it (they connect receivers in their AppConfig.ready()).

- `membership_changing(sender=Team, team, user_id, change)`: a member is about to join
  (`change` "join", also a former member restoring an archived team), leave ("leave") or be
  removed ("remove"), or a member is about to archive the team ("archive"), sent inside the
  change's transaction with the team's row locked, after the
  team's own rules passed and before anything is written. A receiver refuses the change by
  raising an `armada_web.web.errors` error (the seasons' team rules: a season's team size, one
  entered team per person, membership frozen from a season's close to its final results); the
  transaction then rolls back, nothing is written. So it is sent with `send`, never
  `send_robust`.
- `archive_changed(sender=Team, team)`: a team was archived or restored, inside the change's
  transaction with the team's row locked: its bots stop or start playing
  (`BotVersion.objects.playing()` reads the team's `archived`), so what the apps above keep of
  who plays follows in the same transaction (the ladder's `Rating.playing`, as for any change
  of a bot's playing version).
"""

from __future__ import annotations

from django.dispatch import Signal

membership_changing = Signal()
archive_changed = Signal()
