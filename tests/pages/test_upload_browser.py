"""The upload form in Debian's Chromium: a file past the game's size limit is refused before the
browser sends it (a trial's 110 MiB went up whole, then the answer named the request's size), and
a file within it is sent as before."""

from __future__ import annotations

import pytest

from armada.sizes import human_size
from armada_web.bots.models import BotVersion
from tests.pages.browser import clean, log_in, site_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_file_past_the_limit_is_refused_in_the_browser_before_sending(transactional_db, live_server, chromium,
                                                                        arena, armada, tmp_path):
    armada(upload_max_bytes=4096)
    big, small = tmp_path / "big.zip", tmp_path / "main.py"
    big.write_bytes(b"0" * 5000)
    small.write_text("print('hello')\n")
    versions = BotVersion.objects.filter(bot_id=arena.alpha.bot_id)
    before = versions.count()
    origin = live_server.url
    with site_page(chromium, origin) as page:
        log_in(page, origin, "alice")
        page.goto(f"{origin}/bots/{arena.alpha.bot_id}/upload/")
        limits = (f"at most 4 KiB, {human_size(armada.current.upload_limit('galaxy')[1])} unpacked and "
                  f"{armada.current.upload_max_files} files, this game's limits on this site")
        assert limits in page.locator("#upload").inner_text()
        page.set_input_files("#id_file", str(big))
        note = page.locator("#id_file-too-large")
        assert note.is_visible()
        assert note.inner_text().startswith("big.zip is 5000 bytes (5 KiB) and this game takes versions of at most "
                                            "4096 bytes (4 KiB): nothing was sent. To fit, export the model to ONNX")
        page.click("#upload button[type=submit]")  # the browser keeps an invalid form: nothing is sent
        page.wait_for_timeout(500)
        assert page.url == f"{origin}/bots/{arena.alpha.bot_id}/upload/" and versions.count() == before
        page.set_input_files("#id_file", str(small))
        assert not note.is_visible()
        page.click("#upload button[type=submit]")
        page.wait_for_url(f"{origin}/bots/{arena.alpha.bot_id}/versions/*/")
        assert versions.count() == before + 1
        clean(page)
