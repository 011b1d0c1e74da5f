"""Tournament configuration: a TOML file (docs/tournaments.md) with command-line flags on top.

A configuration names one variant, or (an event) several: `variants = [...]`, each part a single-variant
tournament of its own (`Config.parts()`) over the same entrants, deal sets, limits and schedule."""

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.process.sandbox import Box
from referee.rules.engine import derive_seed, did_you_mean
from referee.rules.errors import ConfigError
from referee.rules.variants import VARIANTS, find_variant
from tournaments import schedule

LIMIT_DEFAULTS = {"move_time": 2.0, "bank": 30.0, "startup_time": 10.0}
# Clock settings may sit under [limits] or at the top level; kept in `limits` only when not the default, so
# the fingerprint of a tournament that never names them is what it was before they existed.
CLOCK_DEFAULTS: dict[str, Any] = {"clock": "wall", "pause_idle": False}
TLS_KEYS = ("tls_ca_file", "tls_cert", "tls_key")  # a tls:// scheduler's CA, and the client's certificate and key
KNOWN = {
    "variant",
    "seats",
    "deal_sets",
    "concurrency",
    "seed",
    "db",
    "records",
    "schedule",
    "candidate",
    "options",
    "limits",
    "retries",
    "entrants",
    "sign_key",
    "no_network",
    "sandbox",
    "partnerships",
    "variants",
    "executor",
    "scheduler",
    *TLS_KEYS,
    "insecure_scheduler",
    *CLOCK_DEFAULTS,
}
EXECUTORS = ("local", "dask")
# What each part of an event sets for itself (and a single-variant configuration at the top level).
PART_KEYS = ("variant", "seats", "options", "partnerships")
PARTNERSHIPS = ("fixed", "mixed")  # a team variant's default is the first


