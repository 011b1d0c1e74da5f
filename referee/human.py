"""A terminal seat for a person: `romis play --bot human` runs `python -m referee.human --tty PATH` as the seat.

It is a bot like any other (JSON lines on stdin/stdout, so the match runner is unchanged), but it shows the
seat's view with rich and reads the plays from the keyboard. Bots run in a session of their own, with no
controlling terminal and pipes for stdin/stdout, so `romis play` passes the path of its own terminal, which
this process opens for the screen and the keyboard. An illegal play comes back as `rejected` (the seat gets
retries without end and a clock of a day, referee/play.py) and is asked again.
"""

import argparse
import json
import sys
from typing import IO, Any

import msgspec
from rich.console import Console
from rich.table import Table

from protocol import messages as m

SYNTAX = (
    "a number picks a listed option; or type a play: draw [stock|discard] [COUNT] | discard 7H | "
    "meld 7H 8H 9H [as 7H 8H 9H] | layoff MELD 9H [low|high] | take MELD 9H | exchange MELD 9H | "
    "knock [7H] | pass | claim [DEPTH] | bid VALUE; `pile=N` picks a discard pile; several ops joined by `;`; "
    'or the protocol\'s JSON list of ops, e.g. [{"op": "discard", "card": "7H"}]'
)
_EVENTS = 12  # the others' latest events shown before a decision
_SHOWN = {"seat", "players", "hand", "table", "discard", "stock", "hand_sizes", "turn", "phase", "deal", "dealer"}


class PlayError(ValueError):
    """What the person typed is not a play."""


