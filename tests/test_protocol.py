"""Protocol v1: every message round-trips through the codec; malformed input is refused."""

import json
from contextlib import suppress
from itertools import product

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import messages as m
from protocol.cards import CardError, parse_card, parse_cards
from referee.rules.variants import VARIANTS

CODES = [r + s for r in "A23456789TJQK" for s in "SHDC"] + ["JK"]
cards = st.sampled_from(CODES)
card_lists = st.lists(cards, max_size=8)
small = st.integers(min_value=0, max_value=10_000)
text = st.text(max_size=20)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
ops = st.one_of(
    st.builds(m.Draw, st.sampled_from(["stock", "discard"]), small, small),
    st.builds(m.Meld, card_lists, st.none() | card_lists, st.sampled_from([None, "set", "run"])),
    st.builds(m.LayOff, small, card_lists, st.none() | card_lists, st.sampled_from([None, "low", "high"])),
    st.builds(m.Take, small, card_lists),
    st.builds(m.Rearrange, st.lists(small, max_size=3), st.lists(st.builds(m.Meld, card_lists), max_size=3)),
    st.builds(m.Exchange, small, cards),
    st.builds(m.Discard, cards, small),
    st.builds(m.Knock, st.none() | cards),
    st.builds(m.Pass),
    st.builds(m.Claim, small),
    st.builds(m.Bid, small | text),
)
seconds = st.floats(0, 100, allow_nan=False)
points = st.integers(-100_000, 100_000)
decisions = st.builds(
    m.Decision, text, text, st.none() | st.lists(ops, max_size=4), st.dictionaries(text, json_values, max_size=3)
)
to_bot = st.one_of(
    st.builds(
        m.Hello,
        small,
        text,
        small,
        small,
        small,
        st.dictionaries(text, json_values, max_size=3),
        st.builds(m.Limits, seconds, seconds, seconds),
        st.none() | small,
    ),
    st.builds(
        m.Request,
        small,
        decisions,
        st.dictionaries(text, json_values, max_size=4),
        st.lists(st.dictionaries(text, json_values, max_size=3), max_size=3),
        st.builds(m.Clock, seconds, seconds),
    ),
    st.builds(m.Rejected, small, text, text, small),
    st.builds(
        m.DealOver,
        small,
        st.lists(points, max_size=6),
        st.lists(points, max_size=6),
        st.none() | small,
        st.lists(card_lists, max_size=3),
    ),
    st.builds(
        m.MatchOver, st.lists(points, max_size=6), st.lists(small, max_size=6), st.lists(st.none() | text, max_size=6)
    ),
    st.builds(m.Shutdown, text),
)
from_bot = st.one_of(st.builds(m.Ready, text, text, small), st.builds(m.Play, small, st.lists(ops, max_size=5)))


@given(to_bot)
def test_referee_messages_round_trip(msg):
    line = m.encode(msg)
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    assert m.decode_to_bot(line) == msg


@given(from_bot)
def test_bot_messages_round_trip(msg):
    assert m.decode_from_bot(m.encode(msg)) == msg


def test_unknown_fields_from_bots_are_refused_inside_ops_but_not_on_the_envelope():
    ok = m.decode_from_bot(b'{"type":"play","id":1,"ops":[{"op":"draw"}],"note":"hi"}')
    assert ok.ops == [m.Draw()]
    with pytest.raises(msgspec.ValidationError):
        m.decode_from_bot(b'{"type":"play","id":1,"ops":[{"op":"draw","sauce":1}]}')


@pytest.mark.parametrize("line", [b"{", b'{"type":"banana"}', b'{"type":"play","id":"x","ops":[]}', b"[]"])
def test_malformed_lines_raise(line):
    with pytest.raises((msgspec.DecodeError, msgspec.ValidationError)):
        m.decode_from_bot(line)


def test_schema_covers_every_message():
    schema = json.dumps(m.json_schema())
    for name in (
        "Hello",
        "Request",
        "Rejected",
        "DealOver",
        "MatchOver",
        "Shutdown",
        "Ready",
        "Play",
        "Draw",
        "Meld",
        "LayOff",
        "Take",
        "Rearrange",
        "Exchange",
        "Discard",
        "Knock",
        "Pass",
        "Claim",
        "Bid",
    ):
        assert f'"{name}"' in schema


@pytest.mark.parametrize(
    "text,code",
    [("7h", "7H"), ("7H", "7H"), ("10d", "TD"), ("10D", "TD"), ("TD", "TD"), ("td", "TD"), ("tD", "TD")]
    + [("as", "AS"), ("Qc", "QC"), ("jk", "JK"), ("Jk", "JK"), ("JK", "JK")],
)
def test_card_notation(text, code):
    assert parse_card(text) == code


@pytest.mark.parametrize(
    "text",
    ["1S", "1X", "11H", "01H", "10", "", "H7", "ZZ", "7", "JKR", "JOKER", "KJ"]
    + [" QC", "QC ", "\t7H", "7H\n", "10 H", "7\u017f", "\uff17H", "7H7H"],  # padding; long s; full-width 7
)
def test_bad_cards_are_refused(text):
    with pytest.raises(CardError, match="not a card"):
        parse_card(text)


