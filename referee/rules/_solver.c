/* The compiled core: the best-split search of referee/rules/solver.py in C, for hands without wild cards or jokers,
   and (at the end) the copy of a game's state that engine.py takes before each play.

   solver.py stays the reference: this file lists the same melds in the same order (runs by suit, line and
   length, then the extra windows, then sets by rank, larger first) and keeps the first of those that leaves
   the least cost, so both paths give the same split, not just the same points (tests/test_solver_c.py checks
   that on random hands). A hand this file cannot take (a wild card, a joker, a card it cannot read, a state
   wider than 64 bits) gets None and solver.py searches it itself.

   split(hand, spec, value, discard) -> None | Split, or with discard None | (discarded card or None, Split)
   least(hand, spec, value) -> None | the points of split(..., discard=True)'s split, without building it
   spec: solver._spec(rules), see there (its lines and windows as bytes of ranks 1-13).
   The result objects are built here (in solver.py that cost as much as the search): solver.py hands over its
   Split and TableMeld classes once, types(split, meld), and each meld's TableMeld is made once and kept. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_CODES 64
#define MAX_MELDS 1024
#define MAX_MELD_CARDS 16
#define MAX_LINES 64
#define MAX_LINE 64
#define SCALE 4096 /* solver._SCALE */

static const char RANKS[] = "A23456789TJQK";
static const char SUITS[] = "SHDC";
static signed char rank_of[256], suit_of[256]; /* by character: rank 1-13 or 0, suit 0-3 or -1 */

typedef struct {
    uint64_t key;
    int64_t cost;
    int choice;   /* meld index + 1, or 0 for deadwood */
    uint32_t gen; /* the call that stored it: a slot of an earlier call is empty (no clearing between calls) */
} Entry;

typedef struct {
    int n_codes, width;
    uint64_t guard, field;
    int64_t unit[MAX_CODES];
    int n_melds;
    uint64_t mask[MAX_MELDS];
    unsigned char is_set[MAX_MELDS], size[MAX_MELDS], cards[MAX_MELDS][MAX_MELD_CARDS]; /* cards: code indices */
    unsigned char low[MAX_MELDS], suit[MAX_CODES], rank[MAX_CODES]; /* a meld's lowest code; a code's 0-3, 1-13 */
    int n_low[MAX_CODES], *by_low[MAX_CODES];
    int low_store[MAX_MELDS];
    int failed; /* too many melds, or out of memory */
} Search;

/* The memo, kept from call to call: a hash table of states, open addressing, at most half full. */
static Entry *memo;
static uint64_t cap, used;
static uint32_t gen;

static Entry *slot(Entry *table, uint64_t size, uint64_t key) {
    uint64_t h = (key * 0x9E3779B97F4A7C15ULL) >> 24;
    for (;; h++) {
        Entry *e = &table[h & (size - 1)];
        if (e->gen != gen || e->key == key) return e;
    }
}

static int grow(void) {
    Entry *table = calloc(cap * 2, sizeof(Entry));
    if (!table) return -1;
    for (uint64_t i = 0; i < cap; i++)
        if (memo[i].gen == gen) *slot(table, cap * 2, memo[i].key) = memo[i];
    free(memo);
    memo = table, cap *= 2;
    return 0;
}

static int lowest(const Search *s, uint64_t state) { return __builtin_ctzll(state) / s->width; }

/* solver._Search.cost: the least cost of the cards in `state`, each choice memoised. */
static int64_t best(Search *s, uint64_t state) {
    if (!state || s->failed) return 0;
    Entry *e = slot(memo, cap, state);
    if (e->gen == gen) return e->cost;
    int i = lowest(s, state), w = s->width, choice = 0;
    int64_t cost;
    if (!s->n_low[i]) { /* no meld can hold this card any more: every copy is deadwood */
        uint64_t n = (state >> (i * w)) & s->field;
        cost = best(s, state - (n << (i * w))) + (int64_t)n * s->unit[i];
    } else {
        cost = best(s, state - (1ULL << (i * w))) + s->unit[i];
        uint64_t g = state | s->guard;
        for (int k = 0; k < s->n_low[i]; k++) {
            int m = s->by_low[i][k];
            if (((g - s->mask[m]) & s->guard) == s->guard) { /* a borrow clears a guard bit: it does not fit */
                int64_t c = best(s, state - s->mask[m]);
                if (c < cost) cost = c, choice = m + 1;
            }
        }
    }
    if (s->failed) return 0;
    if (2 * (used + 1) > cap && grow()) {
        s->failed = 1;
        return 0;
    }
    e = slot(memo, cap, state);
    e->key = state, e->cost = cost, e->choice = choice, e->gen = gen;
    used++;
    return cost;
}

