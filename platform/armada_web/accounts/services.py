"""Account writes: password checks with brute-force limits, API tokens, deleting an account
(the e-mail address and its confirmation link: accounts.addresses).

Every function is keyword-only and checks its rules itself, raising `armada_web.web.errors` errors
with a message for the user; the log-in page, the profile page and the API all call these.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from armada_web.accounts import addresses, limits, mail, queries, sightings, throttles
from armada_web.accounts.models import DEMO_GROUP, ApiToken, EmailChange, MailPreferences, SightingKind
from armada_web.web.clients import client_key
from armada_web.web.errors import Conflict, Invalid, NotFound
from armada_web.web.logic.text import (
    ascii_skeleton,
    has_invisible,
    mixed_alphabets_problem,
    stacked_marks_problem,
)

TOKEN_NAME_MAX = 64


def check_password(*, request: Any, username: str, password: str, sign_in: bool = True) -> User:
    """The user with these credentials, counting failures; Invalid, or RateLimited past the limits
    (accounts.throttles: counted before the check, so parallel attempts meet the limits too).
    A success is a sign-in: its client address is recorded (accounts.sightings); with `sign_in`
    False the caller decides first whether it lets the user in (the admin's: staff only) and
    calls `signed_in`."""
    with throttles.attempt(request, username) as attempt:
        user = authenticate(request, username=username, password=password)
        if user is None:
            raise Invalid("wrong username or password (or the account is disabled)")
        attempt.succeeded()
    if sign_in:
        signed_in(request=request, user=user)  # type: ignore[arg-type]
    return user  # type: ignore[return-value]


def signed_in(*, request: Any, user: User) -> None:
    """A sign-in happened: its client address is recorded (accounts.sightings)."""
    sightings.record(user=user, kind=SightingKind.LOGIN, request=request)


def confirm_password(*, request: Any, user: User, password: str) -> None:
    """`user` (signed in) confirms their own password, counted as a log-in attempt is (the same
    limits: a stolen session cannot guess the password to change it or delete the account); Invalid
    for a wrong one, RateLimited past the limits."""
    with throttles.attempt(request, user.get_username(), own=user.pk) as attempt:
        if not user.check_password(password):
            raise Invalid("wrong password")
        attempt.succeeded()


def change_email(*, request: Any, user: User, address: str, password: str, site: str) -> EmailChange | None:
    """Mail a link to confirm `address` as `user`'s (`addresses.request_change`), once they have
    confirmed their password (`confirm_password`: the address receives password resets, so a stolen
    session must not set it; a security trial took an account over that way). Sending the link of
    the address already waiting again needs no password: that address was confirmed with it."""
    clean = addresses.clean_address(address)  # (a mistyped address is said first, the password kept)
    pending = addresses.pending(user=user)
    if pending is None or pending.address.lower() != clean.lower():
        confirm_password(request=request, user=user, password=password)
    return addresses.request_change(user=user, address=clean, site=site, request=request)


def take_sign_up(*, request: Any) -> None:
    """Count a sign-up from the request's client address (`ARMADA_SIGNUPS_PER_HOUR`); RateLimited past
    it: every account mails its address a link, and throw-away accounts are what the integrity
    checks look for. Run inside the sign-up's transaction."""
    limit = settings.ARMADA.signups_per_hour
    limits.take(action="sign-up", key=f"client:{client_key(request)}", limit=limit, window_s=3600,
                refusal=f"at most {limit} new accounts an hour from one network address")


def take_password_reset(*, request: Any, address: str) -> None:
    """Count a password-reset mail asked for `address` from the request's client
    (`ARMADA_PASSWORD_RESETS_PER_HOUR`; throttles.take_mail_request), whether or not an account has
    it (the answer tells nothing); RateLimited past the limits."""
    limit = settings.ARMADA.resets_per_hour
    throttles.take_mail_request(request, action="password-reset", address=address, limit=limit,
                                refusal="too many password-reset e-mails asked for (for this e-mail address, "
                                        "or from your network address)")


def clean_token_name(*, name: Any) -> str:
    """The name to keep for a new token: its words joined by single spaces, at most TOKEN_NAME_MAX
    characters, none of the invisible characters a team's name refuses either (`has_invisible`:
    direction overrides, zero-width marks); Invalid otherwise."""
    if not isinstance(name, str) or not name.strip():
        raise Invalid("a token needs a name (what you will call it, e.g. 'laptop')")
    if has_invisible(name):
        raise Invalid("a token's name may not hold control characters (tabs, new lines, invisible marks)")
    name = " ".join(name.split())
    if len(name) > TOKEN_NAME_MAX:
        raise Invalid(f"token name too long: {len(name)} characters (at most {TOKEN_NAME_MAX})")
    return name


def create_token(*, user: User, name: Any, request: Any = None) -> tuple[ApiToken, str]:
    """A new token for `user`; returns the row and the secret (shown once, never stored).

    A user holds at most `ARMADA_MAX_TOKENS` tokens; the count is taken with the user's row
    locked, so parallel requests cannot pass it. With the `request` that asked, its client
    address is recorded (accounts.sightings).
    """
    clean = clean_token_name(name=name)
    limit = settings.ARMADA.max_tokens
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        if ApiToken.objects.filter(user=user).count() >= limit:
            raise Invalid(f"you have {limit} tokens already; revoke some first")
        token, secret = ApiToken.objects.create(user=user, expiry=None, name=clean)
        if request is not None:
            sightings.record(user=user, kind=SightingKind.TOKEN, request=request, token=token)
    return token, secret


def create_own_token(*, request: Any, user: User, name: Any, password: str) -> tuple[ApiToken, str]:
    """`create_token` for a signed-in `user` once they have confirmed their password
    (`confirm_password`): a token outlives the session, so a stolen session must not mint one (the
    same rule as for the e-mail address). A bad name is said first, the password not counted."""
    clean_token_name(name=name)
    confirm_password(request=request, user=user, password=password)
    return create_token(user=user, name=name, request=request)


def revoke_token(*, user: User, token_id: int) -> None:
    """Delete one of the user's tokens; NotFound when it is not theirs."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise NotFound("no such token")


def check_username(*, username: str) -> str:
    """`username` if it can be a new account's name: Invalid when a page cannot link to it (only
    dots: `/users/../` is another page to a browser, `%2E%2E` too) or when it could pass for
    another's: letters of two of the Latin, Cyrillic and Greek alphabets (`alice` with its first
    "a" the Cyrillic U+0430, beside `alice`; the account's personal team takes the name, and a
    team's name refuses the same: D-S-23, D-S-32) or a stack of accent marks (D-S-31). Django's
    validator (letters, digits, `@.+-_`, at most 150 characters) has already refused `/`, `?`, `#`,
    `%` and spaces on the sign-up and admin forms. A name that is not ASCII but reads as an existing
    ASCII one (`al\u0131ce`, `\u0251lice` beside `alice`: `ascii_skeleton`, D-S-34) is refused too. Only a new
    name is checked: older accounts keep theirs."""
    if username and not username.strip("."):
        raise Invalid("a username cannot be only dots: its page's address would lead elsewhere")
    problem = (mixed_alphabets_problem(username, what="the username", other="another user's name")
               or stacked_marks_problem(username, what="the username"))
    if problem:
        raise Invalid(problem)
    skeleton = ascii_skeleton(username)
    if skeleton and User.objects.filter(username__iexact=skeleton).exists():  # D-S-34
        raise Invalid(f"the username reads as {skeleton!r}, an existing user's name: choose another")
    return username


def sign_up(*, username: str, email: str, password: str, request: Any = None, site: str = "") -> User:
    """A new account (the form has checked the name and the password against Django's validators,
    and `check_username`, checked again here);
    with the `request` that asked, its client address is recorded (accounts.sightings). An e-mail
    address is not used before it is confirmed: a link goes to it (accounts.addresses, `site` is
    the link's scheme and host); one another account has confirmed waits the same, its owner gets a
    note instead of a link (D-S-36), so the answer never tells whether an address has an account."""
    check_username(username=username)
    with transaction.atomic():
        # Two sign-ups of one name (in any case, or reading as one) at once: one after the other, the
        # second refused (a review: "carol" and "Carol" together made both accounts, or a 500)
        limits.hold(action="username", key=throttles.folded(ascii_skeleton(username) or username))
        check_username(username=username)
        if queries.name_taken(username=username):
            raise Conflict("A user with that username already exists.")
        if request is not None:
            take_sign_up(request=request)
        user = User.objects.create_user(username=username, email="", password=password)
        if email:
            addresses.request_change(user=user, address=email, site=site, request=request)
        if request is not None:
            sightings.record(user=user, kind=SightingKind.SIGNUP, request=request)
    return user


def ensure_superuser(*, username: str, email: str, password: str) -> str:
    """The organiser's staff account, made once (compose's start, from DJANGO_SUPERUSER_*): returns
    "created", "exists" (a superuser of that name: left as it is, its password too) or "not staff"
    (an ordinary account has the name: never promoted, so a name taken by someone else does not
    make them staff). Invalid without a username or, for a new account, a password or a name
    `check_username` refuses."""
    username = username.strip()
    if not username:
        raise Invalid("the staff account needs a username (DJANGO_SUPERUSER_USERNAME)")
    existing = User.objects.filter(username=username).first()
    if existing is not None:  # made before `check_username`'s rule, it still passes (every start runs this)
        return "exists" if existing.is_superuser else "not staff"
    check_username(username=username)
    if not password:
        raise Invalid(f"the staff account {username!r} needs a password (DJANGO_SUPERUSER_PASSWORD)")
    try:  # the rules a sign-up's password follows: the staff account of a public site most of all
        validate_password(password, User(username=username, email=email.strip()))
    except ValidationError as exc:
        raise Invalid(f"DJANGO_SUPERUSER_PASSWORD for the staff account {username!r} is refused: "
                      f"{' '.join(exc.messages)}") from None
    User.objects.create_superuser(username=username, email=email.strip(), password=password)
    return "created"


def delete_account(*, user: User, password: str, request: Any = None) -> None:
    """Delete a user, who confirms with their password: their bots retire (matches keep them),
    their sources and logs go (Invalid for a wrong password; nothing is changed). The password
    is counted as a log-in attempt is (`confirm_password`; from the `request`'s client).

    The forgetting happens in a pre_delete receiver (armada_web.bots.receivers), so deleting a
    user from the admin or a shell does the same.
    """
    confirm_password(request=request, user=user, password=password)
    with transaction.atomic():
        user.delete()


def revoke_every_token(*, user: User) -> None:
    """A new password, however set (the account may have been taken over): every API token is revoked
    (called by accounts.receivers on the save that stores it)."""
    ApiToken.objects.filter(user=user).delete()


def set_mail_preferences(*, user: User, **topics: Any) -> MailPreferences:
    """Turn each e-mail topic (accounts.mail.TOPICS) on or off; Invalid for an unknown one or a non-boolean."""
    for topic, value in topics.items():
        if topic not in mail.TOPICS:
            raise Invalid(f"unknown e-mail topic {topic!r}")
        if not isinstance(value, bool):
            raise Invalid(f"{topic} must be true or false")
    prefs = mail.preferences(user)
    for topic, value in topics.items():
        setattr(prefs, topic, value)
    prefs.save()
    return prefs


def mark_demo(*, user: User) -> None:
    """Mark `user` as a demo account (the group `DEMO_GROUP`, made when missing); idempotent."""
    group, _ = Group.objects.get_or_create(name=DEMO_GROUP)
    user.groups.add(group)
