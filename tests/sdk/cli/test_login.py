"""`armada login` against a fake site; the stored credentials (mode 0600) and the environment overrides."""

from __future__ import annotations

import io
import json
import os
import socket
import stat
from pathlib import Path

import pytest

from armada import __version__
from armada.cli import config
from armada.cli.commands import login
from armada.cli.common import CliError
from armada.cli.main import main
from tests.sdk.cli.fake_site import TOKEN, FakeSite


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


class Terminal(io.StringIO):
    """stdin as a terminal (nothing typed: the prompts are answered by the patched functions)."""

    def isatty(self) -> bool:
        return True


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_login_with_password_on_stdin(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", site.url + "/", "--username", "alice"]) == 0
    out = capsys.readouterr().out
    assert f"logged in as alice on {site.url}\n" in out
    assert str(home) in out
    assert site.paths() == ["GET /api/version/", "POST /api/tokens/", "GET /api/me/"]
    token_request = site.seen("POST", "/api/tokens/")[0]
    assert token_request.json() == {"username": "alice", "password": "s3cret",
                                    "name": f"armada-cli@{socket.gethostname()}"}
    assert token_request.headers["Content-Type"] == "application/json"
    assert "Authorization" not in token_request.headers
    assert site.seen("GET", "/api/me/")[0].headers["Authorization"] == f"Token {TOKEN}"
    assert json.loads(home.read_text()) == {"server": site.url, "token": TOKEN, "username": "alice", "token_id": 7}
    assert _mode(home) == 0o600
    assert _mode(home.parent) == 0o700
    assert [p.name for p in home.parent.iterdir()] == ["config.json"]  # no temporary file left


def test_logging_in_again_revokes_the_token_stored_before(site: FakeSite, home: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A trial: each `armada login` left one more live token named armada-cli@host; the one this machine
    stored before is revoked once the new one is stored (one already revoked on the site is fine)."""
    for expected in ([7], [7, 8]):
        _stdin(monkeypatch, "s3cret\n")
        assert main(["login", "--server", site.url, "--username", "alice"]) == 0
        assert site.revoked == expected[:-1]
        assert json.loads(home.read_text())["token_id"] == expected[-1]
    assert "the token stored before (id 7) is revoked" in capsys.readouterr().out
    site.revoked.append(8)  # revoked on the profile page meanwhile
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 0
    captured = capsys.readouterr()
    assert "revoked" not in captured.out and captured.err == ""
    assert json.loads(home.read_text())["token_id"] == 9


def test_login_asks_on_a_terminal(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[str] = []
    monkeypatch.setattr("sys.stdin", Terminal(""))
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "alice")
    monkeypatch.setattr(login.getpass, "getpass", lambda prompt: asked.append(prompt) or "s3cret")
    assert main(["login", "--server", site.url]) == 0
    assert asked == ["username: ", "password: "]
    assert json.loads(home.read_text())["token"] == TOKEN


def test_wrong_password_is_refused_and_nothing_stored(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, "wrong\n")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 2
    err = capsys.readouterr().err
    assert err == (f"armada: error: login refused by {site.url}: "
                   "Unable to log in with provided credentials. (HTTP 400) "
                   f"(no account yet? sign up at {site.url}/accounts/signup/)\n")
    assert not home.exists()


@pytest.mark.parametrize(("status", "body", "code", "message"), [
    (429, {"detail": "Request was throttled. Expected available in 60 seconds."}, 2,
     "Request was throttled. Expected available in 60 seconds. (HTTP 429)"),
    (500, b"<h1>Server Error (500)</h1>", 3, "the server failed on POST /api/tokens/ (HTTP 500): "
     "HTTP 500 Internal Server Error"),
])
def test_token_failures(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str], status: int, body: object, code: int,
                        message: str) -> None:
    site.force("POST", "/api/tokens/", status, body, "text/html" if isinstance(body, bytes) else "application/json")
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", site.url, "--username", "alice"]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert ("make a token on your profile page" in err and "`armada login --token-stdin`" in err) == (status == 429)
    assert not home.exists()


def test_a_login_that_cannot_store_its_token_revokes_it(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """An API trial: with a config folder that cannot be made, each `armada login` failed after making a
    live token on the site, which no one would ever see or revoke (50 tokens at most per user)."""
    home.parent.parent.write_text("a file where the config folder goes")
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 2
    err = capsys.readouterr().err
    assert "armada: the token this login made (id 7) was not stored, so it is revoked again" in err
    assert err.splitlines()[-1].startswith("armada: error: cannot ")
    assert site.revoked == [7] and site.seen("DELETE", "/api/tokens/7/")[0].headers["Authorization"] == f"Token {TOKEN}"


def test_a_listener_that_is_not_a_web_server_is_one_line(home: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """An API trial: a port answering an SSH banner gave http.client.BadStatusLine's traceback."""
    import threading

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()

        def banner() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9\r\n")
                conn.recv(4096)

        threading.Thread(target=banner, daemon=True).start()
        server = f"http://127.0.0.1:{listener.getsockname()[1]}"
        _stdin(monkeypatch, "s3cret\n")
        assert main(["login", "--server", server, "--username", "alice"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"armada: error: {server} did not answer as a web server does (BadStatusLine") and \
        err.count("\n") == 1


def test_piped_password_needs_username(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", site.url]) == 2
    assert "give --username when the password comes from stdin" in capsys.readouterr().err
    _stdin(monkeypatch, "")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 2
    assert "no password on stdin" in capsys.readouterr().err
    assert site.seen("POST", "/api/tokens/") == []


def test_unreachable_server(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", f"http://127.0.0.1:{port}", "--username", "alice"]) == 2
    assert capsys.readouterr().err == f"armada: error: cannot reach http://127.0.0.1:{port}: Connection refused\n"


@pytest.mark.parametrize("server", ["ftp://example.org", "example.org", "http://", "http://x/?a=1",
                                    "http://[::1", "http://127.0.0.1:abc", "http://127.0.0.1:99999",
                                    "http://a b", "http://:8000", "http://a\x00b"])
def test_bad_server_address(server: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["login", "--server", server, "--username", "alice"]) == 2
    assert "bad server address" in capsys.readouterr().err


def test_other_api_version_is_refused(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    site.api_info = {"api": 2, "sdk": "1.0.0"}
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 2
    err = capsys.readouterr().err
    assert f"speaks API version 2 and this SDK ({__version__}) speaks version 1" in err
    assert site.paths() == ["GET /api/version/"]


def test_not_an_armada_site(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    site.force("GET", "/api/version/", 404, b"<html>nope</html>", "text/html")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 2
    assert f"{site.url} has no /api/version/: is it an Armada site?" in capsys.readouterr().err
    # the API's address given for the site's (an audit of bad input): the site's own is suggested
    site.force("GET", "/api/api/version/", 404, {"detail": "Not found."})
    assert main(["login", "--server", f"{site.url}/api/", "--username", "alice"]) == 2
    assert (f"{site.url}/api has no /api/version/: is it an Armada site? (its address without /api?)"
            in capsys.readouterr().err)


def test_newer_site_sdk_gives_a_warning(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    site.api_info = {"api": 1, "sdk": "9.0.0"}
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [f"armada: warning: this SDK is {__version__} and {site.url} runs 9.0.0: "
                        "upgrade the armada package to get the site's latest engines and checks"]


def test_redirect_is_not_followed(site: FakeSite, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site.force("GET", "/api/version/", 301, b"")
    assert main(["login", "--server", site.url, "--username", "alice"]) == 2
    err = capsys.readouterr().err
    assert "redirects /api/version/ to https://elsewhere.example.org/api/version/" in err
    assert len(site.requests) == 1


# --- the configuration file ----------------------------------------------------------------


def test_config_is_private_whatever_the_umask(home: Path) -> None:
    home.parent.mkdir(parents=True)
    home.write_text("{}")
    os.chmod(home, 0o644)  # an older, world-readable file is replaced, not rewritten in place
    old = os.umask(0)
    try:
        path = config.save_credentials(config.Credentials("http://h:1", "t", "u"))
    finally:
        os.umask(old)
    assert path == home
    assert _mode(home) == 0o600
    assert config.load_credentials() == config.Credentials("http://h:1", "t", "u")


def test_config_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config.config_path() == tmp_path / "armada" / "config.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")  # the XDG spec: relative paths are invalid
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert config.config_path() == tmp_path / "h" / ".config" / "armada" / "config.json"


def test_environment_overrides(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert config.settings(None) == config.Settings(config.DEFAULT_SERVER, None, None)
    config.save_credentials(config.Credentials("http://stored:1", "stored-token", "alice"))
    assert config.settings(None) == config.Settings("http://stored:1", "stored-token", "alice")
    monkeypatch.setenv("ARMADA_TOKEN", "env-token")
    assert config.settings(None) == config.Settings("http://stored:1", "env-token", None)
    monkeypatch.setenv("ARMADA_SERVER", "http://env:2/")
    assert config.settings(None).server == "http://env:2"
    assert config.settings("http://arg:3").server == "http://arg:3"  # --server beats everything


def test_stored_token_goes_only_to_its_server(home: Path) -> None:
    config.save_credentials(config.Credentials("http://stored:1", "stored-token", "alice"))
    other = config.settings("http://other:2")
    assert other.token is None
    with pytest.raises(CliError, match=r"not logged in to http://other:2 \(only to http://stored:1\): "
                                       r"run `armada login http://other:2`"):
        config.require_token(other)


def test_damaged_config_is_one_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home.parent.mkdir(parents=True)
    home.write_text('{"server": 1}')
    assert main(["submit", "builtin:random", "--game", "galaxy", "--bot", "abc"]) == 2
    err = capsys.readouterr().err
    assert err == (f'armada: error: {home}: expected {{"server", "token", "username"}}; '
                   "run `armada login` again\n")


def test_login_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["login", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: armada login")
    assert "armada login https://armada.example.org" in out.split("examples:")[1]


def test_login_takes_the_server_as_an_argument(site: FakeSite, home: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _stdin(monkeypatch, "s3cret\n")
    assert main(["login", site.url, "--username", "alice"]) == 0
    assert f"logged in as alice on {site.url}\n" in capsys.readouterr().out
    assert json.loads(home.read_text())["server"] == site.url
    _stdin(monkeypatch, "s3cret\n")  # the same server both ways is fine
    assert main(["login", site.url + "/", "--server", site.url, "--username", "alice"]) == 0


def test_login_refuses_two_different_servers(site: FakeSite, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["login", site.url, "--server", "http://127.0.0.1:1", "--username", "alice"]) == 2
    assert "two servers given" in capsys.readouterr().err
    assert site.requests == []
    assert main(["login", "ftp://x", "--username", "alice"]) == 2
    assert "bad server address 'ftp://x'" in capsys.readouterr().err


def test_a_token_made_on_the_site_is_stored_once_the_site_knows_it(site: FakeSite, home: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`--token-stdin`: a token from the profile page (shown once there) goes into the CLI's file;
    only after GET /api/me/ with it answers, and without ever creating another token."""
    _stdin(monkeypatch, f"  {TOKEN}\n")
    assert main(["login", site.url, "--token-stdin"]) == 0
    assert capsys.readouterr().out.startswith(f"logged in as alice on {site.url}\ntoken stored in {home}")
    assert site.paths() == ["GET /api/version/", "GET /api/me/"]
    assert json.loads(home.read_text()) == {"server": site.url, "token": TOKEN, "username": "alice"}
    assert _mode(home) == 0o600


@pytest.mark.parametrize(("given", "message"), [
    ("revoked-one\n", "does not know that token (revoked, or from another site?): copy a new one from your "
                      "profile page; nothing was stored"),
    ("\n", "no token given (copy it from your profile page"),
    ("two words\n", "that is not a token"),
])
def test_a_token_the_site_refuses_or_no_token_stores_nothing(site: FakeSite, home: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], given: str,
                                                           message: str) -> None:
    _stdin(monkeypatch, given)
    assert main(["login", site.url, "--token-stdin"]) == 2
    assert message in capsys.readouterr().err
    assert not home.exists()


def test_a_token_is_asked_unechoed_on_a_terminal_and_not_with_a_username(site: FakeSite, home: Path,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[str] = []
    monkeypatch.setattr("sys.stdin", Terminal(""))
    monkeypatch.setattr(login.getpass, "getpass", lambda prompt: asked.append(prompt) or TOKEN)
    assert main(["login", "--server", site.url, "--token-stdin"]) == 0
    assert asked == ["token: "] and json.loads(home.read_text())["token"] == TOKEN
    assert main(["login", site.url, "--token-stdin", "--username", "alice"]) == 2
    assert "give --username (to log in with your password) or --token-stdin" in capsys.readouterr().err
