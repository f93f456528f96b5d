#!/usr/bin/env python
"""Django's command-line utility for the Armada site."""

import os
import sys
from pathlib import Path


def main() -> None:
    # The site's code lives in platform/ (a source folder, never a package: the standard
    # library has a `platform` module). Appending keeps the standard library first.
    source = str(Path(__file__).resolve().parent / "platform")
    if source not in sys.path:
        sys.path.append(source)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armada_web.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
