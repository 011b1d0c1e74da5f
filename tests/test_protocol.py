"""Protocol v1: every message round-trips through the codec; malformed input is refused."""

import json

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import messages as m
from protocol.cards import CardError, parse_card, parse_cards

cards = st.sampled_from([r + s for r in "A23456789TJQK" for s in "SHDC"] + ["JK"])
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
        st.lists(seconds, max_size=6),
        st.lists(seconds, max_size=6),
        st.none() | small,
        st.lists(card_lists, max_size=3),
    ),
    st.builds(
        m.MatchOver, st.lists(seconds, max_size=6), st.lists(small, max_size=6), st.lists(st.none() | text, max_size=6)
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
    "text,code", [("7h", "7H"), ("10d", "TD"), ("TD", "TD"), ("as", "AS"), ("jk", "JK"), (" Qc ", "QC")]
)
def test_card_notation(text, code):
    assert parse_card(text) == code


@pytest.mark.parametrize("text", ["1X", "11H", "", "H7", "ZZ", "7"])
def test_bad_cards_are_refused(text):
    with pytest.raises(CardError):
        parse_card(text)


def test_card_lists():
    assert parse_cards("7h, 8h 10h") == ["7H", "8H", "TH"]
