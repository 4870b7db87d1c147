"""The fair-deal core (plugins/fair.py): known answers computed independently with hashlib and
hmac inline, the shuffle is a permutation and uniform, every player's value changes the deal,
and one changed card or seed byte fails verification."""

from __future__ import annotations

import hashlib
import hmac
import random
import struct

from plugins import fair

SEED = bytes(range(32))
VALUES = ["00112233445566778899aabbccddeeff", None, "ffeeddccbbaa99887766554433221100", None]


def test_commitment_known_answer() -> None:
    want = hashlib.sha256(b"cardtable-fair-v1\x00ABCD\x003\x00" + SEED).hexdigest()
    assert fair.commitment(SEED, "ABCD", 3) == want
    assert len(want) == 64 and want == want.lower()


def test_deal_key_known_answer() -> None:
    msg = (
        b"cardtable-deal-v1\x00ABCD\x003\x00"
        b"00112233445566778899aabbccddeeff,-,ffeeddccbbaa99887766554433221100,-"
    )
    want = hmac.new(SEED, msg, hashlib.sha256).digest()
    assert fair.deal_key(SEED, "ABCD", 3, VALUES) == want


def test_stream_and_small_shuffle_known_answer() -> None:
    key = bytes(32)
    block0 = hmac.new(key, b"deal\x00" + bytes(8), hashlib.sha256).digest()
    block1 = hmac.new(key, b"deal\x00" + struct.pack(">Q", 1), hashlib.sha256).digest()
    words = list(struct.unpack(">16I", block0 + block1))
    got = fair.stream(key, "deal")
    assert [next(got) for _ in range(16)] == words
    # A 5-card shuffle by hand: no rejection is possible for bounds 5..2 unless u is huge.
    a = ["A", "B", "C", "D", "E"]
    it = iter(words)
    for i in range(4, 0, -1):
        b = i + 1
        u = next(it)
        while u >= 2**32 - 2**32 % b:
            u = next(it)
        a[i], a[u % b] = a[u % b], a[i]
    assert fair.shuffle(["A", "B", "C", "D", "E"], key) == a
    # A fixed vector, pinned so a change to the algorithm cannot go unnoticed.
    assert fair.shuffle(list(range(10)), key) == PINNED_TEN


PINNED_TEN = [7, 4, 1, 5, 8, 9, 0, 2, 3, 6]


def test_labels_give_independent_streams() -> None:
    key = fair.deal_key(SEED, "ABCD", 1, VALUES)
    deck = list(range(52))
    assert fair.shuffle(deck, key, "deal") != fair.shuffle(deck, key, "reshuffle:1")
    assert fair.shuffle(deck, key, "reshuffle:1") != fair.shuffle(deck, key, "reshuffle:2")


def test_shuffle_is_a_permutation_and_leaves_its_input_alone() -> None:
    deck = [f"c{i}" for i in range(52)]
    copy = list(deck)
    out = fair.shuffle(deck, b"k" * 32)
    assert deck == copy and sorted(out) == sorted(deck) and out != deck
    assert fair.shuffle([], b"k") == [] and fair.shuffle(["x"], b"k") == ["x"]


def test_shuffle_is_uniform_over_positions() -> None:
    """Chi-square of where each of 8 items lands, over 4,000 fixed keys: 49 degrees of freedom
    (each row and column sums to the count); the 99.9 % critical value is about 85.4."""
    n, runs = 8, 4000
    counts = [[0] * n for _ in range(n)]
    for r in range(runs):
        out = fair.shuffle(list(range(n)), hashlib.sha256(str(r).encode()).digest())
        for pos, item in enumerate(out):
            counts[item][pos] += 1
    expected = runs / n
    chi2 = sum((c - expected) ** 2 / expected for row in counts for c in row)
    assert chi2 < 85.4, chi2


