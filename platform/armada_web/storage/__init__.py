"""Where the site keeps what is not in the database: the private object storage (`objectstore`),
the bot archive's checks and stored form (`archives`) and the cache that survives Redis going
down (`resilient_cache`). Below every app; imports no app."""
