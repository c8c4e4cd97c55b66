"""Celery tasks: thin wrappers that call services, safe to run twice."""
