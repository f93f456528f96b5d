"""A small real HTTP server speaking the site's API contract, for the login, submit and challenge tests.

It runs `http.server` in a thread on 127.0.0.1 (a free port), records every request it gets
(method, path, query, headers, body) and answers like the site would; tests change its
state (users, bots, the statuses a version goes through) or force an answer for a path.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from email import policy
from email.message import Message
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "tok-0123456789abcdef"


@dataclass
class Seen:
    """One request the fake site received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: Message
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def multipart(self) -> dict[str, tuple[str | None, bytes]]:
        """The multipart parts as {name: (filename, content)}, parsed by the standard e-mail parser."""
        raw = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + self.body
        message = BytesParser(policy=policy.HTTP).parsebytes(raw)
        assert message.is_multipart()
        parts = {}
        for part in message.iter_parts():
            parts[part.get_param("name", header="content-disposition")] = (part.get_filename(),
                                                                          part.get_payload(decode=True))
        return parts


@dataclass
class FakeSite:
    """State and answers of the fake site; `url` is set once it serves."""

    url: str = ""
    users: dict[str, str] = field(default_factory=lambda: {"alice": "s3cret"})
    api_info: dict[str, Any] = field(default_factory=lambda: {"api": 1, "sdk": "0.1.0"})
    bots: list[dict[str, Any]] = field(default_factory=list)
    versions: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: Statuses the next GETs of a version answer, one per request (the last one stays).
    statuses: list[str] = field(default_factory=lambda: ["validating", "valid"])
    #: A version's "resources" once polled (None: an older site without them).
    resources: dict[str, Any] | None = None
    #: A version's "active" once polled (None: left out).
    active: bool | None = None
    #: What GET /api/bots/{id}/ says the bot plays instead: (version id, number, pinned); None: no such path.
    plays: tuple[int, int, bool] | None = None
    detail: str = ""
    log: str = ""
    page_size: int = 50
    matches: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: Statuses the next GETs of a match answer, one per request (the last one stays).
    match_statuses: list[str] = field(default_factory=lambda: ["running", "finished"])
    #: The result a finished match shows, and each seat's status and detail.
    match_result: dict[str, Any] = field(default_factory=lambda: {"winner": 2, "outcome": "elimination", "turns": 31})
    match_players: list[tuple[str, str]] = field(default_factory=lambda: [("ok", ""), ("ok", "")])
    match_reason: str = ""
    #: The id of the latest token made (`POST /api/tokens/`), and those revoked since.
    token_ids: int = 6
    revoked: list[int] = field(default_factory=list)
    #: The `waiting` of a queued match (a season's finals take every worker).
    match_waiting: str = ""
    #: Challenges accepted before the hourly limit answers 429.
    challenges_left: int = 10
    #: How a challenge's answer links its page: "page" (the path /matches/ID/) or "url" (absolute).
    match_link: str = "page"
    #: Forced answers: (method, path) -> (status, body bytes, content type); a list is used up in order.
    forced: dict[tuple[str, str], Any] = field(default_factory=dict)
    #: Seconds to wait before answering a path (to test timeouts).
    slow: dict[str, float] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)
    #: alice's teams (GET /api/me/ and /api/teams/), the personal one first.
    teams: list[dict[str, Any]] = field(default_factory=lambda: [
        {"id": 1, "name": "alice", "personal": True, "archived": False, "members": [{"username": "alice"}]}])

    def seen(self, method: str | None = None, path: str | None = None) -> list[Seen]:
        return [r for r in self.requests if (method is None or r.method == method) and (path is None or r.path == path)]

    def paths(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.requests]

    def force(self, method: str, path: str, status: int, body: Any, content_type: str = "application/json") -> None:
        self.forced[(method, path)] = self.forced_answer(status, body, content_type)

    @staticmethod
    def forced_answer(status: int, body: Any, content_type: str = "application/json",
                      headers: dict[str, str] | None = None) -> tuple[int, bytes, str, dict[str, str]]:
        """An answer for `forced` (a list of them is used up in order), with extra headers."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return status, raw, content_type, headers or {}

    # --- answers ----------------------------------------------------------------------------

    def answer(self, seen: Seen) -> tuple[int, bytes, str] | tuple[int, bytes, str, dict[str, str]]:
        self.requests.append(seen)
        threading.Event().wait(self.slow.get(seen.path, 0))  # not time.sleep, which tests may replace
        forced = self.forced.get((seen.method, seen.path))
        if isinstance(forced, list):
            forced = forced.pop(0) if forced else None
        if forced is not None:
            return forced
        status, data = self.route(seen)
        return status, b"" if data is None else json.dumps(data).encode(), "application/json"

    def route(self, seen: Seen) -> tuple[int, Any]:
        method, path = seen.method, seen.path
        if (method, path) == ("GET", "/api/version/"):
            return 200, self.api_info
        if (method, path) == ("POST", "/api/tokens/"):
            body = seen.json()
            if self.users.get(body.get("username")) != body.get("password"):
                return 400, {"detail": "Unable to log in with provided credentials."}
            self.token_ids += 1
            return 201, {"id": self.token_ids, "name": body.get("name"), "token": TOKEN,
                         "created": "2025-01-01T00:00:00Z"}
        if seen.headers.get("Authorization") != f"Token {TOKEN}":
            return 401, {"detail": "Invalid token."}
        if method == "DELETE" and path.startswith("/api/tokens/"):
            gone = int(path.split("/")[3])
            if gone in self.revoked or gone > self.token_ids:
                return 404, {"detail": "no such token"}
            self.revoked.append(gone)
            return 204, None
        if (method, path) == ("GET", "/api/me/"):
            return 200, {"id": 1, "username": "alice", "email": "", "date_joined": "2025-01-01T00:00:00Z",
                         "teams": [{k: t[k] for k in ("id", "name", "personal")} for t in self.teams]}
        if (method, path) == ("GET", "/api/bots/"):
            return 200, self.bot_page(seen.query)
        if (method, path) == ("POST", "/api/bots/"):
            body = seen.json()
            if any(b["name"].lower() == body["name"].lower() and b["game"] == body["game"] for b in self.bots):
                return 409, {"detail": f"the name {body['name']!r} is taken for Galaxy; choose another"}
            team = next(t for t in self.teams if t["id"] == body.get("team", 1))
            bot = {"id": len(self.bots) + 1, "name": body["name"], "game": body["game"], "owner": "alice",
                   "team": {"id": team["id"], "name": team["name"]},
                   "description": body.get("description", ""), "active_version": None, "retired": False}
            self.bots.append(bot)
            return 201, bot
        if path.startswith("/api/teams/"):
            return self.team_route(method, path, seen)
        if (method, path) == ("POST", "/api/challenges/"):
            return self.challenge(seen.json())
        parts = path.strip("/").split("/")
        if method == "GET" and len(parts) == 3 and parts[:2] == ["api", "matches"] and parts[2].isdigit():
            return self.match(int(parts[2]))
        if method == "DELETE" and len(parts) == 3 and parts[:2] == ["api", "bots"] and parts[2].isdigit():
            reached = any(v["bot"] == int(parts[2]) for v in self.versions.values())
            if seen.query.get("if_empty") == ["true"] and reached:
                return 409, {"detail": "mybot has 1 version now: it was not deleted"}
            before = len(self.bots)
            self.bots = [b for b in self.bots if b["id"] != int(parts[2])]
            return (204, None) if len(self.bots) < before else (404, {"detail": "Not found."})
        if method == "GET" and len(parts) == 3 and parts[:2] == ["api", "bots"] and self.plays is not None:
            bot = next((b for b in self.bots if str(b["id"]) == parts[2]), None)
            if bot is None:
                return 404, {"detail": "Not found."}
            vid, number, pinned = self.plays
            versions = [{"id": v["id"], "number": v["number"], "status": v["status"]} for v in self.versions.values()
                        if v["bot"] == bot["id"]]
            return 200, bot | {"active_version": vid, "pinned": pinned,
                               "versions": [*versions, {"id": vid, "number": number, "status": "valid"}]}
        if method == "POST" and len(parts) == 4 and parts[:2] == ["api", "bots"] and parts[3] == "versions":
            return self.new_version(int(parts[2]), seen)
        if method == "GET" and len(parts) == 3 and parts[:2] == ["api", "versions"]:
            version = self.versions.get(int(parts[2]))
            if version is None:
                return 404, {"detail": "Not found."}
            if self.statuses:
                version["status"] = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
            extra = {"resources": self.resources} if self.resources is not None else {}
            if self.active is not None:
                extra["active"] = self.active
            return 200, version | {"detail": self.detail, "log": self.log} | extra
        return 404, {"detail": "Not found."}

    def team_route(self, method: str, path: str, seen: Seen) -> tuple[int, Any]:
        """/api/teams/: list and create; {id}/: show (with bots); {id}/join/ and {id}/leave/."""
        parts = path.strip("/").split("/")
        if len(parts) == 2:
            if method == "GET":
                return 200, self.teams
            team = {"id": len(self.teams) + 1, "name": seen.json()["name"], "personal": False, "archived": False,
                    "members": [{"username": "alice"}], "join_key": "KEY"}
            self.teams.append(team)
            return 201, team
        team = next((t for t in self.teams if t["id"] == int(parts[2])), None)
        if team is None:
            return 404, {"detail": "no such team"}
        if len(parts) == 4 and parts[3] == "join":
            if seen.json().get("key") != team.get("join_key"):
                return 403, {"detail": "that is not this team's join key"}
            return 200, team
        if len(parts) == 4 and parts[3] == "leave":
            return 200, team
        bots = [{"id": b["id"], "name": b["name"], "game": b["game"]} for b in self.bots
                if b.get("team", {}).get("id") == team["id"]]
        return 200, team | {"bots": bots}

    def bot_page(self, query: dict[str, list[str]]) -> dict[str, Any]:
        """Bots filtered like a loose search (name contains), so the client must match exactly."""
        found = [b for b in self.bots
                 if all(q.lower() in str(b[k]).lower() if k == "name" else b[k] == q
                        for k, values in query.items() if k in ("game", "owner", "name") for q in values)]
        page = int(query.get("page", ["1"])[0])
        start = (page - 1) * self.page_size
        more = start + self.page_size < len(found)
        nxt = f"{self.url}/api/bots/?page={page + 1}&" + "&".join(
            f"{k}={v[0]}" for k, v in query.items() if k != "page") if more else None
        return {"count": len(found), "next": nxt, "previous": None, "results": found[start:start + self.page_size]}

    def find_bot(self, ref: Any) -> dict[str, Any] | None:
        """A bot by id (an integer) or by name (a string), as the site's challenges accept them."""
        for bot in self.bots:
            if (isinstance(ref, int) and not isinstance(ref, bool) and bot["id"] == ref) or bot["name"] == ref:
                return bot
        return None

    def challenge(self, body: dict[str, Any]) -> tuple[int, Any]:
        bot, opponent = self.find_bot(body.get("bot")), self.find_bot(body.get("opponent"))
        for found, ref in ((bot, body.get("bot")), (opponent, body.get("opponent"))):
            if found is None:
                return 404, {"detail": f"no bot {ref!r}"}
        assert bot is not None and opponent is not None
        if bot["owner"] != "alice":
            return 403, {"detail": "not your bot: challenge with one of your own bots"}
        if bot is opponent:
            return 400, {"detail": "a bot cannot challenge itself"}
        if self.challenges_left <= 0:
            return 429, {"detail": "challenge limit reached: 10 challenges per hour; try again within the hour"}
        self.challenges_left -= 1
        mid = 500 + len(self.matches)
        players = [{"bot": {"id": b["id"], "name": b["name"], "version": 1}, "name": b["name"].title(), "seat": seat,
                    "result": "", "status": "", "detail": ""} for seat, b in ((1, bot), (2, opponent))]
        match = {"id": mid, "game": bot["game"], "kind": "challenge", "status": "queued", "players": players,
                 "result": None, "turns": None, "reason": "", "replay": None}
        match |= {"page": f"/matches/{mid}/"} if self.match_link == "page" else {"url": f"{self.url}/matches/{mid}/"}
        self.matches[mid] = match
        return 201, match

    def match(self, mid: int) -> tuple[int, Any]:
        match = self.matches.get(mid)
        if match is None:
            return 404, {"detail": "no such match"}
        if self.match_statuses:
            match["status"] = self.match_statuses.pop(0) if len(self.match_statuses) > 1 else self.match_statuses[0]
        if match["status"] == "finished":
            winner = self.match_result.get("winner")
            for player, (status, detail) in zip(match["players"], self.match_players, strict=True):
                player |= {"status": status, "detail": detail,
                           "result": "draw" if winner is None else "win" if winner == player["seat"] else "loss"}
                if player["bot"]["name"] in {b["name"] for b in self.bots if b["owner"] == "alice"}:
                    player["log"] = f"log of {player['bot']['name']}\nTraceback: boom\n"
            match |= {"result": self.match_result, "turns": self.match_result.get("turns"),
                      "replay": f"{self.url}/api/matches/{mid}/replay/"}
        elif match["status"] in ("void", "failed"):
            match["reason"] = self.match_reason
        match["waiting"] = self.match_waiting if match["status"] == "queued" else ""
        return 200, {k: v for k, v in match.items() if k not in ("page", "url")}

    def new_version(self, bot_id: int, seen: Seen) -> tuple[int, Any]:
        parts = seen.multipart()
        if "file" not in parts:
            return 400, {"detail": "No file was submitted."}
        number = sum(1 for v in self.versions.values() if v["bot"] == bot_id) + 1
        vid = 100 + len(self.versions)
        version = {"id": vid, "bot": bot_id, "number": number, "status": "pending", "detail": "",
                   "created": "2025-01-01T00:00:00Z", "url": f"{self.url}/bots/{bot_id}/versions/{number}/"}
        self.versions[vid] = version
        return 201, dict(version)


def make_handler(site: FakeSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            split = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            seen = Seen(self.command, split.path, parse_qs(split.query), self.headers, body)
            status, data, content_type, *extra = site.answer(seen)
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                for name, value in (extra[0] if extra else {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                if 300 <= status < 400:
                    self.send_header("Location", "https://elsewhere.example.org/api/version/")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                pass

        do_GET = do_POST = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
            pass

    return Handler


class Serving:
    """Run a FakeSite on 127.0.0.1 in a thread: `with Serving() as site: ...`."""

    def __init__(self, site: FakeSite | None = None) -> None:
        self.site = site or FakeSite()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.site))
        self.server.daemon_threads = True
        self.site.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> FakeSite:
        self.thread.start()
        return self.site

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
