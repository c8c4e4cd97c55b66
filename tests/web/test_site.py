"""The site as allauth's mails name it (issue 38): the account confirmation read "to
register an account on ." because the site's adapter renders allauth's mails without
the site, and no sites framework said which. The site is django.contrib.sites' row,
recorded by `migrate` from the site's address (WEREWOLF_SITE_URL) and name
(WEREWOLF_SITE_NAME)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.sites.models import Site
from django.test import Client

from werewolf.games.models import Dispatch

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_confirmation_mail_of_a_sign_up_names_the_site(settings: Any) -> None:
    settings.WEREWOLF_SIGNUP_POLICY = "open"
    response = Client().post(
        "/accounts/signup/",
        {
            "email": "teacher@school.example",
            "username": "teacher",
            "password1": "a long pass phrase",
            "password2": "a long pass phrase",
        },
    )
    assert response.status_code == 302
    (row,) = Dispatch.objects.filter(kind=Dispatch.Kind.ACCOUNT)
    assert "to register an account on testserver." in row.body_text, row.body_text
    assert " on ." not in row.body_text
    site = Site.objects.get_current()
    assert (site.domain, site.name) == ("testserver", settings.SITE_NAME) == ("testserver", "Werewolf")
