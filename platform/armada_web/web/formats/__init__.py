"""Date and time formats for the admin and forms: the site's own (24-hour, ISO dates), not Django's "en"."""
