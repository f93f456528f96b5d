"""How the site runs: its typed settings read once from the environment (`config`) and its log
lines with the context of the work they belong to (`logs`). Below every app; imports no app."""