def test_every_value_and_the_seed_change_the_deal() -> None:
    deck = list(range(52))
    base = fair.shuffle(deck, fair.deal_key(SEED, "ABCD", 1, VALUES))
    for seat in range(4):
        changed = list(VALUES)
        changed[seat] = "0123456789abcdef0123456789abcdef" if changed[seat] is None else None
        assert fair.shuffle(deck, fair.deal_key(SEED, "ABCD", 1, changed)) != base, seat
    other = bytes([SEED[0] ^ 1]) + SEED[1:]
    assert fair.shuffle(deck, fair.deal_key(other, "ABCD", 1, VALUES)) != base
    assert fair.shuffle(deck, fair.deal_key(SEED, "ABCE", 1, VALUES)) != base
    assert fair.shuffle(deck, fair.deal_key(SEED, "ABCD", 2, VALUES)) != base


def test_new_seed_is_32_bytes_from_the_injected_source() -> None:
    assert fair.new_seed(random.Random(5)) == fair.new_seed(random.Random(5))
    assert len(fair.new_seed(random.Random(5))) == 32
    assert fair.new_seed(random.Random(5)) != fair.new_seed(random.Random(6))


def test_a_key_stored_as_hex_or_bytes_reads_back() -> None:
    key = fair.deal_key(SEED, "ABCD", 1, VALUES)
    assert fair.as_key(key.hex()) == key and fair.as_key(key) == key


def test_a_registered_dealing_is_checked() -> None:
    fair.register_dealing("test-pairs", lambda rec: ["0", "1"] * (len(rec["order"]) // 2))
    rec = record()
    rec["game"] = "test-pairs"
    rec["dealt"] = ["0", "1"] * 26
    assert fair.verify(rec).ok
    rec["dealt"] = ["1", "0"] + ["0", "1"] * 25
    verdict = fair.verify(rec)
    assert not verdict.ok and "not dealt where the game deals them" in verdict.problems[0]


def test_valid_value() -> None:
    assert fair.valid_value("0" * 32) and fair.valid_value("abcdef0123456789" * 2)
    for bad in ("0" * 31, "0" * 33, "A" * 32, "g" * 32, None, 5, b"0" * 32):
        assert not fair.valid_value(bad), bad


def record(deck: list[str] | None = None) -> dict[str, object]:
    deck = deck or [f"{r}{s}" for s in "cdhs" for r in "A23456789TJQK"]
    key = fair.deal_key(SEED, "ABCD", 3, VALUES)
    order = fair.shuffle(deck, key)
    return {
        "version": 1,
        "room": "ABCD",
        "game": "free",
        "deal": 3,
        "players": [{"seat": i, "name": f"P{i}", "computer": False} for i in range(4)],
        "commitment": fair.commitment(SEED, "ABCD", 3),
        "seed": SEED.hex(),
        "values": list(VALUES),
        "deck": deck,
        "order": order,
        "dealt": ["pile"] * len(order),
    }


def test_a_good_record_verifies() -> None:
    assert fair.verify(record()) == fair.Verdict(True, [])


def test_one_changed_card_fails() -> None:
    rec = record()
    order = list(rec["order"])  # type: ignore[call-overload]
    order[0], order[1] = order[1], order[0]
    rec["order"] = order
    verdict = fair.verify(rec)
    assert not verdict.ok and "not where the seed puts them" in verdict.problems[0]
    rec = record()
    order = list(rec["order"])  # type: ignore[call-overload]
    order[5] = "XX"
    rec["order"] = order
    assert not fair.verify(rec).ok


def test_one_changed_seed_byte_fails() -> None:
    for index in (0, 31):
        rec = record()
        seed = bytearray(SEED)
        seed[index] ^= 0x01
        rec["seed"] = seed.hex()
        verdict = fair.verify(rec)
        assert not verdict.ok
        assert any("commitment" in p for p in verdict.problems)


def test_other_tampering_fails() -> None:
    cases = {
        "values": [VALUES[0], VALUES[2], None, None],
        "seed": None,
        "commitment": "0" * 64,
        "dealt": ["pile"] * 51,
        "deck": None,
        "room": "ABCE",
        "deal": 4,
        "version": 2,
    }
    for name, value in cases.items():
        rec = record()
        rec[name] = value
        assert not fair.verify(rec).ok, name
