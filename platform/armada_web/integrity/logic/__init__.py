"""The integrity checks' pure part: fingerprints, similarity, account links and the statistics of
thrown games, with no Django and no database."""
