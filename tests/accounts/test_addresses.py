"""The account's e-mail address (accounts.addresses): added or changed on the profile page or at
sign-up, used only once its mailed link is confirmed (a POST: a scanner's GET confirms nothing);
the old address keeps working until then; an address another account confirmed never becomes a
second account's, and the answer does not tell whether it has an account (D-S-36); a bad,
expired, used or replaced link gets a page saying so, never a server error."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db

LINK = re.compile(r"http://testserver(/accounts/email/confirm/\S+/)")


def link_in(message) -> str:
    """The path of the confirmation link in a mail."""
    return LINK.search(message.body).group(1)


def reset_mails(client, address: str) -> list:
    """The password-reset mails sent when `address` is given on the reset page."""
    before = len(mail.outbox)
    client.post("/accounts/password/reset/", {"email": address})
    return [m for m in mail.outbox[before:] if "reset" in m.subject.lower()]


def test_a_new_address_is_used_only_after_its_link_is_posted_and_the_old_one_works_till_then(
        client, make_user, django_capture_on_commit_callbacks):
    from django.contrib.auth.models import User

    from armada_web.accounts.mail import deliver

    user = make_user("olga", email="olga@old.example")
    client.force_login(user)
    answer = client.post("/accounts/email/", {"email": " Olga@NEW.Example ", "password": PASSWORD}, follow=True)
    page = answer.content.decode()
    assert "A link to confirm Olga@new.example is on its way" in page
    assert 'id="email-pending"' in page and "olga@old.example" in page
    [sent] = mail.outbox
    assert sent.to == ["Olga@new.example"] and sent.subject == "[Armada] Confirm your e-mail address"
    assert "olga" in sent.body and "Until then, e-mails go to olga@old.example." in sent.body
    path = link_in(sent)
    assert User.objects.get(pk=user.pk).email == "olga@old.example"  # the old one still counts

    client.logout()
    assert reset_mails(client, "olga@new.example") == []  # not confirmed: no reset goes there
    assert [m.to for m in reset_mails(client, "olga@old.example")] == [["olga@old.example"]]
    assert deliver(user_id=user.pk, topic="benched", key="k1", subject="s", body="b")
    assert mail.outbox[-1].to == ["olga@old.example"]

    shown = client.get(path)  # what a mail scanner (or a preview) does: nothing changes
    assert shown.status_code == 200 and 'id="confirm-email"' in shown.content.decode()
    assert "Olga@new.example" in shown.content.decode()
    assert client.head(path).status_code == 200
    assert User.objects.get(pk=user.pk).email == "olga@old.example"

    mails_before = len(mail.outbox)
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(path)  # the Confirm button; works signed out too: the link is the proof
    assert done.status_code == 200 and "E-mail address confirmed" in done.content.decode()
    assert User.objects.get(pk=user.pk).email == "Olga@new.example"
    [note] = mail.outbox[mails_before:]
    assert note.to == ["olga@old.example"] and "is now Olga@new.example" in note.body
    again = client.post(path)  # a double click, a second tab: the same answer, nothing more
    assert again.status_code == 200 and "E-mail address confirmed" in again.content.decode()
    assert len(mail.outbox) == mails_before + 1
    assert [m.to for m in reset_mails(client, "OLGA@new.example")] == [["Olga@new.example"]]
    assert reset_mails(client, "olga@old.example") == []


def test_sign_up_with_an_address_sends_its_link_and_the_api_shows_what_is_confirmed(client, api):
    from django.contrib.auth.models import User

    answer = client.post("/accounts/signup/", {"username": "sana", "email": "sana@example.org",
                                               "password1": PASSWORD, "password2": PASSWORD}, follow=True)
    assert "A link to confirm sana@example.org is on its way" in answer.content.decode()
    user = User.objects.get(username="sana")
    assert user.email == ""  # not before the link is confirmed
    [sent] = mail.outbox
    me = api(user).get("/api/me/").json()
    assert (me["email"], me["email_confirmed"], me["email_pending"]) == ("", False, "sana@example.org")
    profile = client.get("/accounts/profile/").content.decode()
    assert "no confirmed e-mail address yet" in profile and "Add my address" in profile
    client.logout()
    assert reset_mails(client, "sana@example.org") == []
    assert client.post(link_in(sent)).status_code == 200
    me = api(user).get("/api/me/").json()
    assert (me["email"], me["email_confirmed"], me["email_pending"]) == ("sana@example.org", True, "")
    assert {"id", "username", "date_joined", "is_staff", "teams"} <= set(me)  # the contract kept


def test_an_address_another_account_confirmed_gets_its_owner_a_note_and_the_same_answer(client, make_user):
    """D-S-36: asking for an address another account confirmed (whatever its case) answers as for a
    free one, on the profile page and at sign-up; its owner gets a note, never a link, so it stays theirs."""
    from django.contrib.auth.models import User

    from armada_web.accounts.models import EmailChange

    tara = make_user("tara", email="tara@example.org")
    user = make_user("ugo")
    client.force_login(user)
    answers = {}
    for address in ("Tara@Example.org", "free@example.org"):
        page = client.post("/accounts/email/", {"email": address, "password": PASSWORD}, follow=True).content.decode()
        page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)
        answers[address] = page.replace(User.objects.normalize_email(address), "X")  # as it is kept
    assert answers["Tara@Example.org"] == answers["free@example.org"]  # one answer, whoever has the address
    assert "another account" not in answers["free@example.org"] and "on its way" in answers["free@example.org"]
    note, link = mail.outbox
    assert note.to == ["tara@example.org"] and not LINK.search(note.body)
    assert "your account tara, so it stays yours" in note.body and "/accounts/password/reset/" in note.body
    assert link.to == ["free@example.org"] and LINK.search(link.body)
    client.logout()
    mail.outbox.clear()
    signup = client.post("/accounts/signup/", {"username": "vic", "email": "tara@EXAMPLE.org",
                                               "password1": PASSWORD, "password2": PASSWORD}, follow=True)
    assert signup.status_code == 200 and "another account" not in signup.content.decode()
    vic = User.objects.get(username="vic")
    assert vic.email == "" and EmailChange.objects.get(user=vic).address == "tara@example.org"
    [note] = mail.outbox
    assert note.to == ["tara@example.org"] and "account vic" in note.body and not LINK.search(note.body)
    tara.refresh_from_db()
    assert tara.email == "tara@example.org"


def test_asking_for_a_taken_address_counts_against_the_hourly_links(client, make_user):
    """The owner's notes come out of the asker's LINKS_PER_HOUR, so nobody can probe or flood an owner."""
    from armada_web.accounts import addresses
    from armada_web.web.errors import RateLimited

    make_user("tara", email="tara@example.org")
    user = make_user("ugo")
    for _ in range(addresses.LINKS_PER_HOUR):
        addresses.request_change(user=user, address="tara@example.org", site="http://testserver")
    with pytest.raises(RateLimited):
        addresses.request_change(user=user, address="tara@example.org", site="http://testserver")
    with pytest.raises(RateLimited):
        addresses.request_change(user=user, address="free@example.org", site="http://testserver")
    assert len(mail.outbox) == addresses.LINKS_PER_HOUR


def test_two_accounts_asking_for_one_address_the_second_confirmation_is_refused(client, make_user):
    from django.contrib.auth.models import User

    from armada_web.accounts import addresses

    wes, xia = make_user("wes"), make_user("xia")
    addresses.request_change(user=wes, address="shared@example.org", site="http://testserver")
    addresses.request_change(user=xia, address="Shared@example.org", site="http://testserver")
    first, second = (link_in(m) for m in mail.outbox)
    assert client.post(first).status_code == 200
    refused = client.post(second)
    assert refused.status_code == 409 and "another account" in refused.content.decode()
    assert client.get(second).status_code == 409
    assert User.objects.get(pk=xia.pk).email == "" and User.objects.get(pk=wes.pk).email == "shared@example.org"


def test_bad_expired_used_replaced_and_dropped_links_get_a_page_saying_so(client, make_user, monkeypatch):
    from django.contrib.auth.models import User
    from django.core import signing

    from armada_web.accounts import addresses

    user = make_user("yan", email="yan@example.org")
    site = "http://testserver"
    addresses.request_change(user=user, address="one@example.org", site=site)
    addresses.request_change(user=user, address="one@example.org", site=site)  # sent again: a new link
    replaced, latest = (link_in(m) for m in mail.outbox)
    for method in (client.get, client.post):
        answer = method(replaced)
        assert answer.status_code == 400 and "replaced by a newer one" in answer.content.decode()
    token = latest.split("/")[-2]
    for bad in ("nonsense", token[:-3] + "abc", "x" + token, "é:ü:%00", "a:b:c", ".:.", "-" * 300):
        for method in (client.get, client.post):
            answer = method(f"/accounts/email/confirm/{bad}/")
            assert answer.status_code == 400 and "this link is not valid" in answer.content.decode()
    assert client.put(latest).status_code == 405
    odd = signing.dumps(["not", "a", "dict"], salt=addresses.SALT)  # signed by us, but not a link
    assert client.post(f"/accounts/email/confirm/{odd}/").status_code == 400

    real_timestamp = signing.TimestampSigner.timestamp
    monkeypatch.setattr(signing.TimestampSigner, "timestamp",  # a link made four days ago
                        lambda self: signing.b62_encode(int(signing.time.time()) - 4 * 86400))
    old = addresses.link_token(addresses.pending(user=user))
    monkeypatch.setattr(signing.TimestampSigner, "timestamp", real_timestamp)
    expired = client.post(f"/accounts/email/confirm/{old}/")
    assert expired.status_code == 400 and "expired" in expired.content.decode()

    client.force_login(user)
    assert client.post("/accounts/email/cancel/").status_code == 302
    dropped = client.post(latest)
    assert dropped.status_code == 400 and "used already" in dropped.content.decode()

    addresses.request_change(user=user, address="two@example.org", site=site)
    two = link_in(mail.outbox[-1])
    assert client.post(two).status_code == 200
    addresses.request_change(user=user, address="three@example.org", site=site)
    assert client.post(link_in(mail.outbox[-1])).status_code == 200
    used = client.post(two)  # confirmed once, then replaced by a later address
    assert used.status_code == 400 and "used already" in used.content.decode()
    assert User.objects.get(pk=user.pk).email == "three@example.org"

    addresses.request_change(user=user, address="four@example.org", site=site)
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert client.post(link_in(mail.outbox[-1])).status_code == 400  # a disabled account confirms nothing
    assert User.objects.get(pk=user.pk).email == "three@example.org"


def test_the_confirmed_address_again_drops_the_pending_one_and_bad_input_is_refused(client, make_user):
    from armada_web.accounts import addresses
    from armada_web.web.errors import Invalid

    user = make_user("zoe", email="zoe@example.org")
    addresses.request_change(user=user, address="new@example.org", site="http://testserver")
    assert addresses.request_change(user=user, address="ZOE@example.org", site="http://x") is None
    assert addresses.pending(user=user) is None and len(mail.outbox) == 1
    for bad in ("", "   ", "zoe", "zoe@", "a@b@c", "zoe\n@example.org", 7, None, "x" * 250 + "@e.org"):
        with pytest.raises(Invalid):
            addresses.request_change(user=user, address=bad, site="http://x")
    client.force_login(user)
    for body in ({"email": "not an address", "password": PASSWORD}, {"email": ""}, {}):
        page = client.post("/accounts/email/", body, follow=True)
        assert page.status_code == 200 and addresses.pending(user=user) is None
    assert "is not an e-mail address" in client.post("/accounts/email/", {"email": "nope"},
                                                     follow=True).content.decode()
    too_long = client.post("/accounts/email/", {"email": "x" * 250 + "@e.org"}, follow=True).content.decode()
    assert "at most 254 characters" in too_long and addresses.pending(user=user) is None
    assert client.get("/accounts/email/").status_code == 405
    client.logout()
    assert client.post("/accounts/email/", {"email": "a@example.org", "password": PASSWORD}).status_code == 302
    assert addresses.pending(user=user) is None and len(mail.outbox) == 1


def test_links_are_limited_per_hour_and_a_mail_server_down_keeps_nothing(make_user, monkeypatch):
    from armada_web.accounts import addresses
    from armada_web.web.errors import RateLimited, Unavailable

    user = make_user("abe")

    def down(*args, **kwargs):
        raise ConnectionRefusedError("no mail server")

    monkeypatch.setattr(addresses, "send_mail", down)
    with pytest.raises(Unavailable, match="could not be sent"):
        addresses.request_change(user=user, address="abe@example.org", site="http://x")
    assert addresses.pending(user=user) is None  # nothing half done, and the try is not counted
    monkeypatch.undo()
    for n in range(addresses.LINKS_PER_HOUR):
        addresses.request_change(user=user, address=f"abe{n}@example.org", site="http://x")
    with pytest.raises(RateLimited, match="confirmation links an hour"):
        addresses.request_change(user=user, address="abe@example.org", site="http://x")
    assert addresses.pending(user=user).address == f"abe{addresses.LINKS_PER_HOUR - 1}@example.org"
    assert len(mail.outbox) == addresses.LINKS_PER_HOUR


@pytest.mark.django_db(transaction=True)
def test_parallel_confirmations_of_one_address_leave_it_to_exactly_one_account(make_user):
    from django.contrib.auth.models import User
    from django.test import Client

    from armada_web.accounts import addresses
    from tests.support.threads import at_once

    users = [make_user(f"racer{n}") for n in range(4)]
    for n, user in enumerate(users):  # each asks before anyone confirmed: every request is accepted
        addresses.request_change(user=user, address="Race@Example.org" if n % 2 else "race@example.org",
                                 site="http://testserver")
    paths = [link_in(m) for m in mail.outbox]
    clients = [Client(raise_request_exception=False) for _ in paths]
    answers = at_once([lambda c=c, p=p: c.post(p).status_code for c, p in zip(clients, paths, strict=True)])
    assert sorted(answers) == [200, 409, 409, 409]
    assert User.objects.filter(email__iexact="race@example.org").count() == 1


def test_a_new_address_needs_the_password_and_sending_its_link_again_does_not(client, make_user,
                                                                             django_capture_on_commit_callbacks):
    """A security trial: with a stolen session (no password) the address could be set to the thief's,
    and a password reset to it took the account over. The password is asked, counted as a log-in
    attempt; sending the waiting address's link again needs none (it was asked with the password)."""
    from armada_web.accounts import addresses

    user = make_user("vera", email="vera@example.org")
    client.force_login(user)
    for body in ({"email": "thief@example.org"}, {"email": "thief@example.org", "password": "wrong-guess-1"}):
        page = client.post("/accounts/email/", body, follow=True).content.decode()
        assert "New e-mail address: wrong password" in page
    assert addresses.pending(user=user) is None and mail.outbox == []
    assert 'name="password"' in client.get("/accounts/profile/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/accounts/email/", {"email": "vera@new.example", "password": PASSWORD})
    told = [m for m in mail.outbox if m.to == ["vera@example.org"]]  # the confirmed address hears of it now
    assert len(told) == 1 and "asked to use vera@new.example" in told[0].body and "change your password" in told[0].body
    mail.outbox[:] = [m for m in mail.outbox if m not in told]
    again = client.post("/accounts/email/", {"email": "Vera@NEW.example"}, follow=True).content.decode()
    assert "A link to confirm Vera@new.example is on its way" in again and len(mail.outbox) == 2
    assert mail.outbox[-1].to == ["Vera@new.example"]


