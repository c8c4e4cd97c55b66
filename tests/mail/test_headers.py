"""A mail's headers are written exactly as the standard library's compat32 policy would
write them; only the cost differs (werewolf.mail.outbound._Headers)."""

from __future__ import annotations

from email import policy

from hypothesis import given, settings
from hypothesis import strategies as st

from werewolf.mail.outbound import HEADERS

NAMES = ["Subject", "To", "From", "Message-ID", "X-Auto-Response-Suppress", "Content-Type", "In-Reply-To"]
ASCII = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=120)
ANY = st.text(max_size=120)
WORDS = st.lists(st.text(alphabet="abcdefghij=?<>@.-_\"'", min_size=1, max_size=12), max_size=12).map(" ".join)


def outcome(fold, name: str, value: str) -> object:
    try:
        return fold(name, value)
    except Exception as refused:  # (compat32 refuses a value that holds a line break and a header)
        return type(refused)


def same(name: str, value: str) -> None:
    for linesep in ("\n", "\r\n"):
        ours, theirs = HEADERS.clone(linesep=linesep), policy.compat32.clone(linesep=linesep)
        assert outcome(ours.fold_binary, name, value) == outcome(theirs.fold_binary, name, value), (name, value)
        assert outcome(ours.fold, name, value) == outcome(theirs.fold, name, value), (name, value)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(NAMES), st.one_of(ASCII, ANY, WORDS))
def test_any_value_is_folded_as_compat32_folds_it(name: str, value: str) -> None:
    same(name, value)


def test_the_values_a_mail_carries() -> None:
    for name, value in [
        ("MIME-Version", "1.0"),
        ("Content-Transfer-Encoding", "7bit"),
        ("Content-Type", 'text/plain; charset="utf-8"'),
        ("Subject", "[Storm 12] Night 1 is over"),
        ("Subject", "[Una partita lunga, con un nome molto lungo davvero] Giorno 2, ballottaggio: tocca a te"),
        ("To", '"Zoë \\"Z\\" O\'Neil" <zoe@example.org>'),
        ("To", "=?utf-8?q?Zo=C3=AB?= <zoe@example.org>"),
        ("Message-ID", "<0123456789abcdef0123456789abcdef@werewolf.example.org>"),
        ("Date", "Thu, 26 Nov 2026 07:40:00 -0000"),
        ("X-Auto-Response-Suppress", "All"),
        ("Subject", "  two  spaces "),
        ("Subject", ""),
        ("Subject", "tab\there"),
    ]:
        same(name, value)
