"""How django-allauth fits the site: who may sign up (WEREWOLF_SIGNUP_POLICY and
invitations), and its mails written into the outbox for a worker to send."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.contrib.sites.shortcuts import get_current_site
from django.http import HttpRequest

from . import invitations


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        """ "open": anyone; "invite": whoever came by an organiser's invitation still open
        (kept in the session by `views.invitation`); "closed": nobody (the operator makes
        accounts with `manage.py ensure_organiser`)."""
        policy = settings.WEREWOLF_SIGNUP_POLICY
        if policy == "open":
            return True
        return policy == "invite" and invitations.pending(request) is not None

    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        """Rendered here, in the visitor's language, and queued in the outbox: a worker
        sends it once the request commits (werewolf.mail.outbound.queue_account_mail)."""
        from allauth.core import context as allauth_context

        from werewolf.mail import outbound

        request = allauth_context.request
        ctx = {
            "request": request,
            "email": email,
            "site_url": settings.SITE_URL,
            # The site's name (django.contrib.sites, recorded by migrate from WEREWOLF_SITE_NAME)
            # that allauth's mails say: "to register an account on Werewolf".
            "current_site": get_current_site(request),
            **context,
        }
        outbound.queue_account_mail(self.render_mail(template_prefix, email, ctx))
