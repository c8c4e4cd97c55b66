"""Who a mail is from: the moderator's display name in the game's language (an Italian
game's players read "Il moderatore dei Lupi Mannari"), at the address the site sends from;
a name the site's operator chose is kept as written."""

from __future__ import annotations

from email.header import decode_header, make_header
from email.utils import parseaddr

import pytest
from django.core import mail

from werewolf.games import services

from ..web.play import NAMES

pytestmark = pytest.mark.django_db(transaction=True)


def _senders(organiser, language: str) -> set[tuple[str, str]]:
    seats = [services.Seating(name, f"{name.lower()}@example.org") for name in NAMES[:7]]
    mail.outbox.clear()
    services.start_game(
        services.create_game(
            organiser, name="Villaggio", seats=seats, options={"wolves": 2, "seers": 1}, language=language
        )
    )
    assert len(mail.outbox) == 7
    return {parseaddr(str(make_header(decode_header(sent.message()["From"])))) for sent in mail.outbox}


def test_the_moderator_writes_in_the_games_language(organiser, settings) -> None:
    settings.DEFAULT_FROM_EMAIL = "Werewolf moderator <moderator@werewolf.test>"
    assert _senders(organiser, "en") == {("Werewolf moderator", "moderator@werewolf.test")}
    assert _senders(organiser, "it") == {("Il moderatore dei Lupi Mannari", "moderator@werewolf.test")}


def test_a_name_the_operator_chose_is_kept(organiser, settings) -> None:
    settings.DEFAULT_FROM_EMAIL = "Circolo dei giochi <giochi@circolo.example>"
    for language in ("en", "it"):
        assert _senders(organiser, language) == {("Circolo dei giochi", "giochi@circolo.example")}
    settings.DEFAULT_FROM_EMAIL = "giochi@circolo.example"
    assert _senders(organiser, "it") == {("", "giochi@circolo.example")}
