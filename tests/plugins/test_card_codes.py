"""Card codes are read in one place, plugins/cards.py: the engines, the server's table and (through
the generated TypeScript) the page take the codes and their reading from it."""

from __future__ import annotations

from plugins import cards


def test_parse_card_reads_every_code_and_nothing_else() -> None:
    assert cards.parse_card("H1") == ("H", 1)
    assert cards.parse_card("S12") == ("S", 12)
    assert cards.parse_card("J2") == ("J", 0)
    assert cards.parse_card("J1", jokers=False) is None
    for bad in ("H0", "H14", "X5", "h5", "S", "", "H01", None, 12, "H 5"):
        assert cards.parse_card(bad) is None, bad
    assert [cards.parse_card(c) for c in cards.STANDARD] == [
        (s, r) for s in cards.SUITS for r in range(1, 14)
    ]


def test_suit_and_rank_agree_with_parse_card() -> None:
    for code in (*cards.STANDARD, *cards.JOKERS):
        assert (cards.suit(code), cards.rank(code)) == cards.parse_card(code)
