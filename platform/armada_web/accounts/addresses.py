"""A user's e-mail address: adding or changing it, confirmed by a link before anything is sent to it.

`User.email` is the confirmed address, the only one the site mails (notifications in
`accounts.mail`, password resets through Django's form, which looks accounts up by it). An
address given at sign-up or on the profile page waits in an `EmailChange` row, and the link
mailed to it carries a token signed by Django's `signing` (the site's SECRET_KEY, a salt of its
own, a timestamp: it expires after `LINK_DAYS`). Opening the link shows a button; only its POST
confirms, so a mail scanner that fetches the link confirms nothing. Until then the old confirmed
address keeps working. An address another account has confirmed (whatever its case) never becomes
a second account's: asked for, it waits like any other, but its owner gets a note instead of a
link, so the answer does not tell a stranger whether the address has an account (D-S-36); a
confirmation is refused again when another account has confirmed the address meanwhile. A newer
request replaces the older one's link; a used, replaced, expired or damaged link is refused with
a message (`Invalid`), never an error page.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from armada_web.accounts import limits, mail
from armada_web.accounts.models import EmailChange
from armada_web.accounts.throttles import ALL_CLIENTS, folded
from armada_web.web.clients import client_key
from armada_web.web.errors import Conflict, Invalid, Unavailable
from armada_web.web.logic.text import has_invisible

log = logging.getLogger(__name__)

#: How long a confirmation link works.
LINK_DAYS = 3
#: At most this many confirmation links per user and hour (each one is a mail to any address).
LINKS_PER_HOUR = 5
SALT = "armada.accounts.email-confirm"
ADDRESS_MAX = 254


@dataclass(frozen=True)
class Link:
    """What a confirmation link is for: `change` is None when its address is confirmed already."""

    user: User
    address: str
    change: EmailChange | None


def clean_address(address: object) -> str:
    """The address as it is kept (spaces trimmed, the domain in lower case); Invalid when it is none."""
    if not isinstance(address, str) or not address.strip():
        raise Invalid("give an e-mail address")
    address = User.objects.normalize_email(address.strip())
    hidden = next((c for c in address if has_invisible(c)), None)
    if hidden is not None:  # (IDNA drops a zero-width space from the domain: validate_email took it, and the
        # address kept it, unlike the one typed at a password reset or in another account's check). A
        # joiner of a Persian or Indic domain name is refused too: the mail's IDNA2003 encoding drops it.
        raise Invalid(f"the e-mail address holds an invisible character (U+{ord(hidden):04X}, a zero-width space or "
                      "joiner, a direction mark or a control character, often pasted with it): type the address "
                      "again without it, or give another address (mail cannot reach a domain name that needs one)")
    if len(address) > ADDRESS_MAX:
        raise Invalid(f"e-mail address too long: {len(address)} characters (at most {ADDRESS_MAX})")
    try:
        validate_email(address)
    except ValidationError:
        raise Invalid(f"{address!r} is not an e-mail address") from None
    return address


def owner_of(*, address: str, user: User | None) -> User | None:
    """The account other than `user` that has confirmed `address` (case-insensitive), if any."""
    others = User.objects.filter(email__iexact=address)
    if user is not None:
        others = others.exclude(pk=user.pk)
    return others.order_by("pk").first()


def check_free(*, address: str, user: User | None) -> None:
    """Conflict when an account other than `user` has confirmed `address` (case-insensitive)."""
    if owner_of(address=address, user=user) is not None:
        raise Conflict(f"{address} is the address of another account: use another one "
                       "(or reset that account's password if it is yours)")


def pending(*, user: User) -> EmailChange | None:
    """The address `user` asked for that waits for its link, if any."""
    return EmailChange.objects.filter(user=user).first()


def request_change(*, user: User, address: object, site: str, request: Any = None) -> EmailChange | None:
    """Mail a confirmation link to `address` for `user` (`site`: the link's scheme and host, e.g.
    "https://armada.example.org"); the address is used once the link is opened and confirmed.

    Asking for the confirmed address again drops any pending change (returns None); asking again
    for a pending one sends a new link and the old link stops working. An address another account
    has confirmed waits the same, but its owner is mailed a note, not a link (D-S-36: the answer
    is the same whoever has the address). Invalid for a bad address, RateLimited past
    `LINKS_PER_HOUR`, Unavailable when the mail cannot be sent (then nothing is changed).
    """
    clean = clean_address(address)
    if clean.lower() == (user.email or "").lower():
        EmailChange.objects.filter(user=user).delete()
        return None
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        limits.take(action="email-link", key=limits.user_key(user.pk), limit=LINKS_PER_HOUR, window_s=3600,
                    refusal=f"at most {LINKS_PER_HOUR} confirmation links an hour")
        change, _created = EmailChange.objects.update_or_create(
            user=user, defaults={"address": clean, "key": secrets.token_hex(8), "requested": timezone.now()})
        owner = owner_of(address=clean, user=user)
        if owner is None:
            subject = "[Armada] Confirm your e-mail address"
            url = site.rstrip("/") + reverse("email-confirm", kwargs={"token": link_token(change)})
            body, to = _link_body(user=user, address=clean, url=url), clean
        else:  # to the owner's address as they confirmed it
            subject = "[Armada] Your e-mail address was asked for"
            body, to = _taken_body(user=user, owner=owner, site=site), owner.email
        take_mail_to(address=to, action="email-link", request=request,
                     refusal="too many confirmation links to this e-mail address this hour")
        if user.email:  # the confirmed address hears of it now, not only once it is replaced (a security trial)
            mail.queue_notice(user=user, address=user.email, topic="address_change_asked",
                              key=f"asked-{change.pk}-{change.key}", subject="A new e-mail address was asked for",
                              body=_asked_body(user=user, address=clean))
        try:
            send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to])
        except OSError as exc:  # the mail server is down: nothing is kept, the user may try again
            log.warning("confirmation link for user %s not sent: %s", user.pk, exc)
            raise Unavailable("the confirmation e-mail could not be sent; try again later") from None
    return change


def take_mail_to(*, address: str, action: str, refusal: str, request: Any = None) -> None:
    """Count one mail of `action` to `address` (whatever its case): at most `LINKS_PER_HOUR` an hour from
    the `request`'s client, `ALL_CLIENTS` times that from anyone; RateLimited past either. New accounts
    cannot mail one address without end (a security trial sent 20 links to one address from 20
    accounts), and one client cannot use up the address's own links. Inside the transaction of the
    write it limits (a refused or failed request counts nothing)."""
    digest = folded(address)
    limits.take(action=action, key=f"to:{digest}", limit=ALL_CLIENTS * LINKS_PER_HOUR, window_s=3600,
                refusal=refusal)
    if request is not None:
        limits.take(action=action, key=f"to:{digest}:{client_key(request)}", limit=LINKS_PER_HOUR, window_s=3600,
                    refusal=refusal)


def cancel_change(*, user: User) -> bool:
    """Drop the user's pending address (its link stops working); True when there was one."""
    deleted, _ = EmailChange.objects.filter(user=user).delete()
    return bool(deleted)


