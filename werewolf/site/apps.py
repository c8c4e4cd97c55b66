from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


class SiteConfig(AppConfig):
    """The site's address and name (werewolf/site/__init__.py). No models of its own: it
    keeps them in django.contrib.sites' row. Its record follows the sites app's own
    post_migrate (which makes the row): connected after it, since that app comes first in
    INSTALLED_APPS (and a post_migrate is sent only for apps with models)."""

    name = "werewolf.site"
    label = "werewolf_site"

    def ready(self) -> None:
        from . import address, checks  # noqa: F401  (checks registers the deploy check)

        sites = apps.get_app_config("sites")
        post_migrate.connect(address.record, sender=sites, dispatch_uid="werewolf.site.record")
