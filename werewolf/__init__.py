"""werewolf: written-notecard Werewolf. The Celery app is in `werewolf.celery`, imported
only where tasks are sent or run, so that `werewolf.engine` stays free of Celery and Django."""
