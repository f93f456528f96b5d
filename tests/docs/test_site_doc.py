"""docs/site.md's API list (a contract the CLI and other clients read) names every field the match
API answers: issue 30 made `"host"` part of `GET /api/matches/{id}/`, issue 27 `"timing"`'s
`total_ms`, `max_ms` and `timeouts`."""

from __future__ import annotations

from pathlib import Path

from armada_web.api.matches import MatchDetailSerializer, TimingSerializer

DOC = Path(__file__).resolve().parents[2] / "docs" / "site.md"


def block(start: str) -> str:
    """The API list's entry starting with `start`, with its continuation lines."""
    lines = DOC.read_text().splitlines()
    first = next(i for i, text in enumerate(lines) if text.startswith(start))
    rest = []
    for text in lines[first + 1:]:
        if not text.startswith(" "):
            break
        rest.append(text)
    return "\n".join([lines[first], *rest])


def test_the_match_entries_name_every_field_of_the_match_api():
    listed = block("GET    /api/matches/?") + block("GET    /api/matches/{id}/ ")
    missing = [name for name in MatchDetailSerializer().fields if f'"{name}"' not in listed]
    assert missing == [], f"docs/site.md's GET /api/matches/{{id}}/ does not name {missing}"
    timing = block("GET    /api/matches/{id}/ ")
    assert [name for name in TimingSerializer().fields if f'"{name}"' not in timing] == []
