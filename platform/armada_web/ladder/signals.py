"""What the ladder tells the apps above it (they connect receivers in their AppConfig.ready()).

- `version_benched(sender=Rating, rating)`: a version was just benched (its last ranked games all
  ended by its own fault); sent inside the transaction that records the match that benched it,
  once (recomputing the ratings benches without telling again).
"""

from __future__ import annotations

from django.dispatch import Signal

version_benched = Signal()