/* One meld of `n` cards (code indices), kept unless an earlier meld has the same cards. */
static void add(Search *s, int is_set, const int *codes, int n) {
    uint64_t mask = 0;
    for (int k = 0; k < n; k++) mask += 1ULL << (codes[k] * s->width);
    for (int m = 0; m < s->n_melds; m++)
        if (s->mask[m] == mask) return;
    if (s->n_melds == MAX_MELDS || n > MAX_MELD_CARDS) {
        s->failed = 1;
        return;
    }
    int m = s->n_melds++;
    s->mask[m] = mask, s->is_set[m] = (unsigned char)is_set, s->size[m] = (unsigned char)n, s->low[m] = MAX_CODES;
    for (int k = 0; k < n; k++) {
        s->cards[m][k] = (unsigned char)codes[k];
        s->low[m] = codes[k] < s->low[m] ? (unsigned char)codes[k] : s->low[m];
    }
}

/* The melds by their lowest card, each list in listing order. */
static void sort_by_low(Search *s) {
    memset(s->n_low, 0, sizeof s->n_low);
    for (int m = 0; m < s->n_melds; m++) s->n_low[s->low[m]]++;
    for (int i = 0, fill = 0; i < s->n_codes; fill += s->n_low[i++]) s->by_low[i] = &s->low_store[fill];
    memset(s->n_low, 0, sizeof s->n_low);
    for (int m = 0; m < s->n_melds; m++) s->by_low[s->low[m]][s->n_low[s->low[m]]++] = m;
}

/* solver._spec(rules) read into C, kept for the spec object last seen (a strong reference: the same rules are
   asked again and again); lines first, then the extra windows. */
typedef struct {
    PyObject *spec;
    int n_lines, n_extras;
    unsigned char len[MAX_LINES], ranks[MAX_LINES][MAX_LINE];
    int need[MAX_LINES]; /* bits of the ranks a line's shortest run holds (bit 15: it has none) */
    long run_need, run_max, set_lo, set_hi, max_copies, cap;
    unsigned long long wilds; /* bits suit * 13 + rank - 1 */
} Rules;

static Rules rules;

/* 0, or 1 for a spec this file cannot hold (solver.py searches those hands itself), or -1 on an error. */
static int read_spec(PyObject *spec) {
    if (spec == rules.spec) return 0;
    Py_CLEAR(rules.spec);
    if (PyTuple_GET_SIZE(spec) != 9) return 1;
    PyObject *lines = PyTuple_GET_ITEM(spec, 0), *extras = PyTuple_GET_ITEM(spec, 1);
    if (!PyTuple_Check(lines) || !PyTuple_Check(extras) || PyTuple_GET_SIZE(lines) + PyTuple_GET_SIZE(extras) > MAX_LINES)
        return 1;
    rules.n_lines = (int)PyTuple_GET_SIZE(lines), rules.n_extras = (int)PyTuple_GET_SIZE(extras);
    for (int l = 0; l < rules.n_lines + rules.n_extras; l++) {
        PyObject *b = l < rules.n_lines ? PyTuple_GET_ITEM(lines, l) : PyTuple_GET_ITEM(extras, l - rules.n_lines);
        if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) > MAX_LINE) return 1;
        rules.len[l] = (unsigned char)PyBytes_GET_SIZE(b);
        memcpy(rules.ranks[l], PyBytes_AS_STRING(b), rules.len[l]);
        for (int p = 0; p < rules.len[l]; p++)
            if (rules.ranks[l][p] < 1 || rules.ranks[l][p] > 13) return 1;
    }
    long *field[] = {&rules.run_need, &rules.run_max, &rules.set_lo, &rules.set_hi, &rules.max_copies, &rules.cap};
    for (int k = 0; k < 6; k++)
        if ((*field[k] = PyLong_AsLong(PyTuple_GET_ITEM(spec, k + 2))) == -1 && PyErr_Occurred()) return -1;
    for (int l = 0; l < rules.n_lines; l++) {
        rules.need[l] = rules.len[l] < rules.run_need ? 1 << 15 : 0;
        for (int p = 0; p < rules.len[l] && p < rules.run_need; p++) rules.need[l] |= 1 << rules.ranks[l][p];
    }
    rules.wilds = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(spec, 8));
    if (rules.wilds == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    rules.spec = Py_NewRef(spec);
    return 0;
}

