"""The staff's integrity pages (/staff/integrity/...): the 404 page for everyone but active staff
(anonymous, a user, a former staff member), for reading and for every button; the ranked report
with its reasons escaped, its counts per kind, its season filter and its audit log; a copy's two
sources side by side with the matching lines marked; the buttons POST with CSRF and act once."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.integrity import samples
from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(make_user):
    return make_user("judge", is_staff=True)


@pytest.fixture
def report(make_user, valid_version):
    """A copy found by the checks (all of ranked play), a finding whose reason is hostile, and a
    finished season with its own finding."""
    from armada_web.integrity import findings
    from armada_web.integrity.checks import run_checks
    from armada_web.seasons.services import close_season, create_season, finish_season

    versions = [valid_version(make_user(name), f"{name}bot", code=source)
                for name, source in (("orig", samples.ORIGINAL), ("copier", samples.RENAMED_REORDERED))]
    (copy,) = run_checks()
    hostile = findings.record(kind="accounts", key="users:x,y", season=None, subjects=["<i>x</i>", "y"], score=0.6,
                              reason="<script>alert(1)</script> shared an address", evidence={"links": []})
    season = finish_season(season=close_season(season=create_season(slug="s1", game="galaxy", name="Spring")))
    seasonal = findings.record(kind="collusion", key="bots:1>2", season=season, subjects=["orig", "copier"],
                               score=0.7, reason="origbot lost 9 of 9 to copierbot", evidence={"matches": []})
    return {"versions": versions, "copy": copy, "hostile": hostile, "season": season, "seasonal": seasonal}


def urls(report) -> list[str]:
    return ["/staff/integrity/", "/staff/integrity/?season=s1", f"/staff/integrity/{report['copy'].pk}/"]


def posts(report) -> list[tuple[str, dict[str, str]]]:
    return [(f"/staff/integrity/{report['copy'].pk}/mark/", {"status": "dismissed"}),
            ("/staff/integrity/run/", {"season": "s1"}), ("/staff/integrity/run/", {}),
            ("/staff/integrity/disqualify/", {"season": "s1", "username": "orig", "reason": "copy"})]


def test_everyone_but_active_staff_gets_the_404_page(report, client, make_user):
    from armada_web.integrity import tasks
    from armada_web.integrity.models import AuditEntry, Disqualification

    make_user("user")
    make_user("former", is_staff=True, is_active=False)
    for who in (None, "user", "former"):
        if who:
            assert client.login(username=who, password=PASSWORD) or who == "former"
        assert "/staff/integrity/" not in client.get("/").content.decode()  # no link to it either
        for url in urls(report):
            answer = client.get(url)
            assert answer.status_code == 404, (who, url)
            assert b"integrity" not in answer.content.lower() and b"alert" not in answer.content
        for url, data in posts(report):
            assert client.post(url, data).status_code == 404, (who, url)
    report["copy"].refresh_from_db()
    assert report["copy"].status == "open" and not Disqualification.objects.exists()
    assert not AuditEntry.objects.exclude(action="checked").exists()
    assert tasks.run_state(report["season"].pk) == tasks.run_state(None) == ""  # no run sent either


@pytest.mark.parametrize("slug", ["s1", ""])
def test_the_run_button_sends_the_checks_once_until_they_start_and_names_who_ran_them(report, client, staff,
                                                                                   monkeypatch, slug):
    """Staff run the checks of the season shown (or all of ranked play) from the page: one run is
    sent, a second press before it starts is refused with why, the page says it waits, then that it
    runs; the run's audit line names who pressed."""
    from django.core.cache import cache

    from armada_web.integrity import tasks
    from armada_web.integrity.models import AuditEntry

    sent: list[tuple[list[object], dict[str, object]]] = []
    monkeypatch.setattr(tasks.integrity_checks, "apply_async",
                        lambda args, kwargs, queue: sent.append((args, kwargs)))
    season = report["season"] if slug else None
    page = f"/staff/integrity/?season={slug}" if slug else "/staff/integrity/"
    client.force_login(staff)
    assert "Run the checks now" in client.get(page).content.decode()
    answer = client.post("/staff/integrity/run/", {"season": slug} if slug else {}, follow=True)
    assert answer.redirect_chain[-1][0] == page
    assert "were sent to run" in answer.content.decode()
    assert sent == [([season.pk if season else None], {"ran_by": "judge"})]
    again = client.post("/staff/integrity/run/", {"season": slug} if slug else {}, follow=True).content.decode()
    assert "sent already and wait for a worker" in again and len(sent) == 1
    assert "judge sent the checks to run" in again and "Run the checks now" not in again

    args, kwargs = sent[0]
    cache.add(tasks.run_lock(season.pk if season else None), 1, 60)  # a worker took it: running now
    running = client.get(page).content.decode()
    assert "The checks are running now" in running and "Run the checks now" not in running
    refused = client.post("/staff/integrity/run/", {"season": slug} if slug else {}, follow=True).content.decode()
    assert "are running now" in refused and len(sent) == 1
    cache.delete(tasks.run_lock(season.pk if season else None))
    before = AuditEntry.objects.filter(action="checked", season=season).count()
    tasks.integrity_checks(*args, **kwargs)
    run = AuditEntry.objects.filter(action="checked", season=season).first()
    assert AuditEntry.objects.filter(action="checked", season=season).count() == before + 1
    assert run is not None and run.by_name == "judge"
    shown = client.get(page).content.decode()
    assert "by judge" in shown and "Run the checks now" in shown  # done: the button is back
    client.post("/staff/integrity/run/", {"season": slug} if slug else {})
    assert len(sent) == 2