@dataclass
class Config:
    """Everything a tournament run needs; `fingerprint()` is what must not change on resume."""

    entrants: dict[str, str]  # name -> command, in the order given
    variant: str = "classic"
    seats: int | None = None  # None: the variant's minimum player count
    deal_sets: int = 2
    concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    seed: int = 0  # load() draws a secret one when none is given, or takes the results database's on a resume
    db: str = "romis-results.db"
    records: str | None = None
    schedule: str = "round-robin"  # or "gauntlet"
    candidate: str | None = None  # the gauntlet's candidate
    options: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=lambda: dict(LIMIT_DEFAULTS))  # and the clock settings
    retries: int = 0
    sign_key: str | None = None  # key file signing every record; not in the fingerprint: it decides no result
    no_network: bool = False  # the default now (every bot has only a loopback of its own); kept for old files
    sandbox: str | None = None  # bwrap or none (None: $ROMIS_SANDBOX, else bwrap); load() resolves it
    boxes: dict[str, Box] = field(default_factory=dict)  # entrant -> its sandbox settings, where not the default
    partnerships: str | None = None  # a team variant's: "fixed" (the default) or "mixed"; None without teams
    variants: list[dict[str, Any]] | None = None  # an event's parts (PART_KEYS each, checked); None: one variant
    # where the games run, not what they give, so neither is in the fingerprint: a run may resume on a cluster
    executor: str = "local"  # or "dask" (tournaments/cluster.py)
    scheduler: str | None = None  # the Dask scheduler's address; None: a LocalCluster of `concurrency` workers
    tls_ca_file: str | None = None  # with a tls:// scheduler: the files of TLS_KEYS (paths, checked)
    tls_cert: str | None = None
    tls_key: str | None = None
    insecure_scheduler: bool = False  # a scheduler that is not tls:// is refused unless this says so

    def fingerprint(self) -> dict[str, Any]:
        """The settings that decide the games and their results (not where or how fast they run); an event's
        names every part (variant, seats, options, partnerships) with the seed derived for it."""
        shared = {
            "entrants": self.entrants,
            "deal_sets": self.deal_sets,
            "seed": self.seed,
            "schedule": self.schedule,
            "candidate": self.candidate,
            "limits": self.limits,
            "retries": self.retries,
            # only when set: the fingerprints of tournaments begun before the setting existed stay the same
            **({"no_network": True} if self.no_network else {}),
            **({"sandbox": {n: box_settings(b) for n, b in self.boxes.items()}} if self.boxes else {}),
        }
        if self.variants is not None:
            return {**shared, "variants": [{**p._part(), "seed": p.seed} for p in self.parts()]}
        return {**shared, **self._part()}

    def _part(self) -> dict[str, Any]:
        """What one variant's part of the fingerprint says: the variant, its seats, options and partnerships."""
        return {
            "variant": self.variant,
            "seats": self.seats,
            "options": self.options,
            # a team variant's: with the seats of each team, so that the database alone can be reported
            **({"partnerships": self.partnerships, "teams": [list(t) for t in self.teams()]} if self.teams() else {}),
        }

    def scheduler_tls(self) -> tuple[str, str, str] | None:
        """The CA, certificate and key files of a tls:// scheduler; None without one (a local cluster makes its
        own certificate)."""
        if self.tls_ca_file and self.tls_cert and self.tls_key:
            return self.tls_ca_file, self.tls_cert, self.tls_key
        return None

    def parts(self) -> list["Config"]:
        """The single-variant tournaments this configuration plays: itself, or each part of an event, on decks
        of its own (its seed derives from the master seed and its slug)."""
        if self.variants is None:
            return [self]
        return [
            dataclasses.replace(self, variants=None, seed=part_seed(self.seed, p["variant"]), **p)
            for p in self.variants
        ]

    def part_teams(self) -> dict[str, tuple[tuple[int, ...], ...]]:
        """The partnerships of each part's variant by the part's slug (`spec.part_of` of its game keys)."""
        if self.variants is None:
            return {"": self.teams()}
        return {p.variant: p.teams() for p in self.parts()}

    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each partnership of the variant (empty without partnerships)."""
        return find_variant(self.variant).teams

    def tables(self) -> list[tuple[str, ...]]:
        """The tables of the schedule."""
        names, seats = list(self.entrants), self.seats or find_variant(self.variant).min_players
        if self.teams():
            return self._team_tables(names)
        if self.schedule == "gauntlet":
            assert self.candidate is not None, "load() checks that a gauntlet names its candidate"
            return schedule.gauntlet(self.candidate, names, seats)
        return schedule.round_robin(names, seats)

    def _team_tables(self, names: list[str]) -> list[tuple[str, ...]]:
        """A team variant's tables (seatings): one entrant per partnership, or every split into partnerships;
        a gauntlet keeps those with the candidate."""
        make = schedule.mixed_partnerships if self.partnerships == "mixed" else schedule.fixed_partnerships
        tables = make(names, self.teams())
        return [t for t in tables if self.candidate in t] if self.schedule == "gauntlet" else tables


def part_seed(master: int, slug: str) -> int:
    """The master seed of an event's part: the same for the same event and variant, different between variants."""
    return derive_seed(master, "variant", slug) % 2**62


