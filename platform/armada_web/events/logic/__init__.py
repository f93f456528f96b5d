"""The app's pure part: no Django, no database (docs/architecture.md, "Pure and database code")."""
