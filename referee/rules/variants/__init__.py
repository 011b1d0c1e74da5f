"""The variant registry: slug -> Game subclass."""

from referee.rules.engine import Game, did_you_mean
from referee.rules.errors import ConfigError
from referee.rules.variants.american import American
from referee.rules.variants.boathouse import Boathouse
from referee.rules.variants.carousel import Carousel
from referee.rules.variants.carpathian import Carpathian
from referee.rules.variants.classic import Classic
from referee.rules.variants.conquian import Conquian
from referee.rules.variants.continental import Continental
from referee.rules.variants.contract import Contract
from referee.rules.variants.elimination import Elimination
from referee.rules.variants.fortuna import Fortuna
from referee.rules.variants.french import French
from referee.rules.variants.gin import Gin
from referee.rules.variants.gin_three import GinThree
from referee.rules.variants.hungarian import Hungarian
from referee.rules.variants.kalukis import Kalukis
from referee.rules.variants.krambambulis import Krambambulis
from referee.rules.variants.liverpool import Liverpool
from referee.rules.variants.may_i import MayI
from referee.rules.variants.mississippi import Mississippi
from referee.rules.variants.new_oklahoma import NewOklahoma
from referee.rules.variants.oklahoma_gin import OklahomaGin
from referee.rules.variants.orija import Orija
from referee.rules.variants.panguingue import Panguingue
from referee.rules.variants.persian import Persian
from referee.rules.variants.relatives import Relatives
from referee.rules.variants.robbers import Robbers
from referee.rules.variants.rummy_bridge import RummyBridge
from referee.rules.variants.seskine import Seskine
from referee.rules.variants.stairs import Stairs
from referee.rules.variants.straight import Straight
from referee.rules.variants.tariff_bridge import TariffBridge
from referee.rules.variants.tonk import Tonk
from referee.rules.variants.trump import Trump
from referee.rules.variants.two_candles import TwoCandles
from referee.rules.variants.victoria import Victoria

VARIANTS: dict[str, type[Game]] = {
    v.slug: v
    for v in (
        Classic,
        Gin,
        GinThree,
        OklahomaGin,
        Straight,
        American,
        Tonk,
        Fortuna,
        Kalukis,
        Boathouse,
        Stairs,
        Krambambulis,
        Robbers,
        MayI,
        Contract,
        Liverpool,
        Continental,
        Persian,
        TwoCandles,
        Elimination,
        Relatives,
        Orija,
        Panguingue,
        RummyBridge,
        Seskine,
        Carousel,
        NewOklahoma,
        TariffBridge,
        French,
        Hungarian,
        Carpathian,
        Conquian,
        Trump,
        Victoria,
        Mississippi,
    )
}


def find_variant(slug: str) -> type[Game]:
    """The variant registered under `slug`; ConfigError naming the known ones otherwise."""
    try:
        return VARIANTS[slug.strip().lower()]
    except KeyError:
        raise ConfigError(f"unknown variant {slug!r}{did_you_mean(slug, VARIANTS)}") from None