def load(path: str | Path | None, overrides: dict[str, Any]) -> Config:
    """The configuration of `path` (if any) with the non-None `overrides` applied, checked."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise ConfigError(f"cannot read {path}: {e.strerror}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: not valid TOML ({e})") from None
        unknown = sorted(set(data) - KNOWN)
        if unknown:
            raise ConfigError(f"{path}: unknown setting {unknown[0]!r}{did_you_mean(unknown[0], KNOWN)}")
    data["entrants"], data["boxes"] = _entrants(data.get("entrants", []), path)
    for key, value in overrides.items():
        if value is not None:
            if "variants" in data and key in PART_KEYS:
                raise ConfigError(f"--{key} is for a single-variant configuration; {path} lists variants = [...]")
            data[key] = value
    if "variants" in data:
        data["variants"] = _variants(data, path)
    limits: dict[str, Any] = dict(LIMIT_DEFAULTS)
    limits.update(data.pop("limits", {}) or {})
    for key in CLOCK_DEFAULTS:
        if key in data:
            limits[key] = data.pop(key)
        if key in limits and limits[key] == CLOCK_DEFAULTS[key] and type(limits[key]) is type(CLOCK_DEFAULTS[key]):
            del limits[key]
    seeded = data.get("seed") is not None
    try:
        cfg = Config(limits=limits, **data)
    except TypeError as e:
        raise ConfigError(f"bad configuration: {e}") from None
    _check_types(cfg)
    if not seeded:  # a seed no entrant can guess (docs/security.md), the database's own on a resume
        from referee.play import secret_seed
        from tournaments.store import stored_seed

        cfg.seed = stored_seed(cfg.db) or secret_seed()
    return _check(cfg)


ENTRANT_KEYS = ("name", "command", "network", "writable", "paths")


def _entrants(items: Any, path: Any) -> tuple[dict[str, str], dict[str, Box]]:
    """The entrants' commands by name, and the sandbox settings of those that have any (`network`, `writable`,
    `paths`: docs/security.md)."""
    if not isinstance(items, list) or not all(isinstance(e, dict) for e in items):
        raise ConfigError(f"{path}: entrants must be a list of tables with name and command ([[entrants]])")
    out, boxes = {}, {}
    for e in items:
        name, command = e.get("name"), e.get("command")
        if not isinstance(name, str) or not isinstance(command, str) or not name or not command:
            raise ConfigError(f"{path}: every entrant needs a name and a command")
        if name in out:
            raise ConfigError(f"{path}: entrant {name!r} appears twice")
        unknown = sorted(set(e) - set(ENTRANT_KEYS))
        if unknown:
            raise ConfigError(
                f"{path}: entrant {name!r}: unknown setting {unknown[0]!r}{did_you_mean(unknown[0], ENTRANT_KEYS)}"
            )
        out[name] = command
        box = _box(e, f"{path}: entrant {name!r}", Path(path).parent if path is not None else Path())
        if box != Box():
            boxes[name] = box
    return out, boxes


def _box(entrant: dict[str, Any], where: str, base: Path) -> Box:
    """An entrant's sandbox settings; relative paths are taken from the configuration file's folder."""
    for key in ("network", "writable"):
        if not isinstance(entrant.get(key, False), bool):
            raise ConfigError(f"{where}: {key} must be true or false, got {entrant[key]!r}")
    paths = entrant.get("paths", [])
    if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
        raise ConfigError(f'{where}: paths must be a list of paths the bot may read, e.g. paths = ["data"]')
    full = tuple(os.path.abspath(base / p) for p in paths)
    for p in full:
        if not os.path.exists(p):
            raise ConfigError(f"{where}: paths: {p} does not exist")
    return Box(network=entrant.get("network", False), writable=entrant.get("writable", False), paths=full)


def box_settings(box: Box) -> dict[str, Any]:
    """An entrant's sandbox settings as the fingerprint and the reports keep them (only those not the default)."""
    out: dict[str, Any] = {}
    if box.network:
        out["network"] = True
    if box.writable:
        out["writable"] = True
    if box.paths:
        out["paths"] = list(box.paths)
    return out


def _variants(data: dict[str, Any], path: Any) -> list[dict[str, Any]]:
    """An event's parts as given (a slug, or a table of PART_KEYS each), exclusive with the single variant's
    settings; each part is checked with the rest of the configuration (`_check`)."""
    both = [k for k in PART_KEYS if k in data]
    if both:
        raise ConfigError(
            f"{path}: {both[0]} and variants are exclusive: name one variant (variant, seats, options, partnerships) "
            f"or several (variants = [...], each entry with its own {both[0]}), not both"
        )
    items = _all_variants(len(data["entrants"])) if data["variants"] == "all" else data["variants"]
    if not isinstance(items, list) or not items:
        raise ConfigError(
            f'{path}: variants must be "all" or a list of variant slugs or tables, e.g. variants = ["gin", "tonk"]'
        )
    parts = []
    for i, item in enumerate(items, 1):
        part = {"variant": item} if isinstance(item, str) else item
        if not isinstance(part, dict) or not isinstance(part.get("variant"), str):
            raise ConfigError(f"{path}: variants entry {i} must be a slug or a table with variant = SLUG")
        unknown = sorted(set(part) - set(PART_KEYS))
        if unknown:
            where = f"variants entry {i} ({part['variant']})"
            raise ConfigError(f"{path}: {where}: unknown setting {unknown[0]!r}{did_you_mean(unknown[0], PART_KEYS)}")
        parts.append({"seats": None, "options": {}, "partnerships": None, **part})
    return parts


