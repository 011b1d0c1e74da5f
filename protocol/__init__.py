"""romis protocol v1: message types, card notation and framing limits. No I/O, no rules."""
from protocol.cards import JOKER, RANKS, SUITS, CardError, parse_card, parse_cards
from protocol.messages import PROTOCOL_VERSION, MAX_LINE_BYTES

__all__ = ["JOKER", "RANKS", "SUITS", "CardError", "parse_card", "parse_cards", "PROTOCOL_VERSION", "MAX_LINE_BYTES"]
