"""English dates and times as the site writes them: a deadline is "Tue 24 Nov 2026, 18:00"."""

DATE_FORMAT = "j M Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "D j M Y, H:i"
SHORT_DATETIME_FORMAT = "D j M, H:i"
MONTH_DAY_FORMAT = "j M"
