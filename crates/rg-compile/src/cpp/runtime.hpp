// ---- Runtime of the generated forward model (the same for every game). ------------------

/// A game state between moves: the node and every variable, packed.
struct State {
  alignas(8) uint8_t b[STATE_BYTES];
  uint32_t node;
};

namespace detail {

/// States up to this size are copied a word at a time by the searches (see `copy_state`).
constexpr uint32_t WORD_COPY_BYTES = 64;

/// `d = s`. The searches copy a state right after a walk's byte stores into it (a finished
/// walk, a listed move's record), and a load that covers a byte stored just before cannot take
/// its value from the store: it waits until the store reaches the cache. A vector copy loads
/// 32 bytes at once, so every load waits when any byte changed; copied a word at a time, only
/// the words with changed bytes wait (measured: foxAndHounds and englishDraughts from RBG 4-5 %
/// faster with 48-byte states, connect4 with 56 unchanged; 80 and 112 bytes slower, so larger
/// states keep the plain copy).
[[gnu::always_inline]] inline void copy_state(State& d, const State& s) {
  if constexpr (STATE_BYTES % 8 == 0 && STATE_BYTES <= WORD_COPY_BYTES) {
    for (uint32_t i = 0; i < STATE_BYTES; i += 8) {
      uint64_t w;
      std::memcpy(&w, s.b + i, 8);
      // Keeps the compiler from merging the words into vector loads.
      __asm__("" : "+r"(w));
      std::memcpy(d.b + i, &w, 8);
    }
    d.node = s.node;
  } else {
    d = s;
  }
}

}  // namespace detail

inline bool same_state(const State& x, const State& y) {
  return x.node == y.node && std::memcmp(x.b, y.b, STATE_BYTES) == 0;
}

/// A condition a proper game never violates failed at run time (its actions can always be
/// evaluated): a map written at a key outside its domain, a reachability check that needs
/// itself, too many tags.
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A change of a state: `width` bits at bit `bit` take `value`.
struct Patch {
  uint32_t bit;
  uint32_t width;
  uint32_t value;
};

namespace detail {

inline uint32_t get_bits(const State& s, uint32_t bit, uint32_t width) {
  const uint8_t* p = s.b + (bit >> 3);
  switch (width) {
    case 8: return p[0];
    case 16: return uint32_t(p[0]) | uint32_t(p[1]) << 8;
    case 32: return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    default: return (p[0] >> (bit & 7)) & ((1u << width) - 1);
  }
}

inline void set_bits(State& s, uint32_t bit, uint32_t width, uint32_t v) {
  uint8_t* p = s.b + (bit >> 3);
  switch (width) {
    case 8: p[0] = uint8_t(v); return;
    case 16: p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); return;
    case 32: p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); p[2] = uint8_t(v >> 16); p[3] = uint8_t(v >> 24); return;
    default: {
      const uint32_t mask = ((1u << width) - 1) << (bit & 7);
      p[0] = uint8_t((p[0] & ~mask) | ((v << (bit & 7)) & mask));
    }
  }
}

}  // namespace detail

/// States up to this size are recorded whole by `legal_moves`, larger ones as changes
/// (measured: copying 40 bytes beats a few patches, copying 240 bytes does not).
constexpr uint32_t LISTED_STATE_BYTES = 128;
/// Whether `legal_moves` records moves as changes (larger states): only then does a search keep
/// the trail of what its walk assigned. Smaller states are always listed whole, and the trail's
/// bookkeeping at every assignment compiles away.
constexpr bool PATCH_LISTS = STATE_BYTES > LISTED_STATE_BYTES;

/// One legal move: its tags and where it leads (its state is in `Moves::states_`, or its
/// changes in `Moves::patches_`).
struct MoveRec {
  uint32_t node;
  uint32_t player;  // the value it gives `player`
  uint32_t ntags;
  uint32_t start;   // of its tags in Moves::tags_ (when MAX_TAGS is 0) and of its visibility
  uint32_t pstart;  // of its changes in Moves::patches_
  uint32_t pcount;
  uint32_t tags[MAX_TAGS == 0 ? 1 : MAX_TAGS];
};