/* A hand as read: the count of each card (by suit and rank), the first object of each, the cards present. */
typedef struct {
    int count[4][14], index[4][14]; /* index: the card's code, by rank then suit (solver._order) */
    PyObject *name[4][14];
    uint64_t present;  /* bit (rank - 1) * 4 + suit */
    int ranks[4];      /* bits of the ranks held, by suit */
    int rank_total[14]; /* cards of each rank */
} Hand;

/* solver._melds without wild cards: runs along each line up to the first missing rank, whole extra windows,
   then the sets of each rank with the mixes of suits in product order, more cards first. */
static void list_melds(Search *s, const Hand *h) {
    const int(*count)[14] = h->count, (*index)[14] = h->index;
    long run_need = rules.run_need, run_max = rules.run_max, set_lo = rules.set_lo, set_hi = rules.set_hi;
    long max_copies = rules.max_copies, cap = rules.cap;
    int codes[MAX_LINE];
    for (int su = 0; su < 4; su++) {
        for (int l = 0; l < rules.n_lines; l++) {
            if ((h->ranks[su] & rules.need[l]) != rules.need[l]) continue; /* not even its shortest run */
            const unsigned char *line = rules.ranks[l];
            for (int p = 0; p < rules.len[l] && count[su][line[p]]; p++) {
                codes[p] = index[su][line[p]];
                if (p + 1 >= run_need && (!run_max || p + 1 <= run_max)) add(s, 0, codes, p + 1);
            }
        }
        for (int x = rules.n_lines; x < rules.n_lines + rules.n_extras; x++) {
            const unsigned char *window = rules.ranks[x];
            int len = rules.len[x], p, used[14] = {0};
            for (p = 0; p < len && used[window[p]] < count[su][window[p]]; p++) {
                used[window[p]]++;
                codes[p] = index[su][window[p]];
            }
            if (p == len && len >= run_need && (!run_max || len <= run_max)) add(s, 0, codes, len);
        }
    }
    if (set_hi < set_lo) return;
    for (int r = 1; r <= 13; r++) {
        if (h->rank_total[r] < set_lo) continue;
        int top[4];
        for (int su = 0; su < 4; su++) top[su] = count[su][r] < cap ? count[su][r] : (int)cap;
        int most = top[0] + top[1] + top[2] + top[3];
        for (int want = most; want >= set_lo; want--) { /* a stable sort by size, largest first */
            if (want > set_hi) continue;
            int ks[4];
            for (ks[0] = 0; ks[0] <= top[0]; ks[0]++)
                for (ks[1] = 0; ks[1] <= top[1]; ks[1]++)
                    for (ks[2] = 0; ks[2] <= top[2]; ks[2]++) {
                        ks[3] = want - ks[0] - ks[1] - ks[2];
                        if (ks[3] < 0 || ks[3] > top[3]) continue;
                        int high = 0, zero = 0, n = 0;
                        for (int su = 0; su < 4; su++) {
                            high = ks[su] > high ? ks[su] : high;
                            zero += !ks[su];
                        }
                        if (want <= 4 ? high > 1 : high > max_copies || zero) continue; /* solver._wild_suits */
                        for (int su = 0; su < 4; su++)
                            for (int k = 0; k < ks[su]; k++) codes[n++] = index[su][r];
                        add(s, 1, codes, n);
                    }
        }
    }
}

/* The result types (types()) and each meld's TableMeld, made at its first use and kept, found by a key of its
   kind, suit or rank and cards in order (0 for a run too long for a key: that one is made afresh each time). */