def parse_entrant_flags(pairs: list[str]) -> dict[str, str] | None:
    """--entrant NAME=CMD flags, in order (None when there are none)."""
    if not pairs:
        return None
    out = {}
    for pair in pairs:
        name, sep, command = pair.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise ConfigError(f"--entrant expects NAME=COMMAND, got {pair!r}")
        if name.strip() in out:
            raise ConfigError(f"entrant {name.strip()!r} appears twice")
        out[name.strip()] = command.strip()
    return out


# what each setting of a tournament file must be (None: may be left out); the variant's, the limits' and the
# options' own checks say more of their values
TYPES: dict[str, tuple[type, ...]] = {
    "variant": (str,),
    "deal_sets": (int,),
    "concurrency": (int,),
    "seed": (int,),
    "db": (str,),
    "records": (str, type(None)),
    "schedule": (str,),
    "candidate": (str, type(None)),
    "retries": (int,),
    "no_network": (bool,),
    "partnerships": (str, type(None)),
    "executor": (str,),
}  # sign_key, sandbox, seats, scheduler and its TLS settings have checks of their own, which say more
_WORDS = {int: "a whole number", str: "a string", bool: "true or false"}
MAX_DEAL_SETS = 100_000  # a schedule is built whole in memory: 10^11 deal sets would never finish building


def _check_types(cfg: Config) -> None:
    """ConfigError naming the first setting of the wrong type (a bool is not a number here)."""
    for key, types in TYPES.items():
        value = getattr(cfg, key)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            what = " or ".join(_WORDS[t] for t in types if t in _WORDS)
            raise ConfigError(f"{key} must be {what}, got {value!r}")
    if cfg.deal_sets > MAX_DEAL_SETS:
        raise ConfigError(f"deal_sets must be at most {MAX_DEAL_SETS:,}, got {cfg.deal_sets:,}")


def _check(cfg: Config) -> Config:
    if not cfg.entrants:
        raise ConfigError(
            "no entrants: give a configuration file with [[entrants]] (name and command each; see "
            "examples/tournament.toml) or --entrant NAME=COMMAND, once per entrant"
        )
    if cfg.variants is None:
        _check_variant(cfg)
    else:
        _check_parts(cfg, cfg.variants)
    if cfg.schedule not in ("round-robin", "gauntlet"):
        raise ConfigError(f"schedule must be round-robin or gauntlet, not {cfg.schedule!r}")
    if cfg.schedule == "gauntlet" and cfg.candidate not in cfg.entrants:
        raise ConfigError("a gauntlet needs candidate = the name of one entrant")
    if cfg.deal_sets < 1 or cfg.concurrency < 1 or cfg.retries < 0:
        raise ConfigError("deal_sets and concurrency must be at least 1, retries at least 0")
    known = {**LIMIT_DEFAULTS, **CLOCK_DEFAULTS}
    unknown = sorted(set(cfg.limits) - set(known))
    if unknown:
        raise ConfigError(f"limits: unknown key {unknown[0]!r}{did_you_mean(unknown[0], known)}")
    from referee.match import split_command
    from referee.play import check_clock, check_limits

    times = {k: v for k, v in cfg.limits.items() if k in LIMIT_DEFAULTS}
    check_limits(times, lambda key: f"limits.{key}")  # the same rules as `romis play`
    clocks = {**CLOCK_DEFAULTS, **cfg.limits}
    check_clock(clocks["clock"], clocks["pause_idle"], lambda key: f"limits.{key}")
    if not isinstance(cfg.no_network, bool):
        raise ConfigError(f"no_network must be true or false, got {cfg.no_network!r}")
    if cfg.sandbox is not None and not isinstance(cfg.sandbox, str):
        raise ConfigError(f'sandbox must be "bwrap" or "none", got {cfg.sandbox!r}')
    from referee.process.sandbox import SANDBOX_VAR, sandbox_mode

    cfg.sandbox = sandbox_mode(cfg.sandbox, "sandbox" if cfg.sandbox is not None else SANDBOX_VAR)
    cfg.boxes = {name: box for name, box in cfg.boxes.items() if name in cfg.entrants}  # --entrant flags replace

    _check_executor(cfg)
    for command in cfg.entrants.values():
        # on a cluster the programs are the workers' (a missing one fails its games, naming the worker)
        split_command(command) if cfg.executor == "local" else _words(command)
    _check_sign_key(cfg)
    return cfg


