"""Every password check and every mail anyone can ask for is limited (a security trial of a live site):
the admin's log-in and a signed-in user's own password count as the log-in page's attempts do, sign-ups
are limited per client address, confirmation links and password-reset mails per destination address."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail

from tests.support.fixtures import PASSWORD

pytestmark = pytest.mark.django_db


def test_the_admins_log_in_counts_failures_with_the_sites(client, make_user, armada):
    """340 guesses at /admin/login/ went uncounted: now the fourth attempt past a limit of 3 is refused,
    the right password too, and the site's own log-in page shares the count."""
    armada(login_failures_per_user=3, login_failures_per_ip=1000)
    boss = make_user("boss-admin")
    boss.is_staff = boss.is_superuser = True
    boss.save()
    for _ in range(3):
        wrong = client.post("/admin/login/", {"username": "boss-admin", "password": "guess", "next": "/admin/"})
        assert wrong.status_code == 200 and "correct username and password" in wrong.content.decode()
    right = client.post("/admin/login/", {"username": "boss-admin", "password": PASSWORD, "next": "/admin/"})
    assert right.status_code == 200 and "too many log-in attempts for this username" in right.content.decode()
    assert "_auth_user_id" not in client.session
    page = client.post("/accounts/login/", {"username": "boss-admin", "password": PASSWORD})
    assert page.status_code == 200 and "too many log-in attempts" in page.content.decode()


def test_the_admins_log_in_still_lets_staff_alone_in(client, make_user, armada):
    armada(login_failures_per_user=3, login_failures_per_ip=1000)
    make_user("plain-user")
    refused = client.post("/admin/login/", {"username": "plain-user", "password": PASSWORD, "next": "/admin/"})
    assert refused.status_code == 200 and "_auth_user_id" not in client.session  # right password, not staff
    boss = make_user("real-admin")
    boss.is_staff = boss.is_superuser = True
    boss.save()
    response = client.post("/admin/login/", {"username": "real-admin", "password": PASSWORD, "next": "/admin/"})
    assert response.status_code == 302 and client.get("/admin/").status_code == 200


def test_a_signed_in_users_own_password_is_counted_where_a_page_asks_for_it(client, make_user, armada):
    """A stolen session could guess the old password without end, then change it for good."""
    armada(login_failures_per_user=2, login_failures_per_ip=1000)
    user = make_user("session-owner")
    client.force_login(user)
    change = {"new_password1": "another-long-pass-77", "new_password2": "another-long-pass-77"}
    for _ in range(2):
        wrong = client.post("/accounts/password/", {"old_password": "guess", **change})
        assert wrong.status_code == 200 and "old password was entered incorrectly" in wrong.content.decode()
    right = client.post("/accounts/password/", {"old_password": PASSWORD, **change})
    assert right.status_code == 200 and "too many log-in attempts with your password" in right.content.decode()
    deleting = client.post("/accounts/delete/", {"password": PASSWORD})
    assert "too many log-in attempts" in deleting.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)  # nothing changed, nothing deleted


def test_others_failed_log_ins_do_not_stop_the_owner_confirming_their_password(client, make_user, armada):
    """A security trial: ten wrong log-ins under the owner's name, from anywhere, refused the owner's
    own password on the password page too. A signed-in user's confirmations have a count of their own."""
    armada(login_failures_per_user=2, login_failures_per_ip=1000)
    user = make_user("targeted")
    stranger = type(client)()
    for _ in range(3):
        stranger.post("/accounts/login/", {"username": "TARGETED", "password": "guess"})
    blocked = stranger.post("/accounts/login/", {"username": "targeted", "password": PASSWORD})
    assert "too many log-in attempts for this username" in blocked.content.decode()  # the log-in page's rule
    client.force_login(user)
    new = "another-long-pass-88"
    changed = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": new, "new_password2": new})
    assert changed.status_code == 302, changed.content.decode()
    user.refresh_from_db()
    assert user.check_password(new)


def test_a_right_old_password_changes_it_and_does_not_count(client, make_user, armada):
    armada(login_failures_per_user=1, login_failures_per_ip=1000)
    user = make_user("changer")
    client.force_login(user)
    for number in (1, 2):  # twice in a row: a right password takes its count back
        new = f"another-long-pass-{number}7"
        old = PASSWORD if number == 1 else "another-long-pass-17"
        response = client.post("/accounts/password/", {"old_password": old, "new_password1": new, "new_password2": new})
        assert response.status_code == 302, response.content.decode()
        client.force_login(User.objects.get(pk=user.pk))


def sign_up(client, name: str, email: str = ""):
    client.logout()
    return client.post("/accounts/signup/", {"username": name, "email": email,
                                             "password1": PASSWORD, "password2": PASSWORD})