def test_parse_card_accepts_exactly_the_documented_spellings():
    """docs/protocol.md, Cards: a rank (or 10 for T) then a suit, each in either case, or JK; nothing else."""
    ranks = list("A23456789TJQK") + ["10"]
    documented = {r + s for r in ranks + [r.lower() for r in ranks] for s in "SHDCshdc"} | {"JK", "Jk", "jK", "jk"}
    alphabet = sorted(set("".join(documented)) | set(" \t\u017f\uff11x"))
    accepted = set()
    for size in (1, 2, 3):
        for text in map("".join, product(alphabet, repeat=size)):
            with suppress(CardError):
                assert parse_card(text) in CODES
                accepted.add(text)
    assert accepted == documented
    assert parse_card("10s") == parse_card("Ts") == "TS"


def test_card_lists():
    assert parse_cards("7h, 8h 10h") == ["7H", "8H", "TH"]
    assert parse_cards("\t7h,8h ,  jk\n") == ["7H", "8H", "JK"]
    with pytest.raises(CardError):
        parse_cards("7h 1s")


def test_a_card_the_notation_refuses_is_an_illegal_play():
    from referee.rules.errors import IllegalAction
    from referee.rules.variants import find_variant

    game = find_variant("classic")(2, {}, 1)
    seat = game.to_act()[0]
    card = game.hands[seat][0]
    for text in (card + " ", "\t" + card.lower()):
        with pytest.raises(IllegalAction) as refused:
            game.apply(seat, [m.Draw(), m.Discard(text)])
        assert refused.value.rule == "card.invalid"
    game.apply(seat, [m.Draw(), m.Discard(card.lower())])


# --- the messages a real match sends -----------------------------------------------------------------
SECONDS = {("hello", "limits"), ("request", "clock")}  # the only places where a number may be a float


def numbers(value, path=()):
    """(path, number) for every number inside a decoded JSON value."""
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in numbers(v, (*path, k))]
    if isinstance(value, list):
        return [x for v in value for x in numbers(v, path)]
    return [(path, value)] if isinstance(value, int | float) and not isinstance(value, bool) else []


def conversation(slug: str) -> list[list[dict]]:
    """Every line the referee sent to each bot, decoded, in a 2-deal match of `slug` (real subprocess bots)."""
    import os
    from collections import defaultdict
    from pathlib import Path

    from referee.play import play_match
    from referee.process.runner import BotProcess

    sent: dict[int, bytearray] = defaultdict(bytearray)  # by bot: the bytes written to it, in order
    original, original_nowait = BotProcess.send, BotProcess.send_nowait

    async def spy(self, data):
        sent[self.pid] += data
        await original(self, data)

    def spy_nowait(self, data):  # a request is written without waiting (the rest, if any, by send)
        written = original_nowait(self, data)
        sent[self.pid] += data[:written]
        return written

    cwd = os.getcwd()
    os.chdir(Path(__file__).resolve().parent.parent)  # the bots run as `python -m sample_bots.random`
    BotProcess.send, BotProcess.send_nowait = spy, spy_nowait
    try:
        play_match(slug, ["python -m sample_bots.random"] * VARIANTS[slug].min_players, 0, {"max_deals": 2}, None)
    finally:
        BotProcess.send, BotProcess.send_nowait = original, original_nowait
        os.chdir(cwd)
    return [[json.loads(line) for line in data.splitlines()] for data in sent.values()]


@pytest.mark.e2e
@pytest.mark.parametrize("slug", sorted(VARIANTS))  # one match per variant, spread over the test workers
def test_every_number_keeps_one_type_through_the_match_and_deal_over_events_match_their_messages(slug):
    bots = conversation(slug)
    for lines in bots:
        found = [(msg["type"], path, x) for msg in lines for path, x in numbers(msg)]
        assert any(kind == "deal_over" for kind, _, _ in found), slug
        floats = [(k, p, x) for k, p, x in found if isinstance(x, float) and (k, *p[:1]) not in SECONDS]
        assert floats == [], f"{slug}: floats among the integers"
        assert all(isinstance(x, float) for k, p, x in found if (k, *p[:1]) in SECONDS), slug
    seen = False
    for lines in bots:  # the deal_over event carries the fields of the deal_over message
        messages = [msg for msg in lines if msg["type"] == "deal_over"]
        events = [e for msg in lines if msg["type"] == "request" for e in msg["events"] if e["type"] == "deal_over"]
        assert events == messages[: len(events)], slug
        seen = seen or bool(events)
    # a bot may get no request after the first deal (liverpool: both deals won on their first turn)
    assert seen, slug


def test_an_op_has_one_encoding_however_it_was_made():
    """A default field is left out whether the op was built, decoded from a bot's line or copied by pickle (msgspec
    leaves a default out only when it is the very same object)."""
    import pickle

    from protocol import messages as m

    built = m.Draw(source="".join(["st", "ock"]))
    decoded = m.decode_from_bot(b'{"type": "play", "id": 1, "ops": [{"op": "draw", "source": "stock"}]}').ops[0]
    copied = pickle.loads(pickle.dumps(m.Draw()))
    assert [m.to_builtins(op) for op in (built, decoded, copied)] == [{"op": "draw"}] * 3


def test_every_op_with_a_text_default_rebinds_it_and_ops_are_frozen_values():
    """Only ops deriving from _TextDefaults get the __post_init__ that keeps one encoding, so an op type that gains
    a text default without it would encode a decoded default; and an op is a value the engine shares between
    decisions, so changing one in place is refused."""
    from protocol import messages as m

    for cls in m.Op.__args__:  # type: ignore[attr-defined]
        assert bool(m.text_defaults(cls)) == issubclass(cls, m._TextDefaults), cls.__name__
    op = m.Discard("7H")
    with pytest.raises(AttributeError):
        op.card = "8H"  # type: ignore[misc]
    assert hash(op) == hash(m.Discard("7H"))
