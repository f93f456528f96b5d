"""Which teams a season's close lets in under its team rules (pure: ids and names in, ids out)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def admissible(team_order: Iterable[int], members: Mapping[int, Sequence[str]], *, limit: int | None,
               one_team_per_person: bool) -> set[int]:
    """The teams (ids, best placed first, repeats ignored) that enter: a team with more than
    `limit` members enters nothing; with `one_team_per_person`, a team sharing a member with a
    better placed team already taken enters nothing (D-S-14)."""
    taken: set[int] = set()
    people: set[str] = set()
    for team_id in dict.fromkeys(team_order):
        names = members.get(team_id, ())
        if limit is not None and len(names) > limit:
            continue
        if one_team_per_person and people.intersection(names):
            continue
        taken.add(team_id)
        people.update(names)
    return taken
