"""romis protocol v1: message types, card notation and framing limits. No I/O, no rules."""

from protocol.cards import JOKER, RANKS, SUITS, CardError, parse_card, parse_cards
from protocol.messages import MAX_LINE_BYTES, PROTOCOL_VERSION

__all__ = ["JOKER", "MAX_LINE_BYTES", "PROTOCOL_VERSION", "RANKS", "SUITS", "CardError", "parse_card", "parse_cards"]
