#!/usr/bin/env python
"""Django's command-line utility for the Armada site."""

import os
import shlex
import sys
from pathlib import Path


def site_variables() -> list[str]:
    """With ARMADA_DATA_DIR naming the data folder of a site `make up` runs, the variables that site
    runs with (its `manage.env`: database, task queue, secrets) where this command's environment
    sets none: `ARMADA_DATA_DIR=... manage.py season close` acts on that site, its integrity checks
    sent to that site's queue, not to another Redis database. Returns the names taken."""
    folder = os.environ.get("ARMADA_DATA_DIR")
    path = Path(folder) / "manage.env" if folder else None
    if path is None or not path.is_file():
        return []
    taken = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = shlex.split(line, comments=True)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            name, value = words[1].split("=", 1)
            if name not in os.environ:
                os.environ[name] = value
                taken.append(name)
    return taken


def main() -> None:
    site_variables()
    # The site's code lives in platform/ (a source folder, never a package: the standard
    # library has a `platform` module). Appending keeps the standard library first.
    source = str(Path(__file__).resolve().parent / "platform")
    if source not in sys.path:
        sys.path.append(source)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")
    from django.core.management import execute_from_command_line
    from django.db.utils import OperationalError, ProgrammingError

    try:
        execute_from_command_line(sys.argv)
    except (OperationalError, ProgrammingError) as exc:
        # A database without the site's tables (not even Django's record of migrations): most often a
        # command run without the variables of the site's `make up` (ARMADA_DATA_DIR, DATABASE_URL),
        # which found another, empty database. Anything else, and `migrate` itself, as it was.
        from django.db import connection

        try:
            empty = "django_migrations" not in connection.introspection.table_names()
        except Exception:
            empty = False
        if not empty or (len(sys.argv) > 1 and sys.argv[1] == "migrate"):
            raise

        name = connection.settings_dict.get("NAME")
        sys.exit(f"{sys.argv[1] if len(sys.argv) > 1 else 'manage.py'}: the database {name} has no site in it "
                 f"({str(exc).splitlines()[0]}): give this command the ARMADA_DATA_DIR (or DATABASE_URL) the "
                 "site was started with (its manage.env, which `make up` printed as Commands:, holds every "
                 "variable), or run `manage.py migrate` for a new one")


if __name__ == "__main__":
    main()