/// The legal moves of a state, in the interpreter's order (duplicates kept): for each, its tags
/// and the state it leads to (`legal_moves_and_states`) or the changes that lead there
/// (`legal_moves`, cheaper to list). Reuse one object: clearing keeps the buffers.
class Moves {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  /// Whether the moves were listed with the states they lead to (`legal_moves_and_states`).
  bool keeps_states() const { return keep_states_; }
  /// The state after move `i` (only when `keeps_states()`). Listed by `legal_moves`, a move may
  /// be pending there (its last checks not yet evaluated): `apply` finishes it.
  const State& state(size_t i) const { return states_[i]; }
  /// Applies move `i` to `s`, the state the moves were listed for (when not `keeps_states()`).
  void apply_changes(State& s, size_t i) const {
    const MoveRec& r = recs_[i];
    const Patch* p = patches_.data() + r.pstart;
    for (uint32_t k = 0; k < r.pcount; ++k) detail::set_bits(s, p[k].bit, p[k].width, p[k].value);
    if (PLAYER_WIDTH > 0) detail::set_bits(s, PLAYER_BIT, PLAYER_WIDTH, r.player);
    s.node = r.node;
  }
  /// The tags (symbol ids) of move `i`.
  const uint32_t* tags(size_t i) const {
    return MAX_TAGS > 0 ? recs_[i].tags : tags_.data() + recs_[i].start;
  }
  size_t tag_count(size_t i) const { return recs_[i].ntags; }
  /// The node move `i` leads to (for a move `legal_moves` left pending, the node where it
  /// waits for `apply`).
  uint32_t target(size_t i) const { return recs_[i].node; }
  /// Bit `p` is set when player number `p` sees tag `k` of move `i` (a player sees the tags of
  /// the edges taken while its `visible` entry is 1).
  uint64_t seen_by(size_t i, size_t k) const;
  void clear() {
    n_ = 0;
    np_ = 0;
    cap_ = keep_states_ ? std::min(recs_.size(), states_.size()) : recs_.size();
    ntags_ = 0;
    vis_.clear();
  }

  /// A new record at the end (with room for its state when states are kept), for the generated
  /// search to fill.
  MoveRec& push() {
    if (n_ == cap_) grow();
    return recs_[n_++];
  }
  /// Room for more records (and their states when kept); out of line, so that the search's
  /// `emit` stays small enough to inline.
  [[gnu::noinline]] void grow() {
    if (n_ == recs_.size()) recs_.resize(recs_.size() * 2 + 16);
    if (keep_states_ && states_.size() < recs_.size()) states_.resize(recs_.size());
    cap_ = keep_states_ ? std::min(recs_.size(), states_.size()) : recs_.size();
  }
  /// Room for `k` changes at the end of `patches_`.
  Patch* add_patches(uint32_t k) {
    if (np_ + k > patches_.size()) patches_.resize((np_ + k) * 2 + 16);
    Patch* p = patches_.data() + np_;
    np_ += k;
    return p;
  }
  std::vector<MoveRec> recs_;
  std::vector<State> states_;
  size_t n_ = 0;
  // Records `push` may fill without growing (set by `clear`, which every listing calls after
  // choosing what it keeps).
  size_t cap_ = 0;
  bool keep_states_ = false;
  bool lazy_ = false;  // moves may be left pending (listed by `legal_moves`)
  bool tags_only_ = false;  // only tags recorded (listed by `detail::list_tags`)
  /// Room for `k` more tags at the end of `tags_` (out of line: rarely taken).
  [[gnu::noinline]] void grow_tags(uint32_t k) { tags_.resize((ntags_ + k) * 2 + 16); }
  // The tags of the moves when MAX_TAGS is 0: the first `ntags_` are in use.
  std::vector<uint32_t> tags_;
  uint32_t ntags_ = 0;
  std::vector<uint64_t> vis_;
  std::vector<Patch> patches_;
  uint32_t np_ = 0;  // patches in use
};