def test_the_run_button_for_a_season_gone_is_a_message(report, client, staff):
    client.force_login(staff)
    answer = client.post("/staff/integrity/run/", {"season": "gone"}, follow=True)
    assert answer.redirect_chain[-1][0] == "/staff/integrity/" and "gone" in answer.content.decode()


def test_staff_see_every_finding_ranked_with_escaped_reasons_and_the_counts(report, client, staff):
    client.force_login(staff)
    assert 'href="/staff/integrity/">Integrity</a>' in client.get("/").content.decode()
    page = client.get("/staff/integrity/").content.decode()
    copy, hostile = report["copy"], report["hostile"]
    assert page.index(f'id="finding-{copy.pk}"') < page.index(f'id="finding-{hostile.pk}"')  # 0.83 before 0.6
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; shared an address" in page
    assert "<i>x</i>" not in page and "&lt;i&gt;x&lt;/i&gt;" in page
    assert copy.reason.replace("'", "&#x27;") in page
    assert f'href="/staff/integrity/{copy.pk}/"' in page and 'href="/users/y/"' in page
    assert '<tr data-kind="copy"><td>copied code</td><td>1</td><td>0</td><td>0</td><td>1</td></tr>' in page
    assert "Checks last run" in page and "1 copy, 0 twin, 0 accounts, 0 collusion" in page
    assert "origbot lost 9 of 9" not in page  # another season's
    in_season = client.get("/staff/integrity/?season=s1").content.decode()
    assert "origbot lost 9 of 9" in in_season and copy.reason.replace("'", "&#x27;") not in in_season
    assert "Disqualify orig" in in_season and "Disqualify copier" in in_season
    assert client.get("/staff/integrity/?season=nope").status_code == 404


def test_a_copy_is_shown_side_by_side_with_the_matching_lines_marked(report, client, staff):
    client.force_login(staff)
    copy = report["copy"]
    page = client.get(f"/staff/integrity/{copy.pk}/").content.decode()
    assert page.count('<div class="side-by-side">') == len(copy.evidence["passages"]) > 0
    assert "<mark>" in page and 'class="line hit"' in page
    assert "def spread(values: list[int]) -&gt; float:" in page  # the original's code, escaped
    assert "orig&#x27;s origbot v1" in page and "copier&#x27;s copierbot v1" in page
    import re  # upload times as the site writes times, not ISO text (an organiser's trial)

    assert re.search(r"uploaded \d{4}-\d\d-\d\d \d\d:\d\d UTC\)", page) and "+00:00" not in page
    assert client.get(f"/staff/integrity/{copy.pk + 99}/").status_code == 404
    from django.core.files.storage import default_storage

    default_storage.delete(report["versions"][0].archive.name)  # pruned by retention since
    page = client.get(f"/staff/integrity/{copy.pk}/").content.decode()
    assert "(the source is no longer stored)" in page and "<mark>" in page  # the other side still shows


