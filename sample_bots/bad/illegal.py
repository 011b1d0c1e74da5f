"""Plays legally for three requests, then discards a well-formed card that is not in its hand."""

from sample_bots.bad._base import play, serve

CODES = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]


def answer(request, n):
    if n <= 3:
        return play(request)
    hand = set(request.get("view", {}).get("hand", []))
    card = next(code for code in CODES if code not in hand)
    return {"type": "play", "id": request["id"], "ops": [{"op": "discard", "card": card}]}


serve("illegal", answer)
