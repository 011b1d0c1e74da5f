/* The best-split search of referee/rules/solver.py in C, for hands without wild cards or jokers.

   solver.py stays the reference: this file lists the same melds in the same order (runs by suit, line and
   length, then the extra windows, then sets by rank, larger first) and keeps the first of those that leaves
   the least cost, so both paths give the same split, not just the same points (tests/test_solver_c.py checks
   that on random hands). A hand this file cannot take (a wild card, a joker, a card it cannot read, a state
   wider than 64 bits) gets None and solver.py searches it itself.

   split(hand, spec, value, discard) -> None | Split, or with discard None | (discarded card or None, Split)
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
#define SCALE 4096 /* solver._SCALE */

static const char RANKS[] = "A23456789TJQK";
static const char SUITS[] = "SHDC";

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
    unsigned char suit[MAX_CODES], rank[MAX_CODES]; /* of each code: 0-3, 1-13 */
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
    s->mask[m] = mask, s->is_set[m] = (unsigned char)is_set, s->size[m] = (unsigned char)n;
    for (int k = 0; k < n; k++) s->cards[m][k] = (unsigned char)codes[k];
}

static long item(PyObject *spec, Py_ssize_t i) { return PyLong_AsLong(PyTuple_GET_ITEM(spec, i)); }

/* solver._melds without wild cards: runs along each line up to the first missing rank, whole extra windows,
   then the sets of each rank with the mixes of suits in product order, more cards first. */