def test_the_buttons_post_with_csrf_and_act_once_in_the_audit_log(report, staff):
    from armada_web.seasons.models import Standing

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff)
    copy = report["copy"]
    assert browser.post(f"/staff/integrity/{copy.pk}/mark/", {"status": "confirmed"}).status_code == 403
    assert browser.get(f"/staff/integrity/{copy.pk}/mark/").status_code == 405
    page = browser.get("/staff/integrity/")
    token = page.cookies["csrftoken"].value
    for _ in range(2):
        answer = browser.post(f"/staff/integrity/{copy.pk}/mark/",
                              {"status": "confirmed", "note": "<b>same code</b>", "csrfmiddlewaretoken": token})
        assert answer.status_code == 302 and answer["Location"] == "/staff/integrity/"
    copy.refresh_from_db()
    assert copy.status == "confirmed"
    answer = browser.post("/staff/integrity/disqualify/", {"season": "s1", "version": str(report["versions"][1].pk),
                                                           "reason": "copied origbot", "csrfmiddlewaretoken": token,
                                                           "confirmed": "yes"})
    assert answer.status_code == 302 and answer["Location"] == "/staff/integrity/?season=s1"
    assert list(Standing.objects.filter(season=report["season"]).values_list("bot_name", flat=True)) == ["origbot"]
    page = browser.get("/staff/integrity/").content.decode()
    assert page.count("&lt;b&gt;same code&lt;/b&gt;") == 1  # two clicks, one line
    season_page = browser.get("/staff/integrity/?season=s1").content.decode()
    assert "copied origbot" in season_page and "copierbot v1" in season_page
    refused = browser.post("/staff/integrity/disqualify/", {"season": "s1", "username": "orig", "reason": "",
                                                            "csrfmiddlewaretoken": token}, follow=True)
    assert "say why" in refused.content.decode()
    assert refused.redirect_chain[-1][0] == "/staff/integrity/?season=s1"  # a refusal keeps the season
    unknown = browser.post("/staff/integrity/disqualify/", {"season": "nope", "username": "orig", "reason": "x",
                                                            "csrfmiddlewaretoken": token}, follow=True)
    assert unknown.redirect_chain[-1][0] == "/staff/integrity/" and "nope" in unknown.content.decode()


def test_a_refused_disqualification_keeps_its_reason_in_its_own_form(report, client, staff):
    """The refusal's message, and the reason typed shown again in the form it came from (no other),
    once: nothing typed is lost, and it does not linger."""
    client.force_login(staff)
    seasonal = report["seasonal"]
    reason = "played <b>together</b> " + "x" * 500  # past the limit: refused
    answer = client.post("/staff/integrity/disqualify/", {"season": "s1", "finding": str(seasonal.pk),
                                                          "username": "orig", "reason": reason}, follow=True)
    page = answer.content.decode()
    assert answer.redirect_chain[-1][0] == "/staff/integrity/?season=s1" and "at most 500 characters" in page
    section = page[page.index(f'id="finding-{seasonal.pk}"'):]
    kept = 'value="played &lt;b&gt;together&lt;/b&gt; x'
    assert page.count(kept) == 1 and kept in section[:section.index('name="username" value="copier"')]
    assert kept not in client.get("/staff/integrity/?season=s1").content.decode()


def test_a_twin_findings_buttons_disqualify_its_versions_not_an_account_of_that_name(report, client, staff,
                                                                                    make_user):
    """A twin's subjects are version ids: its buttons post the version, never a username that an
    innocent account with a name of digits could hold."""
    from armada_web.integrity import findings
    from armada_web.integrity.copies import described
    from armada_web.integrity.models import Disqualification
    from armada_web.seasons.models import Standing

    orig, copier = report["versions"]
    namesake = make_user(str(copier.pk))  # an honest account whose name is the version's id
    twin = findings.record(kind="twin", key=f"bots:{orig.bot_id}-{copier.bot_id}", season=report["season"],
                           subjects=[orig.pk, copier.pk], score=0.9, reason="played alike",
                           evidence={"versions": [described(orig), described(copier)]})
    client.force_login(staff)
    page = client.get("/staff/integrity/?season=s1").content.decode()
    section = page[page.index(f'id="finding-{twin.pk}"'):]
    assert f'<input type="hidden" name="version" value="{copier.pk}">' in section
    assert f'name="username" value="{copier.pk}"' not in page
    assert f"Disqualify copierbot v1 (version id {copier.pk})" in section
    answer = client.post("/staff/integrity/disqualify/", {"season": "s1", "finding": str(twin.pk),
                                                          "version": str(copier.pk), "reason": "twin",
                                                          "confirmed": "yes"})
    assert answer.status_code == 302
    assert list(Standing.objects.filter(season=report["season"]).values_list("bot_name", flat=True)) == ["origbot"]
    assert list(Disqualification.objects.values_list("target", flat=True)) == ["version"]  # not the namesake
    assert namesake.is_active


