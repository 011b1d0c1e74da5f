"""Oklahoma Gin (Oklahomos džinas): rules/oklahoma-gin.md."""

from typing import Any

from referee.rules.cards import rank
from referee.rules.describe import Field
from referee.rules.engine import Option
from referee.rules.variants.gin import Gin

COLUMNS = 3


class OklahomaGin(Gin):
    """Oklahomos džinas: Gin whose knock limit is set by the starter card, scored in three Hollywood columns
    until every column has reached 100."""

    slug = "oklahoma-gin"
    name = "Oklahoma Gin"
    local_name = "Oklahomos džinas"
    OPTIONS = {
        "target": Option(100, help="a column closes when a player's total in it reaches this"),
        "ace_starter_requires_all": Option(False, help="an ace starter allows no knock with deadwood: only Oklahoma"),
        "column_bonus": Option(0, help="added to the player whose total closes a column"),
    }
    VIEW = {
        "starter": Field("card", "this deal's starter card, which sets the knock limit"),
        "knock_limit": Field("int", "this deal's knock limit (inclusive, as in the constraints)"),
        "columns": Field("number[][]", "the score sheet: columns[c][seat] is the seat's total in Hollywood column c"),
        "closed_columns": Field("bool[]", "whether each column has closed (the match ends when all have)"),
        "wins": Field("int[]", "deals won by each seat (the columns a win is entered in)"),
    }

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        # the score sheet (Scoring): sheet[c][seat] is the seat's total in column c; rebound, never mutated
        self.sheet: tuple[tuple[float, ...], ...] = ((0, 0),) * COLUMNS
        self.closed: tuple[bool, ...] = (False,) * COLUMNS
        self.wins: tuple[int, ...] = (0, 0)
        super().__init__(players, options, seed)

    def start_deal(self) -> None:
        super().start_deal()
        self.starter_card = self.piles[0][-1]

    def limit(self) -> int:
        """The knock limit set by the starter (Turn structure; Ambiguities 1, 2, 12)."""
        r = rank(self.starter_card)
        if r == 1:
            return 0 if self.opts["ace_starter_requires_all"] else 1
        return min(r, 10)

    def deal_points(self, finisher: int) -> list[float]:
        """Gin's points without the 25 for a plain knock win and without minus entries (Scoring; Ambiguities 3, 4)."""
        points = [max(0, p) for p in super().deal_points(finisher)]
        assert self.finish is not None  # set by the knock or the gin being scored
        if self.finish["kind"] == "knock" and points[finisher]:
            points[finisher] -= self.bonus
        return points

    def score_deal(self, finisher: int | None) -> list[float]:
        """A deal's score is what it adds to the sum of the seat's column totals."""
        return [0] * self.n if finisher is None else self.enter(self.deal_points(finisher))

    def enter(self, points: list[float]) -> list[float]:
        """Enter the deal winner's points on the sheet (Scoring: Hollywood columns); return what each seat gained."""
        won = next(s for s, p in enumerate(points) if p > 0)
        wins = self.wins[won] + 1
        opened = [c for c in range(COLUMNS) if not self.closed[c]]
        columns = [c for c in opened if c < wins] or opened[:1]  # Scoring; Ambiguity 7
        sheet, closed = [list(col) for col in self.sheet], list(self.closed)
        for c in columns:
            sheet[c][won] += points[won]
            if sheet[c][won] >= self.opts["target"]:  # the column closes; its bonus (Ambiguity 11)
                sheet[c][won] += self.opts["column_bonus"]
                closed[c] = True
        gained = sum(sheet[c][won] - self.sheet[c][won] for c in columns)
        self.sheet, self.closed = tuple(map(tuple, sheet)), tuple(closed)
        self.wins = tuple(w + (s == won) for s, w in enumerate(self.wins))
        assert self.finish is not None  # set by the knock or the gin being scored
        self.finish = {**self.finish, "points": points, "columns": [list(col) for col in self.sheet]}
        return [gained if s == won else 0 for s in range(self.n)]

    def match_ended(self) -> bool:
        """Every column has closed (End of the match); the totals are the sums of the column totals."""
        return all(self.closed)

    def view(self, seat: int) -> dict[str, Any]:
        """Gin's view plus the starter, the knock limit and the public score sheet (Ambiguity 10)."""
        return {
            **super().view(seat),
            "starter": self.starter_card,
            "knock_limit": self.limit(),
            "columns": [list(col) for col in self.sheet],
            "closed_columns": list(self.closed),
            "wins": list(self.wins),
        }
