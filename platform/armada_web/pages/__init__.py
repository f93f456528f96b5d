"""Server-rendered pages: templates and static files."""