@pytest.mark.parametrize("field", ["reason", "username", "team", "note"])
def test_a_nul_in_a_staff_form_is_a_message_not_a_500(report, staff, field):
    """NUL reaches the staff's forms as `%00` (Django's forms are not in the way here); PostgreSQL
    refuses it in text: each form answers with its message and records nothing."""
    from armada_web.integrity.models import AuditEntry, Disqualification

    client = Client(raise_request_exception=False)
    client.force_login(staff)
    if field == "note":
        answer = client.post(f"/staff/integrity/{report['copy'].pk}/mark/",
                             {"status": "dismissed", "note": "a\x00b"}, follow=True)
    else:
        target = {"username": "orig"} if field == "reason" else {field: "a\x00b"}
        answer = client.post("/staff/integrity/disqualify/",
                             {"season": "s1", "reason": "a\x00b" if field == "reason" else "copy", **target},
                             follow=True)
    assert answer.status_code == 200
    assert b"NUL" in answer.content or b"control character" in answer.content
    report["copy"].refresh_from_db()
    assert report["copy"].status == "open" and not Disqualification.objects.exists()
    assert not AuditEntry.objects.exclude(action="checked").exists()


def test_a_button_posted_without_a_csrf_token_is_the_404_page_to_all_but_staff(report, make_user):
    """The CSRF check comes after the staff check: a token-less POST gets the 404 page, as any
    unknown URL does, never the CSRF 403 page that would tell the URL exists; staff get the 403."""
    make_user("user")
    for who in (None, "user"):
        browser = Client(enforce_csrf_checks=True)
        if who:
            assert browser.login(username=who, password=PASSWORD)
        for url, data in [*posts(report), ("/staff/integrity/", {})]:
            answer = browser.post(url, data)
            assert answer.status_code == 404, (who, url)
            assert b"CSRF" not in answer.content and b"integrity" not in answer.content.lower()
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(make_user("judge", is_staff=True))
    for url, data in posts(report):
        assert staff.post(url, data).status_code == 403, url
    report["copy"].refresh_from_db()
    assert report["copy"].status == "open"


def test_a_refused_note_keeps_the_season_and_the_note_typed(report, client, staff):
    """A note refused (too long, a direction override, an escape) is a message on the season's
    report it came from, with the note shown again in its finding's form: nothing typed is lost."""
    from armada_web.integrity.models import AuditEntry

    client.force_login(staff)
    seasonal = report["seasonal"]
    for note, why in (("lost <b>on purpose</b> " + "x" * 600, "at most 500 characters"),
                      ("threw \u202egames\u202c to a friend", "text direction"),
                      ("threw \x1b[31mgames", "control characters")):
        answer = client.post(f"/staff/integrity/{seasonal.pk}/mark/",
                             {"status": "confirmed", "note": note, "season": "s1"}, follow=True)
        page = answer.content.decode()
        assert answer.redirect_chain[-1][0] == "/staff/integrity/?season=s1" and why in page, note
        section = page[page.index(f'id="finding-{seasonal.pk}"'):]
        kept = 'name="note" placeholder="note" maxlength="500" aria-label="note" value="' + \
            note.replace("<", "&lt;").replace(">", "&gt;")[:40]
        assert page.count(kept) == 1 and kept in section, note
    seasonal.refresh_from_db()
    assert seasonal.status == "open" and not AuditEntry.objects.exclude(action="checked").exists()
    assert 'aria-label="note" value=' not in client.get("/staff/integrity/?season=s1").content.decode()


@pytest.mark.parametrize("reason", ["copied \u202eedoc\u202c from origbot", "copied \u2067code\u2069", "copy\x07"])
def test_a_reason_with_direction_overrides_or_control_characters_is_refused_and_kept(report, client, staff, reason):
    """The account reads the reason on the season's page: an override there would turn the words
    after it around, so it is refused like an event's name, and the reason stays in its form."""
    from armada_web.integrity.models import Disqualification

    client.force_login(staff)
    answer = client.post("/staff/integrity/disqualify/", {"season": "s1", "finding": str(report["seasonal"].pk),
                                                          "username": "orig", "reason": reason}, follow=True)
    page = answer.content.decode()
    assert answer.redirect_chain[-1][0] == "/staff/integrity/?season=s1"
    assert "a reason may not hold" in page and f'value="{reason}"' in page
    assert not Disqualification.objects.exists()


