"""Shared accounts (integrity.logic.accounts): e-mail normalisation, the links and the groups."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from armada_web.integrity.logic.accounts import (
    THRESHOLD,
    Sighting,
    Upload,
    address_links,
    email_links,
    group_accounts,
    identifies,
    normalise_email,
    pair_strength,
    upload_links,
)

T0 = datetime(2026, 11, 1, 12, tzinfo=UTC)


def test_e_mail_addresses_are_normalised_for_the_known_providers_only():
    assert normalise_email(" Alice.Smith+armada@GoogleMail.com ") == "alicesmith@gmail.com"
    assert normalise_email("a.l.i.c.e@gmail.com") == normalise_email("alice@gmail.com")
    assert normalise_email("bob+x@outlook.com") == "bob@outlook.com"
    assert normalise_email("bob.smith@outlook.com") == "bob.smith@outlook.com"  # dots count there
    assert normalise_email("carol+x@example.org") == "carol+x@example.org"  # unknown provider: kept
    assert normalise_email("Carol@Example.org") == "carol@example.org"
    assert normalise_email("") == "" and normalise_email("not an address") == "not an address"


def test_equal_normalised_e_mails_are_linked_and_empty_ones_are_not():
    links = email_links({"alice": "alice@gmail.com", "al": "A.lice+2@gmail.com", "bob": "", "carl": "",
                         "dave": "dave@example.org"})
    assert [(link.users, link.kind) for link in links] == [(("al", "alice"), "email")]
    groups = group_accounts(links)
    assert [(g.users, g.score) for g in groups] == [(("al", "alice"), 0.9)]
    assert "e-mail addresses equal once normalised" in groups[0].reason


def test_two_accounts_from_one_address_within_the_window_are_a_group():
    sightings = [Sighting("alice", "198.51.100.7", T0, "signup"),
                 Sighting("bob", "198.51.100.7", T0 + timedelta(days=2), "login"),
                 Sighting("carol", "198.51.100.7", T0 + timedelta(days=30), "login"),  # outside the window
                 Sighting("dave", "203.0.113.9", T0, "login")]
    links = address_links(sightings)
    assert [(link.users, link.kind) for link in links] == [(("alice", "bob"), "address")]
    (group,) = group_accounts(links)
    assert group.users == ("alice", "bob") and group.score >= THRESHOLD
    assert "198.51.100.7" in group.reason


def test_a_token_used_from_an_address_someone_signed_in_from_is_a_weaker_link():
    sightings = [Sighting("alice", "198.51.100.7", T0, "login"),
                 Sighting("bob", "198.51.100.7", T0 + timedelta(hours=5), "token-use")]
    (link,) = address_links(sightings)
    assert link.kind == "token-address" and link.strength == 0.5 and "API token" in link.detail


def test_a_school_address_shared_by_30_accounts_alone_is_weak():
    school = [Sighting(f"pupil{i:02}", "192.0.2.1", T0 + timedelta(minutes=i), "login") for i in range(30)]
    links = address_links(school)
    assert len(links) == 30 * 29 // 2 and all(link.weak for link in links)
    groups = group_accounts(links)
    assert len(groups) == 1 and len(groups[0].users) == 30
    assert groups[0].score < THRESHOLD
    assert "weak on its own" in groups[0].reason and "30 accounts share" in links[0].detail
    # two of them also share an e-mail: they form a strong group of their own
    groups = group_accounts(links + email_links({"pupil03": "x@gmail.com", "pupil07": "X@gmail.com"}))
    assert groups[0].users == ("pupil03", "pupil07") and groups[0].score > 0.9
    assert groups[1].score < THRESHOLD


def test_an_address_of_a_whole_carrier_ties_nobody():
    nat = [Sighting(f"u{i}", "100.64.0.1", T0, "login") for i in range(60)]
    assert address_links(nat) == []


def test_identical_uploads_link_accounts_but_a_starter_does_not():
    uploads = [Upload("alice", "a" * 64, 11, T0), Upload("bob", "a" * 64, 19, T0 + timedelta(hours=3)),
               Upload("alice", "s" * 64, 10, T0), Upload("bob", "s" * 64, 12, T0)]
    links = upload_links(uploads, common=frozenset({"s" * 64}))
    assert [(link.users, link.kind) for link in links] == [(("alice", "bob"), "upload")]
    assert "version 19 of bob" in links[0].detail and "version 11 of alice" in links[0].detail
    many = [Upload(f"u{i}", "c" * 64, i, T0) for i in range(10)]
    assert upload_links(many) == []  # code many accounts upload is nobody's signature


def test_links_combine_and_groups_join_through_a_shared_member():
    assert abs(pair_strength([0.6, 0.5]) - 0.8) < 1e-12
    sightings = [Sighting("alice", "198.51.100.7", T0, "login"), Sighting("bob", "198.51.100.7", T0, "token-use"),
                 Sighting("bob", "203.0.113.5", T0, "login"), Sighting("carol", "203.0.113.5", T0, "login")]
    links = address_links(sightings) + email_links({"carol": "c@gmail.com", "dave": "c+x@gmail.com"})
    (group,) = group_accounts(links)
    assert group.users == ("alice", "bob", "carol", "dave")
    assert group.score == 0.5  # its weakest tie: alice-bob's token use
    assert len(group.links) == 3


def test_many_groups_each_keep_their_own_links():
    from armada_web.integrity.logic.accounts import Link, group_accounts

    links = [Link((f"u{g}a{i}", f"u{g}a{i + 1}"), "address", 0.6, "one address") for g in range(50) for i in range(8)]
    groups = group_accounts(links)
    assert len(groups) == 50 and all(len(g.users) == 9 and len(g.links) == 8 for g in groups)
    assert all({u for link in g.links for u in link.users} == set(g.users) for g in groups)


def test_a_loopback_address_identifies_nobody():
    assert [identifies(a) for a in ("127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1", "", "unknown")] == [False] * 6
    assert all(identifies(a) for a in ("198.51.100.7", "2001:db8::7", "10.1.2.3", "::ffff:198.51.100.7"))
    links = address_links([Sighting(u, a, T0, "login") for u, a in
                           (("a", "127.0.0.1"), ("b", "127.0.0.1"), ("c", "::1"), ("d", "::1"),
                            ("e", "198.51.100.7"), ("f", "198.51.100.7"))])
    assert [(link.users, link.address) for link in links] == [(("e", "f"), "198.51.100.7")]