def link_token(change: EmailChange) -> str:
    """The signed, timestamped token of a change's link."""
    return signing.dumps({"u": change.user_id, "k": change.key, "a": change.address}, salt=SALT)


def read_link(*, token: str, lock: bool = False) -> Link:
    """What the link's `token` confirms, checked (signature, age, still the latest request, the
    address still free); Invalid or Conflict with a message saying what to do."""
    try:
        payload = signing.loads(token, salt=SALT, max_age=timedelta(days=LINK_DAYS))
    except signing.SignatureExpired:
        raise Invalid(f"this link has expired (links work for {LINK_DAYS} days): "
                      "ask for a new one on your profile page") from None
    except (signing.BadSignature, ValueError):
        raise Invalid("this link is not valid: open the whole link from the e-mail, "
                      "or ask for a new one on your profile page") from None
    if not (isinstance(payload, dict) and isinstance(payload.get("u"), int)
            and isinstance(payload.get("k"), str) and isinstance(payload.get("a"), str)):
        raise Invalid("this link is not valid: ask for a new one on your profile page")
    address = payload["a"]
    if lock:  # competing confirmations of one address are taken one after the other
        list(EmailChange.objects.select_for_update().filter(address__iexact=address).values_list("pk", flat=True))
    change = (EmailChange.objects.filter(user_id=payload["u"], key=payload["k"], user__is_active=True)
              .select_related("user").first())
    if change is None:
        user = User.objects.filter(pk=payload["u"], is_active=True).first()
        if user is not None and user.email.lower() == address.lower():
            return Link(user=user, address=user.email, change=None)
        raise Invalid("this link was used already, or replaced by a newer one: "
                      "ask for a new one on your profile page")
    check_free(address=change.address, user=change.user)
    return Link(user=change.user, address=change.address, change=change)


def confirm(*, token: str) -> Link:
    """Confirm the address of a link: it becomes the user's `User.email` (the old one gets a note).
    A link whose address is confirmed already answers the same (a second POST changes nothing)."""
    with transaction.atomic():
        link = read_link(token=token, lock=True)
        if link.change is None:
            return link
        user = User.objects.select_for_update().get(pk=link.user.pk)
        old = user.email
        user.email = link.address
        user.save(update_fields=["email"])
        changed = f"address-{link.change.pk}-{link.change.key}"  # (this change, once)
        link.change.delete()
        if old and old.lower() != link.address.lower():  # the old address is told, through the outbox
            mail.queue_notice(user=user, address=old, topic="address_changed", key=changed,
                              subject="Your e-mail address was changed",
                              body=f"The e-mail address of the Armada account {user.username} is now {user.email}: "
                                   "notifications and password resets go there.\nIf it was not you, tell the "
                                   "organisers.\n")
    return Link(user=user, address=link.address, change=None)


def _asked_body(*, user: User, address: str) -> str:
    return (f"Someone signed in as {user.username} asked to use {address} as the account's e-mail address "
            "(password resets would go there). It changes only once the link sent to that address is opened.\n"
            "If it was not you, change your password now and drop the new address on your profile page.\n")


def _link_body(*, user: User, address: str, url: str) -> str:
    now = f"Until then, e-mails go to {user.email}." if user.email else "Until then, nothing can be sent to you."
    return (f"Someone asked to use {address} as the e-mail address of the Armada account {user.username}.\n"
            f"To confirm it, open this link and press Confirm (it works for {LINK_DAYS} days):\n\n{url}\n\n"
            f"{now}\nIf it was not you, ignore this e-mail: nothing changes.\n")


def _taken_body(*, user: User, owner: User, site: str) -> str:
    """The note to an address's owner when another account asks for it (no link: it stays theirs)."""
    reset = site.rstrip("/") + reverse("password-reset")
    return (f"Someone asked to use this address as the e-mail address of the Armada account {user.username}.\n"
            f"It is the address of your account {owner.username}, so it stays yours: nothing changes.\n"
            f"If you made that account too, use another address there. If you forgot your password, "
            f"reset it here:\n\n{reset}\n")


