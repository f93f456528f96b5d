"""What the apps share that needs no Django (pure: the standard library only)."""