static PyObject *split_type, *meld_type, *no_args, *kind_name[2], *field_name[3];

typedef struct {
    uint64_t key; /* 0: empty */
    PyObject *meld;
} Known;

static Known *known;
static uint64_t known_cap, known_used;

static uint64_t meld_key(const Search *s, int m) {
    const unsigned char *cards = s->cards[m];
    int n = s->size[m];
    uint64_t key;
    if (s->is_set[m]) { /* 0, rank (4 bits), size (5 bits), the suits in order (2 bits each, at most 16) */
        key = (uint64_t)s->rank[cards[0]] << 1 | (uint64_t)n << 5;
        for (int k = 0; k < n; k++) key |= (uint64_t)s->suit[cards[k]] << (10 + 2 * k);
        return key;
    }
    if (n > 14) return 0;
    key = 1 | (uint64_t)s->suit[cards[0]] << 1; /* 1, suit (2 bits), the ranks in order (4 bits each) */
    for (int k = 0; k < n; k++) key |= (uint64_t)s->rank[cards[k]] << (3 + 4 * k);
    return key;
}

static Known *known_slot(Known *table, uint64_t size, uint64_t key) {
    for (uint64_t h = (key * 0x9E3779B97F4A7C15ULL) >> 40;; h++) {
        Known *k = &table[h & (size - 1)];
        if (!k->key || k->key == key) return k;
    }
}

static int known_room(void) {
    if (2 * (known_used + 1) <= known_cap) return 0;
    uint64_t size = known_cap ? known_cap * 2 : 512;
    Known *table = calloc(size, sizeof(Known));
    if (!table) return -1;
    for (uint64_t i = 0; i < known_cap; i++)
        if (known[i].key) *known_slot(table, size, known[i].key) = known[i];
    free(known);
    known = table, known_cap = size;
    return 0;
}

static void forget_melds(void) {
    for (uint64_t i = 0; i < known_cap; i++) Py_XDECREF(known[i].meld);
    free(known);
    known = NULL, known_cap = known_used = 0;
}

/* A new reference to meld m's TableMeld(kind, cards, cards), the one kept when there is one. */
static PyObject *meld_of(const Search *s, int m, PyObject *const *code_name) {
    uint64_t key = meld_key(s, m);
    if (key && known_room()) return PyErr_NoMemory();
    Known *k = key ? known_slot(known, known_cap, key) : NULL;
    if (k && k->key) return Py_NewRef(k->meld);
    PyObject *cards = PyTuple_New(s->size[m]), *meld;
    if (!cards) return NULL;
    for (int j = 0; j < s->size[m]; j++) PyTuple_SET_ITEM(cards, j, Py_NewRef(code_name[s->cards[m][j]]));
    meld = PyObject_CallFunctionObjArgs(meld_type, kind_name[s->is_set[m]], cards, cards, NULL);
    Py_DECREF(cards);
    if (meld && k) k->key = key, k->meld = Py_NewRef(meld), known_used++;
    return meld;
}

/* The deadwood points of `state`'s best split, following the memoised choices, and how many melds and cards of
   deadwood it has. */
static long long tally(const Search *s, uint64_t state, Py_ssize_t *n_melds, Py_ssize_t *n_dead) {
    long long total = 0;
    int w = s->width;
    *n_melds = *n_dead = 0;
    for (uint64_t left = state; left;) {
        int i = lowest(s, left), m = slot(memo, cap, left)->choice - 1;
        uint64_t k = m >= 0 ? 0 : s->n_low[i] ? 1 : (left >> (i * w)) & s->field;
        *n_melds += m >= 0, *n_dead += (Py_ssize_t)k;
        total += (long long)k * (s->unit[i] - 1) / SCALE;
        left -= m >= 0 ? s->mask[m] : k << (i * w);
    }
    return total;
}

