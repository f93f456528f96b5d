"""Page views: thin, data comes from queries."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from armada.games.base import SEATS

GAMES = [
    {
        "slug": "mothership",
        "name": "Mothership Down",
        "blurb": "Allocate 100 points to a mothership and five fighters; "
        "fixed orders fight every other race in a league.",
    },
    {
        "slug": "galaxy",
        "name": "Galaxy",
        "blurb": "Two players, sixteen planets, hidden fleets and espionage probes; "
        "conquer the grid within 200 turns.",
    },
]


def home(request: HttpRequest) -> HttpResponse:
    """The landing page: what Armada is and the two games."""
    return render(request, "pages/home.html", {"games": GAMES, "seats": len(SEATS)})
