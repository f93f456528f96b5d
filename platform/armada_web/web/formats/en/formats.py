"""English formats as the site's pages write dates and times (`Y-m-d H:i`, UTC): the admin showed
Django's "Dec. 7, 2026, 1:05 p.m." beside the pages' "2026-12-07 13:05" (settings.FORMAT_MODULE_PATH)."""

DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "Y-m-d H:i:s"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
MONTH_DAY_FORMAT = "j F"
YEAR_MONTH_FORMAT = "F Y"
FIRST_DAY_OF_WEEK = 1  # Monday, as ISO 8601