static void list_melds(Search *s, PyObject *spec, int index[4][14], int count[4][14]) {
    PyObject *lines = PyTuple_GET_ITEM(spec, 0), *extras = PyTuple_GET_ITEM(spec, 1);
    long run_need = item(spec, 2), run_max = item(spec, 3), set_lo = item(spec, 4), set_hi = item(spec, 5);
    long max_copies = item(spec, 6), cap = item(spec, 7);
    int codes[64];
    for (int su = 0; su < 4; su++) {
        for (Py_ssize_t l = 0; l < PyTuple_GET_SIZE(lines); l++) {
            const unsigned char *line = (const unsigned char *)PyBytes_AS_STRING(PyTuple_GET_ITEM(lines, l));
            Py_ssize_t len = PyBytes_GET_SIZE(PyTuple_GET_ITEM(lines, l));
            for (Py_ssize_t p = 0; p < len && p < 64 && count[su][line[p]]; p++) {
                codes[p] = index[su][line[p]];
                if (p + 1 >= run_need && (!run_max || p + 1 <= run_max)) add(s, 0, codes, (int)p + 1);
            }
        }
        for (Py_ssize_t x = 0; x < PyTuple_GET_SIZE(extras); x++) {
            const unsigned char *window = (const unsigned char *)PyBytes_AS_STRING(PyTuple_GET_ITEM(extras, x));
            Py_ssize_t len = PyBytes_GET_SIZE(PyTuple_GET_ITEM(extras, x)), p;
            int used[14] = {0};
            for (p = 0; p < len && p < 64 && used[window[p]] < count[su][window[p]]; p++) {
                used[window[p]]++;
                codes[p] = index[su][window[p]];
            }
            if (p == len && len >= run_need && (!run_max || len <= run_max)) add(s, 0, codes, (int)len);
        }
    }
    if (set_hi < set_lo) return;
    for (int r = 1; r <= 13; r++) {
        int top[4], total = 0;
        for (int su = 0; su < 4; su++) {
            top[su] = count[su][r] < cap ? count[su][r] : (int)cap;
            total += count[su][r];
        }
        if (total < set_lo) continue;
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

/* solver._Search.split: the Split of `state`, following the memoised choices. */
static PyObject *split_of(const Search *s, uint64_t state, PyObject *const *code_name) {
    PyObject *melds = PyList_New(0), *dead = PyList_New(0), *points = NULL, *out = NULL;
    long long total = 0;
    int w = s->width;
    if (!melds || !dead) goto done;
    while (state) {
        Entry *e = slot(memo, cap, state);
        int i = lowest(s, state);
        if (e->choice) {
            PyObject *meld = meld_of(s, e->choice - 1, code_name);
            if (!meld || PyList_Append(melds, meld)) {
                Py_XDECREF(meld);
                goto done;
            }
            Py_DECREF(meld);
            state -= s->mask[e->choice - 1];
        } else {
            uint64_t k = s->n_low[i] ? 1 : (state >> (i * w)) & s->field;
            for (uint64_t j = 0; j < k; j++)
                if (PyList_Append(dead, code_name[i])) goto done;
            total += (long long)k * (s->unit[i] - 1) / SCALE;
            state -= k << (i * w);
        }
    }
    /* object.__new__ and object.__setattr__, as the frozen dataclass's own __init__ does */
    if (!(points = PyLong_FromLongLong(total)) || !(out = PyBaseObject_Type.tp_new((PyTypeObject *)split_type, no_args, NULL)))
        goto done;
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

static PyObject *split(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "split(hand: list, spec: tuple, value, discard: bool)");
        return NULL;
    }
    if (!split_type) {
        PyErr_SetString(PyExc_RuntimeError, "_solver.types(Split, TableMeld) was not called");
        return NULL;
    }
    if (!PyList_Check(args[0])) Py_RETURN_NONE; /* solver.py takes any sequence */
    PyObject *hand = args[0], *spec = args[1], *value = args[2], *table = NULL;
    if (PyCFunction_Check(value) && PyDict_CheckExact(PyCFunction_GET_SELF(value)) &&
        !strcmp(((PyCFunctionObject *)value)->m_ml->ml_name, "__getitem__"))
        table = PyCFunction_GET_SELF(value); /* a dict's __getitem__: values read from it, no call per card */
    int discard = PyObject_IsTrue(args[3]);
    Py_ssize_t n_hand = PyList_GET_SIZE(hand);
    int count[4][14] = {{0}}, index[4][14];
    PyObject *name[4][14] = {{NULL}};
    for (Py_ssize_t k = 0; k < n_hand; k++) { /* read the cards; anything else is solver.py's to search */
        PyObject *card = PyList_GET_ITEM(hand, k);
        if (!PyUnicode_Check(card) || PyUnicode_GET_LENGTH(card) != 2 || PyUnicode_KIND(card) != PyUnicode_1BYTE_KIND)
            Py_RETURN_NONE;
        const char *text = (const char *)PyUnicode_DATA(card);
        const char *r = memchr(RANKS, text[0], 13), *su = memchr(SUITS, text[1], 4);
        if (!r || !su || !text[0] || !text[1]) Py_RETURN_NONE;
        int ri = (int)(r - RANKS) + 1, si = (int)(su - SUITS);
        if (count[si][ri]++ == 0) name[si][ri] = card;
    }
    unsigned long long wilds = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(spec, 8)); /* bit suit*13+rank-1 */
    static Search s;
    s.guard = 0, s.n_melds = 0, s.failed = 0;
    int n = 0, most = 0;
    PyObject *code_name[MAX_CODES];
    for (int r = 1; r <= 13; r++) /* solver._order: by rank, then suit */
        for (int su = 0; su < 4; su++)
            if (count[su][r]) {
                if (wilds >> (su * 13 + r - 1) & 1 || n == MAX_CODES) Py_RETURN_NONE;
                s.suit[n] = (unsigned char)su, s.rank[n] = (unsigned char)r;
                index[su][r] = n, code_name[n++] = name[su][r];
                most = count[su][r] > most ? count[su][r] : most;
            }
    int w = 1;
    while (most >> (w - 1)) w++; /* bit_length(most) + 1 */
    if (n * w > 64) Py_RETURN_NONE;
    s.n_codes = n, s.width = w, s.field = (1ULL << (w - 1)) - 1;
    uint64_t full = 0;
    for (int r = 1; r <= 13; r++)
        for (int su = 0; su < 4; su++)
            if (count[su][r]) {
                int i = index[su][r];
                s.guard |= 1ULL << (i * w + w - 1);
                full += (uint64_t)count[su][r] << (i * w);
                PyObject *v = table ? PyDict_GetItemWithError(table, name[su][r]) : NULL;
                if (v)
                    Py_INCREF(v);
                else if (PyErr_Occurred() || !(v = PyObject_CallOneArg(value, name[su][r]))) /* KeyError too */
                    return NULL;
                long long points = PyLong_AsLongLong(v);
                Py_DECREF(v);
                if (points == -1 && PyErr_Occurred()) return NULL;
                s.unit[i] = points * SCALE + 1;
            }
    list_melds(&s, spec, index, count);
    if (PyErr_Occurred()) return NULL;
    if (s.failed) Py_RETURN_NONE;
    int fill = 0;
    for (int i = 0; i < n; i++) { /* melds by their lowest card, in listing order */
        s.by_low[i] = &s.low_store[fill];
        for (int m = 0; m < s.n_melds; m++) {
            int low = MAX_CODES;
            for (int k = 0; k < s.size[m]; k++) low = s.cards[m][k] < low ? s.cards[m][k] : low;
            if (low == i) s.low_store[fill++] = m;
        }
        s.n_low[i] = (int)(&s.low_store[fill] - s.by_low[i]);
    }
    if (!memo && !(memo = calloc(cap = 1024, sizeof(Entry)))) return PyErr_NoMemory();
    if (++gen == 0) { /* after 2**32 calls: stamps of old calls could look current */
        memset(memo, 0, cap * sizeof(Entry));
        gen = 1;
    }
    used = 0;
    PyObject *chosen = Py_None;
    uint64_t state = full;
    if (discard && n) { /* solver.best_discard: the first card whose removal leaves the least cost */
        int64_t least = 0;
        int pick = -1;
        for (int i = 0; i < n; i++) {
            int64_t c = best(&s, full - (1ULL << (i * w)));
            if (pick < 0 || c < least) least = c, pick = i;
        }
        state = full - (1ULL << (pick * w));
        chosen = code_name[pick];
    }
    best(&s, state);
    if (s.failed) return PyErr_NoMemory();
    PyObject *found = split_of(&s, state, code_name);
    if (!found || !discard) return found;
    PyObject *out = PyTuple_Pack(2, chosen, found);
    Py_DECREF(found);
    return out;
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

static PyMethodDef methods[] = {
    {"split", (PyCFunction)(void (*)(void))split, METH_FASTCALL, "The best split of a hand without wild cards."},
    {"types", (PyCFunction)(void (*)(void))types, METH_FASTCALL, "The Split and TableMeld classes to build."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_solver", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__solver(void) {
    const char *names[] = {"run", "set", "melds", "deadwood", "points"};
    PyObject **slots[] = {&kind_name[0], &kind_name[1], &field_name[0], &field_name[1], &field_name[2]};
    for (int k = 0; k < 5; k++)
        if (!*slots[k] && !(*slots[k] = PyUnicode_InternFromString(names[k]))) return NULL;
    if (!no_args && !(no_args = PyTuple_New(0))) return NULL;
    return PyModule_Create(&module);
}