def _check_executor(cfg: Config) -> None:
    """The executor is known, a scheduler goes with Dask, and Dask is installed where it is asked for."""
    if cfg.executor not in EXECUTORS:
        raise ConfigError(f"executor must be local or dask, not {cfg.executor!r}")
    if cfg.scheduler is not None and cfg.executor != "dask":
        raise ConfigError("scheduler is the address of a Dask scheduler: it needs executor = dask (--executor dask)")
    if cfg.scheduler is not None and not isinstance(cfg.scheduler, str):
        raise ConfigError(f"scheduler must be an address such as tcp://HOST:8786, not {cfg.scheduler!r}")
    _check_scheduler(cfg)
    if cfg.executor == "dask":
        try:
            import distributed  # noqa: F401 (only whether it imports)
        except ImportError:
            raise ConfigError(
                "the dask executor needs Dask distributed, which is not installed: pip install 'romis[dask]'"
            ) from None
        try:
            import cryptography  # noqa: F401 (Dask makes a local cluster's certificate with it)
        except ImportError:
            if cfg.scheduler is None:
                raise ConfigError(
                    "a local Dask cluster needs cryptography for its TLS certificate, which is not installed: "
                    "pip install 'romis[dask]'"
                ) from None


def _check_scheduler(cfg: Config) -> None:
    """A scheduler of the organiser's is tls:// with the files of TLS_KEYS, or plain and said to be insecure:
    whoever can connect to a Dask scheduler can make its workers run code (a bot with network access too)."""
    given = [key for key in TLS_KEYS if getattr(cfg, key) is not None]
    if not isinstance(cfg.insecure_scheduler, bool):
        raise ConfigError(f"insecure_scheduler must be true or false, got {cfg.insecure_scheduler!r}")
    if cfg.scheduler is None:
        if given or cfg.insecure_scheduler:
            what = given[0] if given else "insecure_scheduler"
            raise ConfigError(f"{what} is for scheduler = ADDRESS (a local Dask cluster makes its own certificate)")
    elif cfg.scheduler.startswith("tls://"):
        for key in TLS_KEYS:
            value = getattr(cfg, key)
            if not isinstance(value, str) or not value:
                raise ConfigError(f"scheduler {cfg.scheduler} needs {key} = the path of a PEM file")
            if not Path(value).is_file():
                raise ConfigError(f"{key}: no file {value}")
    elif given:
        raise ConfigError(f"{given[0]} is for a tls:// scheduler, not {cfg.scheduler}")
    elif not cfg.insecure_scheduler:
        raise ConfigError(
            f"scheduler {cfg.scheduler} is not TLS: whoever reaches it (a bot with network access too) can make its "
            "workers run code; give a tls:// address with tls_ca_file, tls_cert and tls_key, or set "
            "insecure_scheduler = true on a network no bot can reach"
        )


def _words(command: str) -> None:
    """ConfigError unless `command` splits into words (as referee.match.split_command would split it)."""
    import shlex

    try:
        if not shlex.split(command):
            raise ConfigError("empty bot command")
    except ValueError as e:
        raise ConfigError(f"bot command {command!r}: {e}") from None


