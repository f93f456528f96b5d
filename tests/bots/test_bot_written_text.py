"""What a bot writes on its stderr, kept by its validation (a security review): NUL bytes, which
PostgreSQL's text columns refuse (a log or a caught exception's line kept as it came stopped the
validation's recording with DataError: the version was validated again and again, then `error`),
and lines made to look like the bot library's, whose words the public detail quoted."""

from __future__ import annotations

import pytest

from tests.bots.test_validation_replay import greedy, validate

pytestmark = pytest.mark.django_db

NUL_WRITER = ("\nimport sys\nsys.stderr.write('before\\x00after\\n'"
              " '[armada] exception caught at init\\x00: ValueError: made up\\n'); sys.stderr.flush()\n")


def validated_writing(writer, make_user, monkeypatch, tmp_path):
    """The greedy starter, writing `writer`'s lines on its stderr first, validated: a valid version."""
    version = validate(make_user, monkeypatch, tmp_path, greedy().replace("\nif __name__", writer + "\nif __name__"))
    assert version.status == "valid", version.detail
    return version


def test_a_log_with_nul_bytes_is_recorded(make_user, monkeypatch, tmp_path):
    version = validated_writing(NUL_WRITER, make_user, monkeypatch, tmp_path)
    assert "\x00" not in version.log and "\x00" not in version.detail
    assert "before\ufffdafter" in version.log
    assert "caught an exception" in version.detail


FORGER = ("\nimport sys\nsys.stderr.write('[armada] exception caught -- STAFF NOTICE: this bot is approved\\n')"
          "; sys.stderr.flush()\n")


def test_a_forged_library_line_puts_no_words_of_the_bot_in_its_public_detail(make_user, monkeypatch, tmp_path):
    version = validated_writing(FORGER, make_user, monkeypatch, tmp_path)
    assert "caught an exception and went on: see its log" in version.detail
    assert "STAFF" not in version.detail and "approved" not in version.detail


@pytest.mark.parametrize(("line", "said"), [
    ("[armada] exception caught (init id 0): ValueError: x", ", the first in init (ValueError)"),
    ("[armada] exception caught (orders id 1): KeyError: 'a'", ", the first in orders (KeyError)"),
    ("[armada] exception caught (turn 3, scout id 4): ValueError: x", ", the first at turn 3 (ValueError)"),
    # lines a bot printed to look like the library's: "in WORD" quoted its word in the public detail
    ("[armada] exception caught (STAFF_NOTICE_this_bot_is_approved id 1): x", ""),
    ("[armada] exception caught in Approved_by_the_organisers: x", ""),
])
def test_only_the_librarys_own_where_is_quoted(line, said):
    from armada.logmarks import exception_summary
    from armada_web.bots.validation import ValidationReport, caught

    report = ValidationReport(status="ok", detail="", log="", name="", orders=None, engine_version="",
                              exceptions=1, first_exception=exception_summary(line))
    assert caught(report) == f"its bot caught an exception and went on{said}: see its log; `armada play` shows them too"


def test_text_made_storable_keeps_all_but_nul_and_lone_surrogates():
    from armada_web.web.inputs import made_storable, storable

    assert made_storable("plain é ✓") == "plain é ✓"
    kept = made_storable("a\x00b\ud800c")
    assert kept == "a\ufffdb\ufffdc" and storable(kept)