namespace detail {

inline uint64_t mix(uint64_t h, uint64_t w) {
  h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

/// The visited-state set of one search: a walk that reaches a node with the same tags and the
/// same ordinary variables as an earlier walk of the search is not continued (walks merge), as
/// in the interpreter. Keys of 64-bit words, cleared in O(1).
class Seen {
 public:
  /// The search this set belongs to: it is cleared when another search first uses it.
  uint64_t owner = 0;

  void clear() {
    if (++gen_ == 0) {
      std::fill(tgen_.begin(), tgen_.end(), 0u);
      gen_ = 1;
    }
    used_ = 0;
    count_ = 0;
  }

  /// Room for a key of `n` words at the end of the arena, to be filled and then passed to
  /// `commit` (which keeps it when new).
  uint64_t* reserve(uint32_t n) {
    pending_ = used_;
    used_ = pending_ + 2 + n;
    // Grown without clearing (the words are written before they are read).
    if (used_ > arena_.size()) arena_.resize(used_ * 2 + 64);
    return arena_.data() + pending_ + 2;
  }

  /// Inserts the key written after `reserve(n)`, with hash `h`; false when it was there.
  bool commit(uint64_t h, uint32_t n) {
    if ((count_ + 1) * 2 > tgen_.size()) grow();
    const size_t mask = tgen_.size() - 1;
    const uint64_t* key = arena_.data() + pending_ + 2;
    size_t i = h & mask;
    while (tgen_[i] == gen_) {
      const uint64_t* e = arena_.data() + tpos_[i];
      if (e[0] == h && e[1] == n && std::memcmp(e + 2, key, n * sizeof(uint64_t)) == 0) {
        used_ = pending_;
        return false;
      }
      i = (i + 1) & mask;
    }
    arena_[pending_] = h;
    arena_[pending_ + 1] = n;
    tgen_[i] = gen_;
    tpos_[i] = static_cast<uint32_t>(pending_);
    ++count_;
    return true;
  }

 private:
  void grow() {
    const size_t size = tgen_.empty() ? 64 : tgen_.size() * 2;
    tgen_.assign(size, 0u);
    tpos_.assign(size, 0u);
    if (gen_ == 0) gen_ = 1;
    const size_t mask = size - 1;
    for (size_t at = 0; at < pending_;) {
      size_t i = arena_[at] & mask;
      while (tgen_[i] == gen_) i = (i + 1) & mask;
      tgen_[i] = gen_;
      tpos_[i] = static_cast<uint32_t>(at);
      at += 2 + arena_[at + 1];
    }
  }

  std::vector<uint32_t> tgen_, tpos_;
  // Entries back to back: hash, length, key words.
  std::vector<uint64_t> arena_;
  size_t used_ = 0;  // words of the arena in use
  size_t pending_ = 0;
  size_t count_ = 0;
  uint32_t gen_ = 1;
};

/// The first states each node recorded in its latest scope event of one nesting level, in
/// front of that level's `Seen` set: most nodes are expanded once or a few times per scope
/// event, and comparing a state with the few kept costs less than hashing it. Per node: the
/// scope event (0: none), the search whose `Seen` set holds this node's states instead (0:
/// none), the number of states kept, then room for `first_room(nwords)` keys.
class FirstSeen {
 public:
  /// The record of `node` (allocated on first use).
  uint64_t* slot(uint32_t node, uint32_t nwords) {
    if (node >= off_.size()) off_.resize(node + 1, 0);
    if (off_[node] == 0) {
      off_[node] = static_cast<uint32_t>(words_.size()) + 1;
      words_.resize(words_.size() + 3 + size_t(first_room(nwords)) * nwords, 0);
    }
    return words_.data() + off_[node] - 1;
  }

  /// The keys of `nwords` words a record keeps (a few small ones, or one large one).
  static constexpr uint32_t first_room(uint32_t nwords) { return nwords <= 16 ? 4 : 1; }

 private:
  std::vector<uint32_t> off_;  // 1 + offset of each node's record, 0 when none
  std::vector<uint64_t> words_;
};

/// A hash of `n` words in four independent lanes (no long chain of dependent multiplies).
inline uint64_t hash_words(const uint64_t* w, uint32_t n) {
  uint64_t a = 0x9e3779b97f4a7c15ULL, b = 0xc2b2ae3d27d4eb4fULL, c = 0x165667b19e3779f9ULL,
           d = 0x27d4eb2f165667c5ULL;
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a = mix(a, w[i]);
    b = mix(b, w[i + 1]);
    c = mix(c, w[i + 2]);
    d = mix(d, w[i + 3]);
  }
  for (; i < n; ++i) a = mix(a, w[i]);
  uint64_t h = mix(mix(mix(a, b), c), d) ^ n;
  h = (h ^ (h >> 31)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 29);
}

}  // namespace detail