/* solver._Search.split: the Split of `state`, following the memoised choices (once to count, once to fill). */
static PyObject *split_of(const Search *s, uint64_t state, PyObject *const *code_name) {
    Py_ssize_t n_melds, n_dead;
    long long total = tally(s, state, &n_melds, &n_dead);
    int w = s->width;
    PyObject *melds = PyList_New(n_melds), *dead = PyList_New(n_dead), *points = PyLong_FromLongLong(total);
    PyObject *out = NULL;
    if (!melds || !dead || !points) goto done;
    for (Py_ssize_t nm = 0, nd = 0; state;) {
        int i = lowest(s, state), m = slot(memo, cap, state)->choice - 1;
        if (m >= 0) {
            PyObject *meld = meld_of(s, m, code_name);
            if (!meld) goto done;
            PyList_SET_ITEM(melds, nm++, meld);
            state -= s->mask[m];
        } else {
            uint64_t k = s->n_low[i] ? 1 : (state >> (i * w)) & s->field;
            for (uint64_t j = 0; j < k; j++) PyList_SET_ITEM(dead, nd++, Py_NewRef(code_name[i]));
            state -= k << (i * w);
        }
    }
    /* object.__new__ and object.__setattr__, as the frozen dataclass's own __init__ does */
    if (!(out = PyBaseObject_Type.tp_new((PyTypeObject *)split_type, no_args, NULL))) goto done;
    PyObject *fields[3] = {melds, dead, points};
    for (int f = 0; f < 3; f++)
        if (PyObject_GenericSetAttr(out, field_name[f], fields[f])) {
            Py_CLEAR(out);
            break;
        }
done:
    Py_XDECREF(melds);
    Py_XDECREF(dead);
    Py_XDECREF(points);
    return out;
}

/* The values last read from a dict, by card bit suit * 13 + rank - 1, kept while that dict is unchanged (CPython
   3.11's version tag changes with every change to it; later versions read the dict each time). */
#if PY_VERSION_HEX < 0x030C0000
#define KEEP_VALUES
static PyObject *value_dict; /* a strong reference: its address cannot be another dict's */
static uint64_t value_version, value_kept;
static long long value_of[52];
#endif

/* The deadwood value of `card` (bit: its card bit): value(card), or the dict `table`'s value for it. */
static int read_value(PyObject *value, PyObject *table, PyObject *card, int bit, long long *points) {
#ifdef KEEP_VALUES
    if (table && (table != value_dict || ((PyDictObject *)table)->ma_version_tag != value_version)) {
        Py_XSETREF(value_dict, Py_NewRef(table));
        value_version = ((PyDictObject *)table)->ma_version_tag, value_kept = 0;
    }
    if (table && value_kept >> bit & 1) return *points = value_of[bit], 0;
#endif
    PyObject *v = table ? PyDict_GetItemWithError(table, card) : NULL;
    if (v)
        Py_INCREF(v);
    else if (PyErr_Occurred() || !(v = PyObject_CallOneArg(value, card))) /* a KeyError from the table too */
        return -1;
    *points = PyLong_AsLongLong(v);
    Py_DECREF(v);
    if (*points == -1 && PyErr_Occurred()) return -1;
#ifdef KEEP_VALUES
    if (table) value_of[bit] = *points, value_kept |= 1ULL << bit;
#endif
    return 0;
}

/* Read the cards of `hand` into h: 0, or -1 for a hand this file does not take (not two-character cards). */
static int read_hand(PyObject *hand, Hand *h) {
    memset(h, 0, sizeof *h);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(hand); k++) {
        PyObject *card = PyList_GET_ITEM(hand, k);
        if (!PyUnicode_Check(card) || PyUnicode_GET_LENGTH(card) != 2 || PyUnicode_KIND(card) != PyUnicode_1BYTE_KIND)
            return -1;
        const unsigned char *text = PyUnicode_1BYTE_DATA(card);
        int r = rank_of[text[0]], su = suit_of[text[1]];
        if (!r || su < 0) return -1;
        if (h->count[su][r]++ == 0) h->name[su][r] = card;
        h->present |= 1ULL << ((r - 1) * 4 + su), h->ranks[su] |= 1 << r, h->rank_total[r]++;
    }
    return 0;
}

/* Number the cards of h in solver._order and set up s over them: 1 (a hand wider than 64 bits or with a wild
   card: solver.py's to search), 0, or -1 on an error (from `value`). */