def _int(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise PlayError(f"{what} must be a number, got {word!r}") from None


def _cards_and_identities(words: list[str]) -> tuple[list[str], list[str] | None]:
    """`7H JK 9H as 7H 8H 9H` -> the cards and what each stands for (None without `as`)."""
    if "as" not in words:
        return words, None
    k = words.index("as")
    return words[:k], words[k + 1 :]


def _op(text: str) -> m.Op:
    """One op in the short text syntax (SYNTAX)."""
    words, keys = [], {}
    for w in text.split():
        if "=" in w:
            key, _, value = w.partition("=")
            keys[key.lower()] = _int(value, key)
        else:
            words.append(w)
    if not words:
        raise PlayError(f"cannot read {text.strip()!r}")
    verb, args = words[0].lower(), words[1:]
    pile = keys.get("pile", 0)
    if verb == "draw":
        source = args.pop(0).lower() if args and args[0].lower() in ("stock", "discard") else "stock"
        if len(args) <= 1:
            depth = _int(args[0], "the depth") if args else keys.get("depth", 1)
            return m.Draw("discard" if source == "discard" else "stock", pile, depth)
    if verb == "discard" and len(args) == 1:
        return m.Discard(args[0], pile)
    if verb == "meld" and args:
        cards, ids = _cards_and_identities(args)
        return m.Meld(cards, ids)
    if verb == "layoff" and len(args) >= 2:
        end = args.pop().lower() if args[-1].lower() in ("low", "high") else None
        cards, ids = _cards_and_identities(args[1:])
        return m.LayOff(_int(args[0], "the meld"), cards, ids, end)  # type: ignore[arg-type]
    if verb == "take" and len(args) >= 2:
        return m.Take(_int(args[0], "the meld"), args[1:])
    if verb == "exchange" and len(args) == 2:
        return m.Exchange(_int(args[0], "the meld"), args[1])
    if verb == "knock" and len(args) <= 1:
        return m.Knock(args[0] if args else None)
    if verb == "pass" and not args:
        return m.Pass()
    if verb == "claim" and len(args) <= 1:
        return m.Claim(_int(args[0], "the depth") if args else 1)
    if verb == "bid" and len(args) == 1:
        return m.Bid(int(args[0]) if args[0].lstrip("-").isdigit() else args[0])
    raise PlayError(f"cannot read {text.strip()!r}")


def parse_play(text: str, options: list[m.Op] | None) -> list[m.Op]:
    """The ops of what the person typed: an option's number, a JSON list (or one op), or the text syntax."""
    text = text.strip()
    if not text:
        raise PlayError("nothing typed")
    if text.isdigit():
        k = int(text)
        if not options or not 1 <= k <= len(options):
            raise PlayError(f"no option {k}: " + (f"pick 1 to {len(options)}" if options else "none are listed"))
        return [options[k - 1]]
    if text[0] in "[{":
        try:
            data = json.loads(text)
            return msgspec.convert(data if isinstance(data, list) else [data], list[m.Op])
        except (ValueError, msgspec.ValidationError) as e:
            raise PlayError(f"not a JSON list of ops: {e}") from None
    return [_op(part) for part in text.split(";") if part.strip()]


def describe(op: m.Op) -> str:
    """An op in the text syntax, as the options list shows it."""
    d = m.to_builtins(op)
    verb = d.pop("op")
    if verb == "draw":
        text = "draw " + d.get("source", "stock") + (f" {d['depth']}" if d.get("depth", 1) != 1 else "")
    elif verb in ("meld", "layoff", "take", "exchange"):
        head = [str(d.pop("meld"))] if "meld" in d else []
        cards = d.pop("cards", None) or [d.pop("card")]
        ids = d.pop("identities", None)
        text = " ".join([verb, *head, *cards] + (["as", *ids] if ids else []) + [d.pop("end", "")]).strip()
    else:
        text = " ".join([verb, *(str(d.pop(k)) for k in ("card", "discard", "value") if k in d)])
    if d.get("depth", 1) != 1 and verb == "claim":
        text += f" {d['depth']}"
    return text + (f" pile={d['pile']}" if d.get("pile") else "")


class Screen:
    """What the seat sees and types, on the terminal at `tty` (the keyboard and screen of one person)."""

    def __init__(self, keyboard: IO[str], console: Console):
        self.keyboard, self.console = keyboard, console
        self.seat = 0
        self.rejected = False  # the next request asks the same decision again: no need to draw the table again

    def hello(self, hello: m.Hello) -> None:
        self.seat = hello.seat
        self.console.rule(f"[bold]{hello.variant}[/]: you are seat {hello.seat} of {hello.players}")
        self.console.print(f"Rules: romis rules {hello.variant}. Plays: {SYNTAX}", markup=False)

    def show_view(self, view: dict[str, Any], events: list[dict[str, Any]]) -> None:
        """The seat's view: the others' latest plays, per-seat figures, the table, the piles, the other facts,
        then the hand."""
        c = self.console
        players = view.get("players", 0)
        turn = view.get("turn")
        c.rule(f"deal {view.get('deal', 0) + 1}, dealer seat {view.get('dealer')}, seat {turn} to play")
        self.show_events(events)
        seats = Table(box=None, pad_edge=False)
        cols = ["seat", "cards"] + [k for k, v in view.items() if k not in _SHOWN and _is_per_seat(v, players)]
        for col in cols:
            seats.add_column(col, justify="right")
        for i in range(players):
            mark = ("you " if i == self.seat else "") + ("> " if i == turn else "")
            row = [f"{mark}{i}", str((view.get("hand_sizes") or [""] * players)[i])]
            seats.add_row(*row, *(_short(view[k][i]) for k in cols[2:]))
        c.print(seats)
        for meld in view.get("table") or []:
            shown = _cards(meld.get("cards", []))
            ids = meld.get("identities")
            stands = f" (as {_cards(ids)})" if ids and ids != meld.get("cards") else ""
            c.print(f"  meld {meld.get('id')} of seat {meld.get('owner')} {meld.get('kind', '')}: {shown}{stands}")
        pile = view.get("discard")
        if isinstance(pile, list):
            top = pile[-1] if pile and isinstance(pile[-1], str) else None
            c.print(
                f"discard pile ({len(pile)}): top [bold]{top or '-'}[/]  {_cards(pile[-8:])}; stock {view.get('stock')}"
            )
        extra = {k: v for k, v in view.items() if k not in _SHOWN and k not in cols and v not in (None, [], {})}
        if extra:
            c.print("  ".join(f"{k}: {_short(v)}" for k, v in extra.items()), markup=False)
        c.print(f"[bold]your hand[/] ({len(view.get('hand', []))}): {_cards(view.get('hand', []))}")

    def show_events(self, events: list[dict[str, Any]]) -> None:
        """What the others did since this seat's last decision (the last few), one line each."""
        lines = [_event(e) for e in events if e.get("seat") != self.seat and e.get("type") != "deal_over"]
        for line in lines[-_EVENTS:]:
            self.console.print(f"  {line}", markup=False, style="dim")

    def show_decision(self, decision: m.Decision) -> None:
        c = self.console
        phase = f", phase {decision.phase}" if decision.phase else ""
        c.print(f"[bold]decision: {decision.kind}{phase}[/]", highlight=False)
        if decision.constraints:
            c.print("  " + ", ".join(f"{k} {_short(v)}" for k, v in decision.constraints.items()), markup=False)
        for k, op in enumerate(decision.options or [], 1):
            c.print(f"  {k:>2}. {describe(op)}", highlight=False)

    def ask(self, request: m.Request) -> list[m.Op]:
        """Show the request (the view only when it is new) and read a play until one parses."""
        if not self.rejected:
            self.show_view(request.view, request.events)
        self.show_decision(request.decision)
        self.rejected = False
        while True:
            self.console.print("your play> ", end="")
            line = self.keyboard.readline()
            if not line:
                raise EOFError
            if line.strip() == "?":
                self.console.print(SYNTAX, markup=False)
                continue
            try:
                return parse_play(line, request.decision.options)
            except PlayError as e:
                self.console.print(f"[red]error[/]: {e}. Type `?` for the syntax.", highlight=False)

    def show_rejected(self, msg: m.Rejected) -> None:
        self.rejected = True
        self.console.print(f"[red]illegal play[/] ({msg.rule}): {msg.message}. Try again.", highlight=False)


def _cards(cards: list[str]) -> str:
    """Cards with their suits coloured (hearts and diamonds red)."""
    return " ".join(f"[red]{c}[/]" if c[-1:] in "HD" else c for c in cards)


def _event(event: dict[str, Any]) -> str:
    """A public event in a line: `seat 1 discard card=7H`."""
    facts = {k: v for k, v in event.items() if k not in ("type", "seat")}
    who = f"seat {event['seat']} " if "seat" in event else ""
    text = who + str(event.get("type", "?")) + "".join(f" {k}={_short(v)}" for k, v in facts.items())
    return text if len(text) <= 100 else text[:97] + "..."


def _is_per_seat(value: Any, players: int) -> bool:
    """A figure per seat (scores, chips, who has opened): a list of numbers or flags, one per seat."""
    return isinstance(value, list) and len(value) == players and all(type(x) in (int, float, bool) for x in value)


def _short(value: Any) -> str:
    """A view fact in at most 60 characters; a named thing (a contract) by its name."""
    if isinstance(value, dict) and "name" in value:
        return str(value["name"])
    if isinstance(value, list) and value and all(isinstance(x, dict) and "name" in x for x in value):
        return ", ".join(str(x["name"]) for x in value)
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def serve(screen: Screen, inp: IO[bytes], out: IO[bytes]) -> None:
    """The read-decide-write loop of the seat: protocol lines on `inp`/`out`, the person on `screen`."""
    for line in inp:
        msg = m.decode_to_bot(line)
        reply: msgspec.Struct | None = None
        match msg:
            case m.Hello():
                screen.hello(msg)
                reply = m.Ready(name="human")
            case m.Request():
                reply = m.Play(msg.id, screen.ask(msg))
            case m.Rejected():
                screen.show_rejected(msg)
            case m.DealOver() | m.MatchOver():
                pass  # romis play shows each deal's end itself: the seat is killed right after the last one
            case m.Shutdown():
                if msg.reason != "match over":
                    screen.console.print(f"[red]{msg.reason}[/]", highlight=False)
                return
        if reply is not None:
            out.write(m.encode(reply))
            out.flush()


def main(argv: list[str] | None = None) -> int:
    """Run the seat on the terminal named by --tty."""
    parser = argparse.ArgumentParser(prog="python -m referee.human", description=__doc__)
    parser.add_argument("--tty", required=True, help="the terminal of the person playing (e.g. /dev/pts/3)")
    args = parser.parse_args(argv)
    with open(args.tty, encoding="utf-8") as keyboard, open(args.tty, "w", encoding="utf-8") as screen:
        console = Console(file=screen, force_terminal=True, highlight=False)
        try:
            serve(Screen(keyboard, console), sys.stdin.buffer, sys.stdout.buffer)
        except EOFError:  # Ctrl-D: the person left; the referee's fallback plays the seat from here
            console.print("you left the table: the referee plays your seat from here")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
