"""Date expressions in a clause, resolved against the turn's timestamp: app/timephrases.py, the
one reading of time phrases that /remember and /recall share."""

from app.timephrases import NUMBER_WORDS, WEEKDAYS, When, find_date

__all__ = ["NUMBER_WORDS", "WEEKDAYS", "When", "find_date"]
