"""The variant registry: slug -> Game subclass."""
from referee.engine import Game
from referee.errors import ConfigError
from referee.variants.classic import Classic
from referee.variants.boathouse import Boathouse
from referee.variants.stairs import Stairs
from referee.variants.fortuna import Fortuna
from referee.variants.kalukis import Kalukis
from referee.variants.gin import Gin
from referee.variants.gin_three import GinThree
from referee.variants.oklahoma_gin import OklahomaGin
from referee.variants.straight import Straight
from referee.variants.american import American
from referee.variants.tonk import Tonk
from referee.variants.krambambulis import Krambambulis
from referee.variants.robbers import Robbers

VARIANTS: dict[str, type[Game]] = {v.slug: v for v in (Classic, Gin, GinThree, OklahomaGin, Straight, American, Tonk, Fortuna, Kalukis, Boathouse, Stairs, Krambambulis, Robbers)}


def find_variant(slug: str) -> type[Game]:
    """The variant registered under `slug`; ConfigError naming the known ones otherwise."""
    try:
        return VARIANTS[slug.strip().lower()]
    except KeyError:
        raise ConfigError(f"unknown variant {slug!r}; known: {', '.join(sorted(VARIANTS))}") from None