/// Reusable search buffers (the visited-state sets, the tags of the walk). One per thread.
class Cache {
 public:
  Cache() : seen(4) {}

  // Used by the generated search.
  State s;
  Moves* out = nullptr;
  bool lazy = false;  // the listing may leave moves pending at deferred nodes
  bool counting = false;  // the search only counts its finished moves (in `nmoves`)
  uint64_t nmoves = 0;
  std::vector<detail::Seen> seen;
  uint32_t level = 0;
  std::vector<uint32_t> tags;  // the tags of the walk: the first `ntags`
  uint32_t ntags = 0;
  uint32_t tags_cap = 0;  // tags.size(), kept apart: `push_tag` compares with it at every tag
  std::vector<uint64_t> vis;
  uint32_t tagbase = 0;
  // The current scope event (a search start or a tag edge taken) and the last number given out;
  // a stamp table entry holds the scope event that last expanded its (node, key) state.
  uint64_t epoch = 0;
  uint64_t next_epoch = 0;
  uint64_t search = 0;  // the epoch of the current search's start
  // Whether the current scope may share its tags with another (then the interpreter's key is
  // used for visited-state checks).
  bool nondet = false;
  std::vector<uint64_t> stamps;
  // Remembered answers of checks that depend on a few variables: 0 unknown, 1 no, 2 yes.
  std::vector<uint8_t> memo;
  std::vector<std::vector<uint64_t>> level_stamps;  // per nesting level, for nesting checks
  std::vector<detail::FirstSeen> first;  // per nesting level, for scope-keyed checks
  std::vector<uint8_t> active;
  // Applying a move: its tags.
  const uint32_t* goal = nullptr;
  uint32_t goal_n = 0;
  uint32_t goal_skip = 0;
  // The walk applies the first move it finds (none skipped): a state expanded again would find
  // nothing the first expansion did not, so its scope-keyed checks only count visits (as
  // `loop_check`) and record states only from the `LOOP_LIMIT`-th visit on.
  bool first_only = false;
  bool trusted = false;
  bool any_tags = false;
  // The locations the walk of a move search has assigned (values unused), the first `ntrail`.
  std::vector<Patch> trail;
  uint32_t ntrail = 0;
  bool trail_on = false;
  bool ready = false;  // `stamps`, `memo` and `active` have their sizes
  // The optimistic check (`OPTIMISTIC`): per tag position and symbol, the scope event that last
  // emitted it there; whether this search runs with shared scopes (after an equal emission), and
  // for how many more searches it does so from the start.
  std::vector<uint64_t> emitted;
  bool pessimistic = false;
  uint32_t pessimistic_left = 0;
};