def _check_variant(cfg: Config) -> None:
    """The variant, its options (defaults filled in), seats and partnerships, as a single variant's."""
    if not isinstance(cfg.options, dict):
        raise ConfigError(f"options must be a table of variant options, not {cfg.options!r}")
    cls = find_variant(cfg.variant)
    cfg.variant = cls.slug
    cfg.options = cls.parse_options(cfg.options)
    if cfg.seats is not None and (not isinstance(cfg.seats, int) or isinstance(cfg.seats, bool)):
        raise ConfigError(f"seats must be a whole number, not {cfg.seats!r}")
    cfg.seats = cfg.seats or cls.min_players
    cls.check_players(cfg.seats, "seats per table")
    _check_partnerships(cfg)


def _all_variants(entrants: int) -> list[str]:
    """`variants = "all"`: every registered variant whose smallest table the entrants can fill, each entrant in
    one seat (or, in a team variant with fixed partnerships, one partnership); a variant whose smallest table needs
    more entrants is left out."""
    return [slug for slug, cls in VARIANTS.items() if (len(cls.teams) if cls.teams else cls.min_players) <= entrants]


def _check_parts(cfg: Config, parts: list[dict[str, Any]]) -> None:
    """Each part of an event, checked as a single variant's configuration (the message names the entry), each
    variant once; `cfg.variants` becomes the checked parts (slugs, seats, options with defaults, partnerships)."""
    checked: list[dict[str, Any]] = []
    for i, part in enumerate(parts, 1):
        one = dataclasses.replace(cfg, variants=None, **part)
        try:
            _check_variant(one)
        except ConfigError as e:
            raise ConfigError(f"variants entry {i} ({part['variant']}): {e}") from None
        if any(p["variant"] == one.variant for p in checked):
            raise ConfigError(f"variants entry {i}: {one.variant} is listed twice (each variant once in an event)")
        checked.append({k: getattr(one, k) for k in PART_KEYS})
    cfg.variants = checked


def _check_partnerships(cfg: Config) -> None:
    """A team variant's partnership mode (fixed unless set; refused for a variant without teams) and enough
    entrants to fill its tables: with fixed partnerships one per team, otherwise one per seat."""
    teams, n = cfg.teams(), len(cfg.entrants)
    if not teams:
        if cfg.partnerships is not None:
            raise ConfigError(f"partnerships: {cfg.variant} has no partnerships (it is for a team variant)")
        if n < (cfg.seats or 0):
            raise ConfigError(f"{n} entrant(s) cannot fill a table of {cfg.seats}")
        return
    if cfg.seats != sum(len(t) for t in teams):
        raise ConfigError(f"{cfg.variant} is played by {sum(len(t) for t in teams)} in partnerships, not {cfg.seats}")
    if cfg.partnerships is None:
        cfg.partnerships = PARTNERSHIPS[0]
    if cfg.partnerships not in PARTNERSHIPS:
        raise ConfigError(f"partnerships must be fixed or mixed, not {cfg.partnerships!r}")
    need = len(teams) if cfg.partnerships == "fixed" else sum(len(t) for t in teams)
    if n < need:
        each = "one entrant fills each partnership" if cfg.partnerships == "fixed" else "one entrant per seat"
        raise ConfigError(
            f"{cfg.variant} with {cfg.partnerships} partnerships needs at least {need} entrants ({each}), got {n}"
        )


def _check_sign_key(cfg: Config) -> None:
    """The key file must be readable and not empty before any game starts, and there must be records to sign."""
    from referee.records import load_key

    if cfg.sign_key is None:
        return
    if not isinstance(cfg.sign_key, str) or not cfg.sign_key:
        raise ConfigError(f"sign_key must be the path of a key file, not {cfg.sign_key!r}")
    if not cfg.records:
        raise ConfigError("sign_key signs the game records: set records = DIRECTORY too")
    load_key(cfg.sign_key, "sign_key")