def test_the_side_by_side_lines_are_not_double_spaced(report, client, staff):
    """Each source line is a block of its own: no newline between them inside the <pre> (it would
    show as an empty line after every line)."""
    client.force_login(staff)
    page = client.get(f"/staff/integrity/{report['copy'].pk}/").content.decode()
    assert '</span><span class="line' in page and '</span>\n<span class="line' not in page


def test_a_refusal_is_shown_beside_its_form_and_the_general_form_keeps_what_was_typed(report, client, staff):
    """The page scrolls to the refused form (autofocus), away from the message at its top: the
    reason of the refusal is shown beside the form too. The form under the disqualifications keeps
    its target and reason as the findings' buttons do."""
    client.force_login(staff)
    seasonal = report["seasonal"]
    page = client.post("/staff/integrity/disqualify/", {"season": "s1", "finding": str(seasonal.pk),
                                                        "username": "orig", "reason": "x" * 501},
                       follow=True).content.decode()
    section = page[page.index(f'id="finding-{seasonal.pk}"'):]
    assert '<p class="refused" role="alert">a reason has at most 500 characters (this one has 501)</p>' in section
    page = client.post("/staff/integrity/disqualify/", {"season": "s1", "username": "nobody-here",
                                                        "reason": "second account of <b>orig</b>"},
                       follow=True).content.decode()
    form = page[page.index('id="disqualify-form"'):]
    form = form[:form.index("</form>")]
    assert 'name="username" maxlength="150" value="nobody-here"' in form
    assert 'value="second account of &lt;b&gt;orig&lt;/b&gt;" autofocus' in form
    assert '<p class="refused" role="alert">no account named nobody-here</p>' in form
    assert "nobody-here" not in client.get("/staff/integrity/?season=s1").content.decode()  # once


def test_a_disqualification_asks_to_confirm_what_it_would_do_and_does_nothing_before(report, client, staff):
    """An organiser's trial: a finding's button, pressed by mistake, disqualified at once, and a
    disqualification is final. The first POST shows what would leave the season, the reason and a
    button that POSTs the same fields confirmed; a refusal still comes back to its form at once."""
    from armada_web.accounts.models import SentMail
    from armada_web.integrity.models import AuditEntry, Disqualification
    from armada_web.seasons.models import Entry

    client.force_login(staff)
    copier = report["versions"][1]
    fields = {"season": "s1", "finding": str(report["copy"].pk), "from": "finding", "version": str(copier.pk),
              "reason": "copied <b>origbot</b>"}
    page = client.post("/staff/integrity/disqualify/", fields)
    html = page.content.decode()
    assert page.status_code == 200
    assert f"<h1>Disqualify copierbot v1 (version id {copier.pk}) from Spring?</h1>" in html
    assert "copied &lt;b&gt;origbot&lt;/b&gt;" in html and "1 entry would leave the season" in html
    assert "This is final" in html and f'href="/staff/integrity/{report["copy"].pk}/">Cancel' in html
    form = html[html.index('id="confirm-form"'):]
    for name, value in {**fields, "reason": "copied &lt;b&gt;origbot&lt;/b&gt;", "confirmed": "yes"}.items():
        assert f'<input type="hidden" name="{name}" value="{value}">' in form, name
    # nothing was done: no decision, entry gone, audit line, finding confirmed or mail
    assert not Disqualification.objects.exists() and Entry.objects.filter(version_ref=copier.pk).exists()
    assert not AuditEntry.objects.exclude(action="checked").exists() and not SentMail.objects.exists()
    report["copy"].refresh_from_db()
    assert report["copy"].status == "open"
    done = client.post("/staff/integrity/disqualify/", {**fields, "confirmed": "yes"}, follow=True)
    assert "copierbot v1 disqualified from Spring: 1 entry left the standings." in done.content.decode()
    assert Disqualification.objects.count() == 1 and not Entry.objects.filter(version_ref=copier.pk).exists()
    again = client.post("/staff/integrity/disqualify/", fields, follow=True)  # nothing left to confirm
    assert "copierbot v1 was disqualified from Spring already." in again.content.decode()
    # the general form's preview, cancelled: back to that form, as it was sent, with no refusal
    page = client.post("/staff/integrity/disqualify/", {"season": "s1", "username": "orig", "reason": "a <i>ring</i>"})
    html = page.content.decode()
    assert "<h1>Disqualify the account orig from Spring?</h1>" in html and "1 entry would leave the season" in html
    assert 'href="/staff/integrity/?season=s1#disqualify-form">Cancel' in html
    form = client.get("/staff/integrity/?season=s1").content.decode()
    form = form[form.index('id="disqualify-form"'):form.index("</form>", form.index('id="disqualify-form"'))]
    assert 'value="orig"' in form and 'value="a &lt;i&gt;ring&lt;/i&gt;" autofocus' in form
    assert 'role="alert"' not in form and Disqualification.objects.count() == 1