namespace detail {

constexpr size_t TAG_LIMIT = size_t(1) << 16;
/// Visits of a node in one scope event before a counted check records states (any number
/// gives the same results; see the generator).
constexpr uint64_t LOOP_LIMIT = 16;
/// Members of a selection loop counted at once when the k-th move is looked for. (Not 16:
/// g++ 12.2 at -O3 -march=native miscompiles the 16-byte count, summing the comparison
/// masks without negating them.)
constexpr uint32_t SELECT_BLOCK = 32;
/// Members of a selection loop counted in one byte (at most 255).
constexpr size_t COUNT_CHUNK = 240;

[[noreturn]] void fail(const char* what);

/// The scope a tag edge leaves, restored by `pop_tag`.
struct Scope {
  uint64_t epoch;
  bool nondet;
};

/// Makes room for more tags (out of line: rarely taken).
void grow_tags(Cache& c);

/// Appends a tag: a new scope event begins; `shared` when it may have the tags of another.
/// The scope's epoch and `nondet` are kept only when some check of the game reads them, and
/// the epoch only with `EPOCH` (`false` where no check of the scope begun reads it).
template <bool EPOCH = true>
[[gnu::always_inline]] inline Scope push_tag(Cache& c, uint32_t t, uint64_t vis, bool shared) {
  if (c.ntags == c.tags_cap) grow_tags(c);
  if (DYNAMIC_VISIBILITY) c.vis[c.ntags] = vis;
  c.tags[c.ntags++] = t;
  Scope scope{0, false};
  if (SCOPE_EPOCHS && EPOCH) {
    scope.epoch = c.epoch;
    c.epoch = ++c.next_epoch;
  }
  if (SCOPE_NONDET) {
    scope.nondet = c.nondet;
    c.nondet = shared;
  }
  return scope;
}

template <bool EPOCH = true>
inline void pop_tag(Cache& c, Scope scope) {
  --c.ntags;
  if (SCOPE_EPOCHS && EPOCH) c.epoch = scope.epoch;
  if (SCOPE_NONDET) c.nondet = scope.nondet;
}

/// Thrown when a scope event emits a symbol it emitted before (see `note_tag`).
struct TagCollision {};

/// The optimistic check, before a tag edge that may emit what another emission of the same scope
/// event did: while no scope event emits one symbol twice, every scope event has tags of its
/// own, so every scope-keyed visited-state check is the interpreter's; the first repeated
/// emission abandons the search, which runs again with the scopes that may be shared checked by
/// the interpreter's key (`c.pessimistic`). The scope event is the current epoch (a fresh
/// number per tag taken and per search), so one table entry per tag position and symbol tells.
inline void note_tag(Cache& c, uint32_t t) {
  if (c.pessimistic) return;
  uint64_t& r = c.emitted[size_t(c.ntags) * NUM_SYMBOLS + t];
  if (r == c.epoch) throw TagCollision{};
  r = c.epoch;
}

/// Runs a move search (`run`) optimistically, and again with shared scopes when it finds a
/// repeated emission; after one, the next searches of this cache start with shared scopes for a
/// while (the results are the same either way, only the time differs).
template <class F>
inline void optimistic_run(Cache& c, F run) {
  if constexpr (OPTIMISTIC) {
    c.pessimistic = c.pessimistic_left > 0;
    if (c.pessimistic) {
      --c.pessimistic_left;
    } else {
      try {
        run();
        return;
      } catch (const TagCollision&) {
      }
      c.pessimistic = true;
      c.pessimistic_left = 64;
    }
  }
  run();
}

/// Notes that the walk has assigned `width` bits at `bit` (undone with `pop_trail`), when the
/// moves record what their walks change.
void grow_trail(Cache& c);

inline void trail_push(Cache& c, uint32_t bit, uint32_t width) {
  if (!PATCH_LISTS || !c.trail_on) return;
  if (c.ntrail == c.trail.size()) grow_trail(c);
  c.trail[c.ntrail].bit = bit;
  c.trail[c.ntrail++].width = width;
}

inline void pop_trail(Cache& c, uint32_t n) {
  if (PATCH_LISTS && c.trail_on) c.ntrail -= n;
}

/// Records the walk's current state, with `player` set to `player`, as a finished move at
/// `node`: the whole state, or what the walk changed.
inline void emit(Cache& c, uint32_t node, uint32_t player) {
  if (c.counting) {
    ++c.nmoves;
    return;
  }
  Moves& m = *c.out;
  MoveRec& r = m.push();
  r.node = node;
  r.player = player;
  if (m.tags_only_) {
  } else if (!PATCH_LISTS || m.keep_states_) {
    State& t = m.states_[m.n_ - 1];
    copy_state(t, c.s);
    t.node = node;
    set_bits(t, PLAYER_BIT, PLAYER_WIDTH, player);
  } else {
    const uint32_t n = c.ntrail;
    r.pstart = m.np_;
    r.pcount = n;
    Patch* p = m.add_patches(n);
    for (uint32_t k = 0; k < n; ++k) {
      const Patch& t = c.trail[k];
      p[k] = Patch{t.bit, t.width, get_bits(c.s, t.bit, t.width)};
    }
  }
  const uint32_t nt = c.ntags;
  r.ntags = nt;
  if (MAX_TAGS > 0 && MAX_TAGS <= 4) {
    // A fixed count copies without a loop (`start` gives `c.tags` room for MAX_TAGS).
    for (uint32_t i = 0; i < MAX_TAGS; ++i) r.tags[i] = c.tags[i];
  } else if (MAX_TAGS > 0) {
    for (uint32_t i = 0; i < nt; ++i) r.tags[i] = c.tags[i];
  } else {
    // Appended by hand: `vector::insert` costs a call to `memcpy` per move.
    if (m.ntags_ + nt > m.tags_.size()) m.grow_tags(nt);
    r.start = m.ntags_;
    uint32_t* d = m.tags_.data() + m.ntags_;
    m.ntags_ += nt;
    for (uint32_t i = 0; i < nt; ++i) d[i] = c.tags[i];
  }
  if (DYNAMIC_VISIBILITY) {
    if (MAX_TAGS > 0) r.start = static_cast<uint32_t>(m.vis_.size());
    m.vis_.insert(m.vis_.end(), c.vis.begin(), c.vis.begin() + nt);
  }
}

/// The visited set of the current search, cleared on its first use by this search.
inline Seen& seen_of(Cache& c) {
  if (c.level >= c.seen.size()) c.seen.resize(c.level + 1);
  Seen& t = c.seen[c.level];
  if (t.owner != c.search) {
    t.clear();
    t.owner = c.search;
  }
  return t;
}

/// The visited-state check: false when (node, tags of this search, `n` words of key bytes) was
/// seen.
inline bool visit(Cache& c, uint32_t node, const uint8_t* bytes, uint32_t n) {
  const uint32_t nt = c.ntags - c.tagbase;
  const uint32_t len = 1 + (nt + 1) / 2 + n;
  Seen& t = seen_of(c);
  uint64_t* k = t.reserve(len);
  k[0] = (uint64_t(node) << 32) | nt;
  const uint32_t* tg = c.tags.data() + c.tagbase;
  for (uint32_t i = 0; i < nt; i += 2)
    k[1 + i / 2] = tg[i] | (i + 1 < nt ? uint64_t(tg[i + 1]) << 32 : 0);
  if (n) std::memcpy(k + 1 + (nt + 1) / 2, bytes, n * sizeof(uint64_t));
  return t.commit(hash_words(k, len), len);
}

/// Copies byte ranges (`ranges`: start, length pairs) of the state into `nwords` zeroed words.
inline void gather(const Cache& c, uint64_t* w, const uint32_t* ranges, uint32_t nranges,
                   uint32_t nwords) {
  w[nwords - 1] = 0;
  uint8_t* out = reinterpret_cast<uint8_t*>(w);
  for (uint32_t r = 0; r < nranges; ++r) {
    std::memcpy(out, c.s.b + ranges[2 * r], ranges[2 * r + 1]);
    out += ranges[2 * r + 1];
  }
}

/// The visited-state check keyed on some byte ranges of the state (`@repeat`).
inline bool visit_ranges(Cache& c, uint32_t node, const uint32_t* ranges, uint32_t nranges,
                         uint32_t nwords) {
  const uint32_t nt = c.ntags - c.tagbase;
  const uint32_t len = 1 + (nt + 1) / 2 + nwords;
  Seen& t = seen_of(c);
  uint64_t* k = t.reserve(len);
  k[0] = (uint64_t(node) << 32) | nt;
  const uint32_t* tg = c.tags.data() + c.tagbase;
  for (uint32_t i = 0; i < nt; i += 2)
    k[1 + i / 2] = tg[i] | (i + 1 < nt ? uint64_t(tg[i + 1]) << 32 : 0);
  if (nwords) gather(c, k + 1 + (nt + 1) / 2, ranges, nranges, nwords);
  return t.commit(hash_words(k, len), len);
}

/// The visited-state check within the current scope event: false when (node, `n` words of key
/// bytes) was seen in it.
inline bool visit_scoped_set(Cache& c, uint32_t node, uint64_t epoch, const uint64_t* words,
                             const uint32_t* ranges, uint32_t nranges, uint32_t nwords) {
  const uint32_t len = 2 + nwords;
  Seen& t = seen_of(c);
  uint64_t* k = t.reserve(len);
  k[0] = node;
  k[1] = epoch;
  if (words) {
    std::memcpy(k + 2, words, nwords * sizeof(uint64_t));
  } else if (nwords) {
    gather(c, k + 2, ranges, nranges, nwords);
  }
  return t.commit(hash_words(k, len), len);
}

/// Whether the ranges of the state equal the key words `w` (packed as `gather` packs them).
inline bool same_ranges(const Cache& c, const uint64_t* w, const uint32_t* ranges,
                        uint32_t nranges) {
  const uint8_t* at = reinterpret_cast<const uint8_t*>(w);
  for (uint32_t r = 0; r < nranges; ++r) {
    if (std::memcmp(at, c.s.b + ranges[2 * r], ranges[2 * r + 1]) != 0) return false;
    at += ranges[2 * r + 1];
  }
  return true;
}

/// The visited-state check within the current scope event: false when (node, `n` words of key
/// bytes) was seen in it. A node's first states of a scope event are kept in its `FirstSeen`
/// record; only one more than it keeps (or a record of another live event of this search)
/// moves the node's states to the `Seen` set for the rest of the search. Records of earlier
/// searches of this level are stale (their events ended) and are taken over.
inline bool visit_scoped(Cache& c, uint32_t node, const uint32_t* ranges, uint32_t nranges,
                         uint32_t nwords) {
  if (c.level >= c.first.size()) c.first.resize(c.level + 1);
  uint64_t* r = c.first[c.level].slot(node, nwords);
  if (r[1] == c.search) return visit_scoped_set(c, node, c.epoch, nullptr, ranges, nranges, nwords);
  uint64_t* keys = r + 3;
  if (r[0] == c.epoch) {
    for (uint64_t i = 0; i < r[2]; ++i)
      if (same_ranges(c, keys + i * nwords, ranges, nranges)) return false;
    if (r[2] < FirstSeen::first_room(nwords)) {
      if (nwords) gather(c, keys + r[2] * nwords, ranges, nranges, nwords);
      ++r[2];
      return true;
    }
  } else if (r[0] < c.search) {
    r[0] = c.epoch;
    r[2] = 1;
    if (nwords) gather(c, keys, ranges, nranges, nwords);
    return true;
  }
  // More states of this search at this node than the record keeps, or states of two of its
  // scope events: all go to the set from now on.
  for (uint64_t i = 0; i < r[2]; ++i)
    visit_scoped_set(c, node, r[0], keys + i * nwords, ranges, nranges, nwords);
  r[1] = c.search;
  return visit_scoped_set(c, node, c.epoch, nullptr, ranges, nranges, nwords);
}

/// The stamp table of the current nesting level (for searches that can nest in themselves).
inline uint64_t* level_stamps(Cache& c) {
  if (c.level >= c.level_stamps.size()) c.level_stamps.resize(c.level + 1);
  std::vector<uint64_t>& t = c.level_stamps[c.level];
  if (t.size() < STAMP_SLOTS) t.assign(STAMP_SLOTS, 0);
  return t.data();
}

/// A check whose absence would change no result: the visits of the node in the scope event are
/// counted (`st`: epoch, visits) and only from the `LOOP_LIMIT`-th on are states recorded and
/// compared (as `visit_scoped`), which keeps every search finite and polynomial.
inline bool loop_check(Cache& c, uint64_t* st, uint32_t node, const uint32_t* ranges,
                       uint32_t nranges, uint32_t nwords) {
  if (st[0] != c.epoch) {
    st[0] = c.epoch;
    st[1] = 0;
  }
  if (++st[1] < LOOP_LIMIT) return true;
  return visit_scoped(c, node, ranges, nranges, nwords);
}

/// What a nested (reachability) search saves of its caller's.
struct Saved {
  uint32_t tagbase;
  uint64_t epoch;
  uint64_t search;
  bool nondet;
};

/// Starts a nested (reachability) search; `end_search` restores the caller's.
inline Saved begin_search(Cache& c) {
  ++c.level;
  Saved s{c.tagbase, c.epoch, c.search, c.nondet};
  c.tagbase = c.ntags;
  c.epoch = ++c.next_epoch;
  c.search = c.epoch;
  c.nondet = false;
  return s;
}

inline void end_search(Cache& c, Saved s) {
  c.tagbase = s.tagbase;
  c.epoch = s.epoch;
  c.search = s.search;
  c.nondet = s.nondet;
  --c.level;
}

/// Marks a check as running; reports a check that needs itself (in a proper game no
/// reachability check reaches, from its start, the node the checking edge leaves).
struct Guard {
  uint8_t& flag;
  Guard(Cache& c, uint32_t check) : flag(c.active[check]) {
    if (flag) fail("a reachability check reaches the node it is checked from (it needs itself)");
    flag = 1;
  }
  ~Guard() { flag = 0; }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
};

inline uint32_t ld16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t ld32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline void st16(uint8_t* p, uint32_t x) {
  uint16_t v = static_cast<uint16_t>(x);
  std::memcpy(p, &v, 2);
}
inline void st32(uint8_t* p, uint32_t x) { std::memcpy(p, &x, 4); }

}  // namespace detail

