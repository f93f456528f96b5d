"""seed_scale: a season of realistic data for scale tests and benches (docs/operations.md)."""