def test_a_subject_disqualified_already_shows_the_decision_instead_of_its_button(report, client, staff):
    client.force_login(staff)
    seasonal = report["seasonal"]
    assert client.post("/staff/integrity/disqualify/", {"season": "s1", "finding": str(seasonal.pk),
                                                        "username": "orig", "reason": "threw games",
                                                        "confirmed": "yes"}).status_code == 302
    for url in ("/staff/integrity/?season=s1", f"/staff/integrity/{seasonal.pk}/"):
        page = client.get(url).content.decode()
        assert '<p class="done">orig: disqualified</p>' in page and "Disqualify orig" not in page, url
        assert "Disqualify copier" in page, url


def test_a_copy_whose_copier_went_with_his_account_says_to_confirm_or_dismiss_it(report, client, staff):
    """An organiser's trial: disqualifying the copier's account with the report's form (not a finding's
    button) left his copy findings open with "no entry in this season", nothing saying they were acted on."""
    from armada_web.integrity import findings
    from armada_web.integrity.copies import described
    from armada_web.seasons.models import Season

    orig, copier = report["versions"]
    copy = findings.record(kind="twin", key=f"bots:{orig.bot_id}-{copier.bot_id}", season=report["season"],
                           subjects=[orig.pk, copier.pk], score=0.9, reason="played alike",
                           evidence={"versions": [described(orig), described(copier)]})
    client.force_login(staff)
    section = _finding_row(client.get("/staff/integrity/?season=s1").content.decode(), copy.pk)
    assert "A subject of it is disqualified" not in section  # nothing acted on yet
    # (a review: a subject without an entry is not one disqualified: an open season has no entries)
    from armada_web.seasons.services import create_season

    create_season(slug="s2", game="galaxy", name="Summer")
    open_one = findings.record(kind="twin", key=f"bots:{orig.bot_id}-{copier.bot_id}", season=Season.objects.get(
        slug="s2"), subjects=[orig.pk, copier.pk], score=0.9, reason="played alike",
        evidence={"versions": [described(orig), described(copier)]})
    section = _finding_row(client.get("/staff/integrity/?season=s2").content.decode(), open_one.pk)
    assert "no entry in this season" in section and "A subject of it is disqualified" not in section
    assert client.post("/staff/integrity/disqualify/", {"season": "s1", "username": "copier", "reason": "copied",
                                                        "confirmed": "yes"}).status_code == 302
    for url in ("/staff/integrity/?season=s1", f"/staff/integrity/{copy.pk}/"):
        page = client.get(url).content.decode()
        section = _finding_row(page, copy.pk) if "?season" in url else page
        assert "A subject of it was disqualified from this season already: if that settles it, Confirm" in section
    assert client.post(f"/staff/integrity/{copy.pk}/mark/", {"status": "confirmed", "season": "s1"}).status_code == 302
    section = _finding_row(client.get("/staff/integrity/?season=s1").content.decode(), copy.pk)
    assert "A subject of it is disqualified" not in section  # confirmed: no longer asked


def _finding_row(page: str, pk: int) -> str:
    section = page[page.index(f'id="finding-{pk}"'):]
    return section[:section.index("</tr>")]


def test_the_templates_comments_do_not_show(report, client, staff):
    client.force_login(staff)
    for url in ("/staff/integrity/?season=s1", f"/staff/integrity/{report['copy'].pk}/"):
        assert "{#" not in client.get(url).content.decode(), url


