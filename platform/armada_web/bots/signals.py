"""What the bots app tells the apps above it (they connect receivers in their AppConfig.ready()).

- `active_version_changed(sender=Bot, bot=bot)`: the version that plays for `bot` may have
  changed (a validation made a new one active, the owner chose one, staff sent one back to be
  validated again, the bot was retired, disabled, enabled or deleted). Sent inside the writing
  transaction; a receiver that acts on other tables defers its work with `transaction.on_commit`
  unless it is as cheap as the write itself (the ladder's flag of the playing rating).
- `validation_failed(sender=BotVersion, version=version)`: a version's validation ended `invalid`
  (the bot's fault) or `error` (the platform's, after its last attempt); sent once per ending,
  inside the transaction that records it when there is one (a receiver that mails defers it
  with `transaction.on_commit`).
- `validation_finished(sender=BotVersion, version=version, status=status)`: a version's validation
  ended (`valid`, `invalid` or `error`); sent once per ending, after the commit that recorded it
  (so a receiver sees the recorded row and may take its time: the integrity checks fingerprint
  the version's code).
- `bot_moving(sender=Bot, bot=bot, source=team, target=team)`: `bot` is about to move from its
  personal team `source` to `target` (`moves.move_bot`), inside its transaction, the teams' and
  the bot's rows locked; a receiver refuses the move by raising a DomainError (an event's rule of
  one bot per team) or follows it in the same transaction.
"""

from __future__ import annotations

from django.dispatch import Signal

active_version_changed = Signal()
validation_failed = Signal()
validation_finished = Signal()
bot_moving = Signal()