def test_sign_ups_are_limited_per_client_address(client, armada):
    armada(signups_per_hour=2)
    assert [sign_up(client, f"newcomer{n}").status_code for n in range(2)] == [302, 302]
    refused = sign_up(client, "newcomer2")
    assert refused.status_code == 429
    assert "at most 2 new accounts an hour from one network address; try again in" in refused.content.decode()
    assert not User.objects.filter(username="newcomer2").exists()


def test_one_address_gets_at_most_five_confirmation_links_an_hour_from_one_client(client, armada):
    """20 accounts sent 20 links to one victim's address within seconds: now 5 from one client, and 20
    from all clients, so one client cannot use up the victim's own links (a review)."""
    armada(signups_per_hour=100)
    assert [sign_up(client, f"mailer{n}", "victim@example.org").status_code for n in range(5)] == [302] * 5
    refused = sign_up(client, "mailer5", "VICTIM@example.org")  # whatever its case
    assert refused.status_code == 429
    assert "too many confirmation links to this e-mail address this hour" in refused.content.decode()
    assert not User.objects.filter(username="mailer5").exists()  # nothing half made
    assert len(mail.outbox) == 5
    assert sign_up(client, "mailer6", "someone-else@example.org").status_code == 302  # another address: free
    for n, host in enumerate(("192.0.2.1", "192.0.2.2", "192.0.2.3")):  # the victim, and others, elsewhere
        for m in range(5):
            client.logout()
            answer = client.post("/accounts/signup/", {"username": f"far{n}x{m}", "email": "victim@example.org",
                                                       "password1": PASSWORD, "password2": PASSWORD},
                                 REMOTE_ADDR=host)
            assert answer.status_code == 302
    client.logout()
    over = client.post("/accounts/signup/", {"username": "far9", "email": "victim@example.org",
                                             "password1": PASSWORD, "password2": PASSWORD}, REMOTE_ADDR="192.0.2.9")
    assert over.status_code == 429  # 20 an hour from all clients


def reset(client, address: str, host: str = "127.0.0.1"):
    return client.post("/accounts/password/reset/", {"email": address}, REMOTE_ADDR=host)


def test_password_reset_mails_are_limited_per_address_whether_or_not_it_has_an_account(client, make_user, armada):
    armada(resets_per_hour=2)
    make_user("forgetful", email="forgetful@example.org")
    for address in ("forgetful@example.org", "nobody@example.org"):
        answers = [reset(client, address) for _ in range(3)]
        assert [a.status_code for a in answers] == [302, 302, 429]
        assert "too many password-reset e-mails asked for" in answers[2].content.decode()
    assert len(mail.outbox) == 2 and all(m.to == ["forgetful@example.org"] for m in mail.outbox)
    # the owner, elsewhere, still gets theirs: one client cannot use up an address (a review)
    assert reset(client, "Forgetful@example.org", "198.51.100.7").status_code == 302 and len(mail.outbox) == 3
    # and one client cannot mail address after address: 4 times the limit in all
    answers = [reset(client, f"someone{n}@example.org", "198.51.100.8").status_code for n in range(9)]
    assert answers == [302] * 8 + [429]


def test_the_admins_password_change_is_the_sites_counted_one(client, make_user):
    boss = make_user("boss-changer")
    boss.is_staff = boss.is_superuser = True
    boss.save()
    client.force_login(boss)
    response = client.get("/admin/password_change/")
    assert response.status_code == 302 and response.url == "/accounts/password/"


def test_a_refused_admin_log_in_is_no_sign_in(client, make_user, armada):
    """The admin's log-in recorded a sign-in sighting for a non-staff user it then turned away (a review):
    the integrity checks read sightings."""
    from armada_web.accounts.models import Sighting

    user = make_user("not-staff")
    client.post("/admin/login/", {"username": "not-staff", "password": PASSWORD, "next": "/admin/"})
    assert not Sighting.objects.filter(user=user).exists()
    client.post("/accounts/login/", {"username": "not-staff", "password": PASSWORD})
    assert Sighting.objects.filter(user=user).count() == 1


def test_an_ipv6_client_is_counted_by_its_64_network(client, armada):
    """One host holds a /64: rotating its addresses within it passed the per-address limits (a review)."""
    from types import SimpleNamespace

    from armada_web.web.clients import client_key

    def key(address: str) -> str:
        return client_key(SimpleNamespace(META={"REMOTE_ADDR": address}))

    assert key("2001:db8:1:2:aaaa::1") == key("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64"
    assert key("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert key("192.0.2.4") == "192.0.2.4" and "/" not in key("::ffff:192.0.2.4")  # a v4 client, mapped
    armada(signups_per_hour=2)
    answers = []
    for n in range(3):
        client.logout()
        answers.append(client.post("/accounts/signup/", {"username": f"rotator{n}", "email": "", "password1": PASSWORD,
                                                          "password2": PASSWORD},
                                   REMOTE_ADDR=f"2001:db8:1:2::{n + 1}").status_code)
    assert answers == [302, 302, 429]