def test_a_refused_note_for_a_season_gone_meanwhile_goes_back_to_the_whole_report(report, client, staff):
    client.force_login(staff)
    answer = client.post(f"/staff/integrity/{report['copy'].pk}/mark/",
                         {"status": "nope", "note": "kept", "season": "deleted-meanwhile"}, follow=True)
    assert answer.status_code == 200 and answer.redirect_chain[-1][0] == "/staff/integrity/"
    assert "a finding is open, dismissed, confirmed" in answer.content.decode()


def test_a_copys_subjects_are_named_by_bot_and_version_not_by_bare_ids(report, client, staff):
    client.force_login(staff)
    copy = report["copy"]
    orig, copier = report["versions"]
    label = f"origbot v1 (version id {orig.pk}), copierbot v1 (version id {copier.pk})"
    assert f"<h1>Copied code: {label}</h1>" in client.get(f"/staff/integrity/{copy.pk}/").content.decode()
    assert f"<td>{label}</td>" in client.get("/staff/integrity/").content.decode()


def test_a_version_without_an_entry_has_no_disqualify_button(report, client, staff, make_user, valid_version):
    """An organiser's trial: a copy's other side had never entered the season; its button could only
    be refused ("has no entry in season ..."). It now says so instead of offering it."""
    from armada_web.integrity import findings
    from armada_web.integrity.copies import described

    orig, _copier = report["versions"]
    outsider = valid_version(make_user("late"), "latebot")  # made after the close: no entry
    twin = findings.record(kind="twin", key=f"bots:{orig.bot_id}-{outsider.bot_id}", season=report["season"],
                           subjects=[orig.pk, outsider.pk], score=0.9, reason="played alike",
                           evidence={"versions": [described(orig), described(outsider)]})
    client.force_login(staff)
    page = client.get("/staff/integrity/?season=s1").content.decode()
    section = page[page.index(f'id="finding-{twin.pk}"'):]
    section = section[:section.index("</tr>")]
    assert f"Disqualify origbot v1 (version id {orig.pk})" in section
    assert "Disqualify latebot v1" not in section and "latebot v1 (version id " in section
    assert "no entry in this season" in section


def test_a_bot_against_the_field_shows_as_one_owner_s_finding(report, client, staff):
    """A finding of a bot that lost to everyone (`bots:ID>*`): the staff report and its page name
    its owner alone, and its games."""
    from armada_web.integrity import findings

    orig, _copier = report["versions"]
    item = findings.record(kind="collusion", key=f"bots:{orig.bot_id}>*", season=report["season"],
                           subjects=["orig"], score=0.99,
                           reason="origbot (orig) lost 18 of its 18 decisive games, against every bot it met",
                           evidence={"bots": [orig.bot_id], "games": 18, "draws": 0, "losses": 18, "expected": 4.2,
                                     "p_value": 1e-9, "adjusted": 1e-7, "alpha": 0.01, "pairs_tested": 30,
                                     "pairs_counted": 12, "matches": [], "lost": []})
    client.force_login(staff)
    page = client.get(f"/staff/integrity/{item.pk}/").content.decode()
    assert "over 12 tests; its games against every bot it met" in page
    assert "Disqualify orig" in client.get("/staff/integrity/?season=s1").content.decode()


def test_a_refused_note_on_a_findings_page_comes_back_there_filled_in(report, staff):
    """A trial: a note refused on /staff/integrity/N/ came back on the report, not on the finding's page."""
    client = Client()
    client.force_login(staff)
    page = f"/staff/integrity/{report['copy'].pk}/"
    form = client.get(page).content.decode()
    assert 'name="from" value="finding"' in form
    answer = client.post(f"{page}mark/", {"status": "dismissed", "note": "bad\x1bnote kept", "from": "finding",
                                          "finding": str(report["copy"].pk)})
    assert answer.status_code == 302 and answer["Location"] == page
    again = client.get(page).content.decode()
    assert '<p class="refused" role="alert">' in again and "note kept" in again  # the reason, the note typed
    answer = client.post(f"{page}mark/", {"status": "dismissed", "note": "fine", "from": "finding",
                                          "finding": str(report["copy"].pk)})
    assert answer["Location"] == page  # (and marked)
    report["copy"].refresh_from_db()
    assert report["copy"].status == "dismissed"
    assert client.post(f"{page}mark/", {"status": "open"})["Location"].startswith("/staff/integrity/")  # the report