inline uint64_t Moves::seen_by(size_t i, size_t k) const {
  if (!DYNAMIC_VISIBILITY) return STATIC_VISIBILITY;
  return vis_[recs_[i].start + k];
}

/// A small, fast, seedable generator (SplitMix64), identical to the one of `rgt run`: the same
/// seed gives the same plays.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    s_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = s_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n), without modulo bias (n > 0): draws until a number below the largest
  /// multiple of n. The multiple is remembered for the last n (plays ask the same n many
  /// times), and n = 1 (the keeper's single move) needs no division: its multiple is
  /// UINT64_MAX. The draws are the same as without these shortcuts.
  size_t below(size_t n) {
    if (n == 1) {
      // `next()` is UINT64_MAX exactly when the advanced seed is this value (its mixing is a
      // bijection): the draw needs no mixing.
      do s_ += 0x9e3779b97f4a7c15ULL;
      while (s_ == 0xcf9a04affa6badc0ULL);
      return 0;
    }
    const uint64_t m = n;
    if (m != zone_of_) {
      zone_of_ = m;
      zone_ = UINT64_MAX - UINT64_MAX % m;
    }
    for (;;) {
      uint64_t x = next();
      if (x < zone_) return static_cast<size_t>(x % m);
    }
  }

 private:
  uint64_t s_;
  uint64_t zone_of_ = 0;  // the n of `zone_` (0: none yet)
  uint64_t zone_ = 0;
};
