"""How many examples the slow Hypothesis tests run: a fraction in `make test`, the full count under
`pytest --hypothesis-profile full` (`make fuzz` runs every property test that way)."""

from hypothesis import settings

FULL = "full"
settings.register_profile(FULL)  # Hypothesis's defaults; only `examples()` below tells the two apart


def examples(full: int, quick: int) -> int:
    """`full` under the full profile, else `quick`: enough to catch a regression in a routine run, while the
    full count (and every routine run drawing new examples) keeps the search wide."""
    return full if settings.get_current_profile_name() == FULL else quick
