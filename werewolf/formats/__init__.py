"""Date and time formats per language (settings.FORMAT_MODULE_PATH): the templates name
a format (`date:"DATETIME_FORMAT"`) and each reader gets it in the language they read,
with Django's own formats for whatever is not set here."""
