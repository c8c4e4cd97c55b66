"""Print a deck of role cards as a PDF, for any ruleset and table size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from werewolf import engine
from werewolf.engine.rulesets import RULESETS
from werewolf.printing import documents, layout


class Command(BaseCommand):
    help = (
        "Write the role cards of a ruleset's deck for a number of players as a PDF: poker-size cards, "
        "nine to a sheet with cut guides and crop marks, optionally with backs for duplex printing. "
        "Example: print_cards --ruleset classic --players 12 --lang it --paper letter --backs -o deck.pdf"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ruleset", default=engine.listed()[0], choices=engine.listed())
        parser.add_argument("--players", type=int, required=True, help="How many players the deck is for.")
        parser.add_argument("--paper", default="a4", choices=sorted(layout.PAPERS))
        parser.add_argument(
            "--lang",
            default=None,
            help="The language of the cards, one of settings.LANGUAGES (en, it); default: the site's.",
        )
        parser.add_argument("--backs", action="store_true", help="Add a sheet of backs after each sheet of fronts.")
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="OPTION=VALUE",
            help="A game option, as for simulate (e.g. --set wolves=3).",
        )
        parser.add_argument(
            "--pack",
            action="store_true",
            help="Lupusburg's whole pack (characters, houses with and without chest, goals, coins, seals, the "
            "Burgomaster) instead of the role cards alone.",
        )
        parser.add_argument("-o", "--output", required=True, help="The PDF file to write.")

    def handle(self, *args: Any, **opts: Any) -> None:
        options: dict[str, Any] = {}
        for item in opts["set"]:
            name, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"--set takes OPTION=VALUE, not {item!r}")
            options[name.strip()] = value.strip()
        # Without --lang, the site's own language: never whatever the process last spoke.
        language = _language(opts["lang"]) if opts["lang"] is not None else settings.LANGUAGE_CODE
        if opts["pack"] and not engine.capabilities(opts["ruleset"]).paper_pack:
            packed = [name for name, rules in RULESETS.items() if rules.capabilities.paper_pack]
            raise CommandError(f"--pack prints a whole game for a table: only {', '.join(packed)} have one.")
        try:
            # The cards' texts read the options as the game has them: what --set leaves out
            # filled in for the table (a preset's role counts), not only what was given.
            cards, options = documents.deck(opts["ruleset"], opts["players"], options, pack=opts["pack"])
        except engine.SetupError as refused:
            raise CommandError(
                f"{opts['ruleset']} cannot be dealt for {opts['players']} players with these options ({refused.code})."
            ) from None
        pdf = documents.role_cards_pdf(
            cards,
            ruleset=opts["ruleset"],
            options=options,
            paper=opts["paper"],
            backs=opts["backs"],
            language=language,
        )
        try:
            Path(opts["output"]).write_bytes(pdf)
        except OSError as refused:  # a folder that is not there, a file not ours: said, not a traceback
            raise CommandError(f"Cannot write {opts['output']}: {refused.strerror or refused}.") from None
        self.stdout.write(f"{len(cards)} cards on {len(layout.sheets(cards, opts['backs']))} sheets: {opts['output']}")


def _language(asked: str) -> str:
    """The language of settings.LANGUAGES that `asked` names ("it", "it-IT"...), or a
    CommandError listing them: an unknown code would otherwise print in English unsaid."""
    try:
        return translation.get_supported_language_variant(asked.strip().lower())
    except LookupError:
        known = ", ".join(f"{code} ({name})" for code, name in settings.LANGUAGES)
        raise CommandError(f"--lang {asked!r} is not a language of this site: use one of {known}.") from None