def test_a_refused_new_address_is_shown_again_in_the_profile_pages_field(client, make_user):
    """An audit of bad input: the change redirects to the profile page, whose field came back empty after
    a refusal (a wrong password, a mistyped address), so the address typed had to be typed again. It is
    shown again once, and not after a success."""
    from armada_web.accounts import addresses

    user = make_user("yara", email="yara@example.org")
    client.force_login(user)
    field = re.compile(r'<input type="email" name="email" value="([^"]*)"')
    for body in ({"email": "yara@new.example", "password": "wrong-guess-1"},
                 {"email": "yara@@new.example", "password": PASSWORD}):
        page = client.post("/accounts/email/", body, follow=True).content.decode()
        assert "New e-mail address:" in page and field.search(page).group(1) == body["email"], page
        assert addresses.pending(user=user) is None
        later = client.get("/accounts/profile/").content.decode()  # once: a reload shows the empty field
        assert not field.search(later)
    page = client.post("/accounts/email/", {"email": "yara@new.example", "password": PASSWORD},
                       follow=True).content.decode()
    assert "A link to confirm yara@new.example" in page and not field.search(page)


def test_an_address_with_an_invisible_character_is_refused_at_sign_up_and_on_the_profile(client, make_user):
    """An audit of bad input: `k@ex.org` with a zero-width space pasted after it passed Django's check (IDNA
    drops it from the domain) and was kept with it, so the address typed at a password reset or compared
    with another account's was another one. Refused, with the character named, and no account is made."""
    from django.contrib.auth.models import User

    from armada_web.accounts import addresses
    from armada_web.web.errors import Invalid

    for bad in ("k@ex.org\u200b", "k@e\u200bx.org", "k@ex.org\u00ad", "k\u2060@ex.org"):
        with pytest.raises(Invalid, match=r"invisible character \(U\+"):
            addresses.clean_address(bad)
    page = client.post("/accounts/signup/", {"username": "kate", "email": "k@ex.org\u200b",
                                             "password1": PASSWORD, "password2": PASSWORD})
    assert page.status_code == 400 and "invisible character (U+200B" in page.content.decode()
    assert not User.objects.filter(username="kate").exists() and mail.outbox == []
    user = make_user("lena", email="lena@example.org")
    client.force_login(user)
    page = client.post("/accounts/email/", {"email": "new@e\u200bx.org", "password": PASSWORD},
                       follow=True).content.decode()
    assert "invisible character (U+200B" in page and addresses.pending(user=user) is None
