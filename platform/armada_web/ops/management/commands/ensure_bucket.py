"""`manage.py ensure_bucket`: create the object storage bucket (ARMADA_S3_BUCKET) when it is missing.

Idempotent: an existing bucket is left as it is. Compose's one-shot `migrate` service runs it on
every start when ARMADA_S3_CREATE_BUCKET=true (docs/deploy.md, "Object storage"); with local files
(no ARMADA_S3_BUCKET) there is nothing to create. Exit 1 with the bucket, the endpoint and the
reason when the store cannot be reached or refuses.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from armada_web.storage import objectstore


class Command(BaseCommand):
    help = "Create the object storage bucket (ARMADA_S3_BUCKET) when it is missing; idempotent."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            where, done = objectstore.ensure_bucket()
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot make sure the bucket exists: {exc}") from None
        self.stdout.write(where + {"created": ": created", "exists": ": exists, unchanged",
                                   "local": ": no ARMADA_S3_BUCKET, no bucket to create"}[done])
