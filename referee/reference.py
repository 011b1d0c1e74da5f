"""The project's reference documents: the rules files (docs/rules/)."""

from pathlib import Path

from referee.rules.errors import ConfigError
from referee.rules.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
RULES_DIR = ROOT / "docs" / "rules"
GENERAL = "general"  # `romis rules general` shows _general.md, the conventions every variant file relies on


# --- the rules files --------------------------------------------------------------------------------------------
def rules_slugs() -> list[str]:
    """Every name `romis rules` knows: the registered variants and the variant files in docs/rules/."""
    files = {p.stem for p in RULES_DIR.glob("*.md") if p.name != "README.md" and not p.name.startswith("_")}
    return sorted(files | set(VARIANTS))


def rules_file(name: str | None) -> Path:
    """The rules file of variant `name` (None: the index; `general`: the shared conventions), which may be
    missing from an installation without the docs; ConfigError for a name that is no variant."""
    if name is None:
        return RULES_DIR / "README.md"
    slug = name.strip().lower()
    if slug in (GENERAL, "_general"):
        return RULES_DIR / "_general.md"
    if slug not in rules_slugs():
        known = ", ".join([*rules_slugs(), GENERAL])
        raise ConfigError(f"unknown variant {name!r}; rules exist for: {known}")
    return RULES_DIR / f"{slug}.md"
