"""Italian dates and times: a deadline is "Mar 24 nov 2026, 18:00" (the month in lower
case, as Italian writes it; the 24-hour clock)."""

DATE_FORMAT = "j b Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "D j b Y, H:i"
SHORT_DATETIME_FORMAT = "D j b, H:i"
MONTH_DAY_FORMAT = "j b"