static int number_codes(Search *s, Hand *h, PyObject *value, PyObject *table, PyObject **code_name, uint64_t *full) {
    int n = 0, most = 0;
    for (uint64_t left = h->present; left; left &= left - 1) {
        int b = __builtin_ctzll(left), r = b / 4 + 1, su = b % 4;
        if (rules.wilds >> (su * 13 + r - 1) & 1 || n == MAX_CODES) return 1;
        s->suit[n] = (unsigned char)su, s->rank[n] = (unsigned char)r;
        h->index[su][r] = n, code_name[n++] = h->name[su][r];
        most = h->count[su][r] > most ? h->count[su][r] : most;
    }
    int w = 1;
    while (most >> (w - 1)) w++; /* bit_length(most) + 1 */
    if (n * w > 64) return 1;
    s->n_codes = n, s->width = w, s->field = (1ULL << (w - 1)) - 1, s->guard = 0, *full = 0;
    for (int i = 0; i < n; i++) {
        long long points;
        if (read_value(value, table, code_name[i], s->suit[i] * 13 + s->rank[i] - 1, &points)) return -1;
        s->guard |= 1ULL << (i * w + w - 1);
        *full += (uint64_t)h->count[s->suit[i]][s->rank[i]] << (i * w);
        s->unit[i] = points * SCALE + 1;
    }
    return 0;
}

/* split() (discard 0 or 1) or least() (discard 2) on a hand, once its arguments are checked. */
static PyObject *search(PyObject *const *args, int discard) {
    PyObject *value = args[2], *table = NULL;
    if (PyCFunction_Check(value) && PyDict_CheckExact(PyCFunction_GET_SELF(value)) &&
        !strcmp(((PyCFunctionObject *)value)->m_ml->ml_name, "__getitem__"))
        table = PyCFunction_GET_SELF(value); /* a dict's __getitem__: values read from it, no call per card */
    int found;
    static Hand h;
    static Search s;
    PyObject *code_name[MAX_CODES];
    uint64_t full;
    if (!PyList_Check(args[0]) || read_hand(args[0], &h)) Py_RETURN_NONE; /* solver.py takes any sequence */
    if ((found = read_spec(args[1])) || (found = number_codes(&s, &h, value, table, code_name, &full)))
        return found < 0 ? NULL : Py_NewRef(Py_None);
    s.n_melds = 0, s.failed = 0;
    list_melds(&s, &h);
    if (s.failed) Py_RETURN_NONE;
    sort_by_low(&s);
    if (!memo && !(memo = calloc(cap = 1024, sizeof(Entry)))) return PyErr_NoMemory();
    if (++gen == 0) { /* after 2**32 calls: stamps of old calls could look current */
        memset(memo, 0, cap * sizeof(Entry));
        gen = 1;
    }
    used = 0;
    PyObject *chosen = Py_None;
    uint64_t state = full;
    if (discard && s.n_codes) { /* solver.best_discard: the first card whose removal leaves the least cost */
        int64_t least = 0;
        int pick = -1, w = s.width;
        for (int i = 0; i < s.n_codes; i++) {
            int64_t c = best(&s, full - (1ULL << (i * w)));
            if (pick < 0 || c < least) least = c, pick = i;
        }
        state = full - (1ULL << (pick * w));
        chosen = code_name[pick];
    }
    best(&s, state);
    if (s.failed) return PyErr_NoMemory();
    if (discard == 2) { /* solver.least_after_discard: the points only */
        Py_ssize_t n_melds, n_dead;
        return PyLong_FromLongLong(tally(&s, state, &n_melds, &n_dead));
    }
    PyObject *split = split_of(&s, state, code_name);
    if (!split || !discard) return split;
    PyObject *out = PyTuple_Pack(2, chosen, split);
    Py_DECREF(split);
    return out;
}

/* The entry points: split(hand, spec, value, discard) and least(hand, spec, value). */
static PyObject *enter(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, int discard, const char *usage) {
    if (nargs != want || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, usage);
        return NULL;
    }
    if (discard < 0) return NULL;
    if (!split_type) {
        PyErr_SetString(PyExc_RuntimeError, "_solver.types(Split, TableMeld) was not called");
        return NULL;
    }
    static int busy; /* a value function that itself asks for a split: that one is solver.py's (the state is static) */
    if (busy) Py_RETURN_NONE;
    busy = 1;
    PyObject *out = search(args, discard);
    busy = 0;
    return out;
}

