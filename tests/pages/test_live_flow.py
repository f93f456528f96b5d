"""A new competitor in Debian's headless Chromium against a live site (web server, validation
and match workers, Redis, Docker): sign up, create an API token, create a bot, upload its code,
watch the version page refresh itself until the sandbox says `valid`, open the ladder."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from armada.botspec import starter_file
from tests.pages.browser import PASSWORD, clean, site_page

pytestmark = [pytest.mark.browser, pytest.mark.docker, pytest.mark.redis, pytest.mark.slow]


def test_sign_up_token_upload_validated_in_the_browser(validation_site, chromium, tmp_path):
    url = validation_site.url
    bot_file = tmp_path / "main.py"
    bot_file.write_text(starter_file("greedy", "galaxy").read_text())
    with site_page(chromium, url) as page:
        page.goto(f"{url}/accounts/signup/")
        page.fill("input[name=username]", "newcomer")
        page.fill("input[name=password1]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{url}/my/bots/")
        clean(page)

        page.goto(f"{url}/accounts/profile/")
        page.fill("input[name=name]", "laptop")
        page.fill("#token-form input[name=password]", PASSWORD)
        page.click("main form.panel button[type=submit]")
        page.wait_for_url(f"{url}/accounts/profile/#new-token")  # the new token in view (on a phone, below)
        assert page.evaluate("document.activeElement.id") == "new-token"
        secret = page.locator("code.secret").text_content().strip()
        request = urllib.request.Request(f"{url}/api/me/", headers={"Authorization": f"Token {secret}"})
        with urllib.request.urlopen(request, timeout=10) as response:  # the token works for the API
            assert json.loads(response.read())["username"] == "newcomer"
        page.reload()
        assert page.locator("code.secret").count() == 0  # shown once

        page.goto(f"{url}/bots/new/")
        page.fill("input[name=name]", "first-bot")
        page.select_option("select[name=game]", "galaxy")
        page.fill("textarea[name=description]", "my first bot <img src=x onerror=window.__pwned=1>")
        page.click("main button[type=submit]")
        page.wait_for_url(f"{url}/bots/*/")
        page.set_input_files("#upload input[name=file]", str(bot_file))
        page.click("#upload button[type=submit]")
        page.wait_for_url(f"{url}/bots/*/versions/1/")
        deadline = time.monotonic() + 240
        status = ""
        while time.monotonic() < deadline:  # the page refreshes itself every 3 s while pending
            status = page.locator("#status").text_content().strip()
            if status not in ("pending", "validating"):
                break
            page.wait_for_timeout(500)
        assert status == "valid", validation_site.log("worker")
        assert page.locator("meta[http-equiv=refresh]").count() == 0  # done: no more refreshing
        clean(page)

        page.goto(f"{url}/ladder/galaxy/")
        assert page.locator("main").is_visible()
        page.goto(f"{url}/my/bots/")
        assert "first-bot" in page.content() and "valid" in page.content()
        clean(page)
