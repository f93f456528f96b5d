"""The password hasher of the in-process site tests: Django's PBKDF2 with 1,000 iterations instead of
1,000,000 (1.2 s a hash on the 2-core machine; a test creating five users spent 6 s on it).

The algorithm's name and the hash's format stay PBKDF2's, with the iterations in the hash, so a
live site's processes (which keep the real settings) verify the users a test creates in-process
and a restored backup's passwords still check; the checks of the tests do not change."""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher

HASHER = "tests.support.passwords.QuickPBKDF2PasswordHasher"


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1000