static PyObject *split(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    const char *usage = "split(hand: list, spec: tuple, value, discard: bool)";
    return enter(args, nargs, 4, nargs == 4 ? PyObject_IsTrue(args[3]) : 0, usage);
}

static PyObject *least(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    return enter(args, nargs, 3, 2, "least(hand: list, spec: tuple, value)");
}

static PyObject *types(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyType_Check(args[0]) || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "types(split: type, meld: type)");
        return NULL;
    }
    forget_melds(); /* made by an earlier TableMeld class */
    Py_XSETREF(split_type, Py_NewRef(args[0]));
    Py_XSETREF(meld_type, Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

/* engine.Game._snapshot's copy of a game's state: snapshot(state, names) -> a copy of the dict `state` in which
   each container named in `names` is copied too: a list (two levels deep when its first item is a list), a dict
   (a dict's subclass by its own copy()); anything else is kept, as engine.py's loop does. */
static PyObject *snapshot(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyDict_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "snapshot(state: dict, names: tuple)");
        return NULL;
    }
    PyObject *state = PyDict_Copy(args[0]);
    for (Py_ssize_t k = 0; state && k < PyTuple_GET_SIZE(args[1]); k++) {
        PyObject *name = PyTuple_GET_ITEM(args[1], k), *value = PyDict_GetItemWithError(state, name), *copy = NULL;
        if (!value) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
            Py_CLEAR(state);
            break;
        }
        if (PyList_Check(value)) {
            Py_ssize_t n = PyList_GET_SIZE(value);
            if (n && PyList_Check(PyList_GET_ITEM(value, 0))) { /* [x[:] for x in value] */
                if ((copy = PyList_New(n)))
                    for (Py_ssize_t i = 0; i < n; i++) {
                        PyObject *item = PyList_GET_ITEM(value, i);
                        PyObject *part = PyList_Check(item) ? PyList_GetSlice(item, 0, PY_SSIZE_T_MAX)
                                                            : PySequence_GetSlice(item, 0, PY_SSIZE_T_MAX);
                        if (!part) {
                            Py_CLEAR(copy);
                            break;
                        }
                        PyList_SET_ITEM(copy, i, part);
                    }
            } else
                copy = PyList_GetSlice(value, 0, PY_SSIZE_T_MAX);
        } else if (PyDict_CheckExact(value))
            copy = PyDict_Copy(value);
        else if (PyDict_Check(value))
            copy = PyObject_CallMethod(value, "copy", NULL);
        else
            continue;
        if (!copy || PyDict_SetItem(state, name, copy)) Py_CLEAR(state);
        Py_XDECREF(copy);
    }
    return state;
}

static PyMethodDef methods[] = {
    {"split", (PyCFunction)(void (*)(void))split, METH_FASTCALL, "The best split of a hand without wild cards."},
    {"least", (PyCFunction)(void (*)(void))least, METH_FASTCALL, "The deadwood points left by the best discard."},
    {"types", (PyCFunction)(void (*)(void))types, METH_FASTCALL, "The Split and TableMeld classes to build."},
    {"snapshot", (PyCFunction)(void (*)(void))snapshot, METH_FASTCALL, "A game state's copy for Game._snapshot."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_solver", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__solver(void) {
    const char *names[] = {"run", "set", "melds", "deadwood", "points"};
    PyObject **slots[] = {&kind_name[0], &kind_name[1], &field_name[0], &field_name[1], &field_name[2]};
    for (int k = 0; k < 5; k++)
        if (!*slots[k] && !(*slots[k] = PyUnicode_InternFromString(names[k]))) return NULL;
    if (!no_args && !(no_args = PyTuple_New(0))) return NULL;
    memset(suit_of, -1, sizeof suit_of);
    for (int k = 0; k < 13; k++) rank_of[(unsigned char)RANKS[k]] = (signed char)(k + 1);
    for (int k = 0; k < 4; k++) suit_of[(unsigned char)SUITS[k]] = (signed char)k;
    return PyModule_Create(&module);
}
