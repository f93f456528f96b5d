#!/usr/bin/env python
"""Django's command-line utility for the Armada site."""

import os
import re
import subprocess
import sys
from pathlib import Path

#: What `make up` exports for its own manage.py calls: they take the variables it was given, never
#: those of the data folder's older manage.env (a run with another DATABASE_URL would migrate that).
OWN_VARIABLES = "ARMADA_OWN_VARIABLES"


def site_variables() -> list[str]:
    """With ARMADA_DATA_DIR naming the data folder of a site `make up` runs, the variables that site
    runs with (its `manage.env`: database, task queue, secrets) where this command's environment
    sets none: `ARMADA_DATA_DIR=... manage.py season close` acts on that site, its integrity checks
    sent to that site's queue, not to another Redis database. The file is read by bash, which wrote
    it (`printf %q`: `$'...'` for a control character), so every value comes back exactly. Returns
    the names taken."""
    folder = os.environ.get("ARMADA_DATA_DIR")
    path = Path(folder) / "manage.env" if folder else None
    if path is None or not path.is_file() or os.environ.get(OWN_VARIABLES):
        return []
    names = re.findall(r"^export ([A-Za-z_][A-Za-z0-9_]*)=", path.read_text(encoding="utf-8"), re.MULTILINE)
    wanted = [name for name in names if name not in os.environ]
    if not wanted:
        return []
    read = subprocess.run(["bash", "-c", '. "$1" >/dev/null || exit 1; shift; for n; do printf "%s\\0" "${!n-}"; done',
                           "manage.env", str(path), *wanted], capture_output=True, check=False)
    if read.returncode != 0:
        sys.exit(f"manage.py: {path} could not be read: {read.stderr.decode(errors='replace').strip()}")
    values = read.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]
    for name, value in zip(wanted, values, strict=True):
        os.environ[name] = value
    return wanted


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
