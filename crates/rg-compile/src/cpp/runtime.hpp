// ---- Runtime of the generated forward model (the same for every game). ------------------

/// A game state between moves: the node and every variable, packed.
struct State {
  alignas(8) uint8_t b[STATE_BYTES];
  uint32_t node;
};

inline bool same_state(const State& x, const State& y) {
  return x.node == y.node && std::memcmp(x.b, y.b, STATE_BYTES) == 0;
}

/// A condition a proper game never violates failed at run time (rg.md §11): a map written at a
/// key outside its domain, a reachability check that needs itself, too many tags.
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

/// One legal move: its tags, and the state it leads to or the changes that lead there.
struct MoveRec {
  State s;
  uint32_t node;
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
  /// The state after move `i` (only when `keeps_states()`).
  const State& state(size_t i) const { return recs_[i].s; }
  /// Applies move `i` to `s`, the state the moves were listed for (when not `keeps_states()`).
  void apply_changes(State& s, size_t i) const {
    const MoveRec& r = recs_[i];
    for (uint32_t k = 0; k < r.pcount; ++k) {
      const Patch& p = patches_[r.pstart + k];
      detail::set_bits(s, p.bit, p.width, p.value);
    }
    s.node = r.node;
  }
  /// The tags (symbol ids) of move `i`.
  const uint32_t* tags(size_t i) const {
    return MAX_TAGS > 0 ? recs_[i].tags : tags_.data() + recs_[i].start;
  }
  size_t tag_count(size_t i) const { return recs_[i].ntags; }
  /// The node move `i` leads to.
  uint32_t target(size_t i) const { return recs_[i].node; }
  /// Bit `p` is set when player number `p` sees tag `k` of move `i` (rg.md §10, visibility).
  uint64_t seen_by(size_t i, size_t k) const;
  void clear() {
    n_ = 0;
    tags_.clear();
    vis_.clear();
    patches_.clear();
  }

  /// A new record at the end, for the generated search to fill.
  MoveRec& push() {
    if (n_ == recs_.size()) recs_.resize(recs_.size() * 2 + 16);
    return recs_[n_++];
  }
  std::vector<MoveRec> recs_;
  size_t n_ = 0;
  bool keep_states_ = false;
  std::vector<uint32_t> tags_;
  std::vector<uint64_t> vis_;
  std::vector<Patch> patches_;
};

namespace detail {

inline uint64_t mix(uint64_t h, uint64_t w) {
  h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

/// The visited-state set of one search (rg.md §12.6): keys of 64-bit words, cleared in O(1).
class Seen {
 public:
  void clear() {
    if (++gen_ == 0) {
      std::fill(tgen_.begin(), tgen_.end(), 0u);
      gen_ = 1;
    }
    hashes_.clear();
    starts_.clear();
    arena_.clear();
  }

  /// Inserts the key; false when it was there.
  bool insert(uint64_t h, const uint64_t* key, uint32_t n) {
    if ((hashes_.size() + 1) * 2 > tgen_.size()) grow();
    size_t mask = tgen_.size() - 1;
    size_t i = h & mask;
    while (tgen_[i] == gen_) {
      uint32_t e = tidx_[i];
      if (hashes_[e] == h && length(e) == n &&
          std::memcmp(arena_.data() + starts_[e], key, n * sizeof(uint64_t)) == 0)
        return false;
      i = (i + 1) & mask;
    }
    tgen_[i] = gen_;
    tidx_[i] = static_cast<uint32_t>(hashes_.size());
    hashes_.push_back(h);
    starts_.push_back(static_cast<uint32_t>(arena_.size()));
    arena_.insert(arena_.end(), key, key + n);
    return true;
  }

 private:
  uint32_t length(uint32_t e) const {
    uint32_t end = e + 1 < starts_.size() ? starts_[e + 1] : static_cast<uint32_t>(arena_.size());
    return end - starts_[e];
  }

  void grow() {
    size_t size = tgen_.empty() ? 64 : tgen_.size() * 2;
    tgen_.assign(size, 0u);
    tidx_.assign(size, 0u);
    if (gen_ == 0) gen_ = 1;
    size_t mask = size - 1;
    for (uint32_t e = 0; e < hashes_.size(); ++e) {
      size_t i = hashes_[e] & mask;
      while (tgen_[i] == gen_) i = (i + 1) & mask;
      tgen_[i] = gen_;
      tidx_[i] = e;
    }
  }

  std::vector<uint32_t> tgen_, tidx_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> starts_;
  std::vector<uint64_t> arena_;
  uint32_t gen_ = 1;
};

}  // namespace detail

/// Reusable search buffers (the visited-state sets, the tags of the walk). One per thread.
class Cache {
 public:
  Cache() : seen(4) {}

  // Used by the generated search.
  State s;
  Moves* out = nullptr;
  std::vector<detail::Seen> seen;
  uint32_t level = 0;
  std::vector<uint32_t> tags;  // the tags of the walk: the first `ntags`
  uint32_t ntags = 0;
  std::vector<uint64_t> vis;
  uint32_t tagbase = 0;
  // The current scope event (a search start or a tag edge taken) and the last number given out;
  // a stamp table entry holds the scope event that last expanded its (node, key) state.
  uint64_t epoch = 0;
  uint64_t next_epoch = 0;
  // Whether the current scope may share its tags with another (then the interpreter's key is
  // used for visited-state checks).
  bool nondet = false;
  std::vector<uint64_t> stamps;
  std::vector<uint64_t> key;
  std::vector<uint8_t> active;
  // Applying a move: its tags.
  const uint32_t* goal = nullptr;
  uint32_t goal_n = 0;
  uint32_t goal_skip = 0;
  bool trusted = false;
  // The locations the walk of a move search has assigned (values unused), the first `ntrail`.
  std::vector<Patch> trail;
  uint32_t ntrail = 0;
};

namespace detail {

constexpr size_t TAG_LIMIT = size_t(1) << 16;

[[noreturn]] void fail(const char* what);

/// The scope a tag edge leaves, restored by `pop_tag`.
struct Scope {
  uint64_t epoch;
  bool nondet;
};

/// Appends a tag: a new scope event begins; `shared` when it may have the tags of another.
inline Scope push_tag(Cache& c, uint32_t t, uint64_t vis, bool shared) {
  if (c.ntags == c.tags.size()) {
    if (c.ntags >= TAG_LIMIT) fail("a walk collects more than 65536 tags (a cycle through tag edges)");
    c.tags.resize(c.tags.size() * 2 + 8);
    if (DYNAMIC_VISIBILITY) c.vis.resize(c.tags.size());
  }
  if (DYNAMIC_VISIBILITY) c.vis[c.ntags] = vis;
  c.tags[c.ntags++] = t;
  Scope scope{c.epoch, c.nondet};
  c.epoch = ++c.next_epoch;
  c.nondet = shared;
  return scope;
}

inline void pop_tag(Cache& c, Scope scope) {
  --c.ntags;
  c.epoch = scope.epoch;
  c.nondet = scope.nondet;
}

/// Notes that the walk has assigned `width` bits at `bit` (undone with `--c.ntrail`).
inline void trail_push(Cache& c, uint32_t bit, uint32_t width) {
  if (c.ntrail == c.trail.size()) c.trail.resize(c.trail.size() * 2 + 16);
  c.trail[c.ntrail].bit = bit;
  c.trail[c.ntrail++].width = width;
}

/// Records the walk's current state, with `player` set to `player`, as a finished move at
/// `node`: the whole state, or what the walk changed.
inline void emit(Cache& c, uint32_t node, uint32_t player) {
  Moves& m = *c.out;
  MoveRec& r = m.push();
  r.node = node;
  if (m.keep_states_) {
    r.s = c.s;
    r.s.node = node;
    set_bits(r.s, PLAYER_BIT, PLAYER_WIDTH, player);
  } else {
    r.pstart = static_cast<uint32_t>(m.patches_.size());
    for (uint32_t k = 0; k < c.ntrail; ++k) {
      const Patch& t = c.trail[k];
      m.patches_.push_back(Patch{t.bit, t.width, get_bits(c.s, t.bit, t.width)});
    }
    if (PLAYER_WIDTH > 0) m.patches_.push_back(Patch{PLAYER_BIT, PLAYER_WIDTH, player});
    r.pcount = static_cast<uint32_t>(m.patches_.size()) - r.pstart;
  }
  const uint32_t nt = c.ntags;
  r.ntags = nt;
  if (MAX_TAGS > 0) {
    for (uint32_t i = 0; i < nt; ++i) r.tags[i] = c.tags[i];
  } else {
    r.start = static_cast<uint32_t>(m.tags_.size());
    m.tags_.insert(m.tags_.end(), c.tags.begin(), c.tags.begin() + nt);
  }
  if (DYNAMIC_VISIBILITY) {
    if (MAX_TAGS > 0) r.start = static_cast<uint32_t>(m.vis_.size());
    m.vis_.insert(m.vis_.end(), c.vis.begin(), c.vis.begin() + nt);
  }
}

/// The visited-state check: false when (node, tags of this search, `n` words of key bytes) was
/// seen.
inline bool visit(Cache& c, uint32_t node, const uint8_t* bytes, uint32_t n) {
  uint32_t nt = c.ntags - c.tagbase;
  uint32_t len = 1 + (nt + 1) / 2 + n;
  if (c.key.size() < len) c.key.resize(len);
  uint64_t* k = c.key.data();
  k[0] = (uint64_t(node) << 32) | nt;
  uint64_t h = mix(0x8f1bbcdcbfa53e0bULL, k[0]);
  const uint32_t* t = c.tags.data() + c.tagbase;
  for (uint32_t i = 0; i < nt; i += 2) {
    uint64_t w = t[i] | (i + 1 < nt ? uint64_t(t[i + 1]) << 32 : 0);
    k[1 + i / 2] = w;
    h = mix(h, w);
  }
  uint64_t* kw = k + 1 + (nt + 1) / 2;
  if (n) std::memcpy(kw, bytes, n * sizeof(uint64_t));
  for (uint32_t i = 0; i < n; ++i) h = mix(h, kw[i]);
  return c.seen[c.level].insert(h ^ (h >> 32), k, len);
}

/// The visited-state check keyed on some byte ranges of the state (`@repeat`).
inline bool visit_ranges(Cache& c, uint32_t node, const uint32_t* ranges, uint32_t nranges,
                         uint32_t nwords) {
  uint8_t buf[512];
  std::vector<uint8_t> big;
  uint8_t* w = buf;
  if (nwords > 64) {
    big.assign(size_t(nwords) * 8, 0);
    w = big.data();
  } else {
    std::memset(buf, 0, size_t(nwords) * 8);
  }
  uint8_t* out = w;
  for (uint32_t r = 0; r < nranges; ++r) {
    std::memcpy(out, c.s.b + ranges[2 * r], ranges[2 * r + 1]);
    out += ranges[2 * r + 1];
  }
  return visit(c, node, w, nwords);
}

/// The visited-state check within the current scope event: false when (node, `n` words of key
/// bytes) was seen in it.
inline bool visit_scoped(Cache& c, uint32_t node, const uint32_t* ranges, uint32_t nranges,
                         uint32_t nwords) {
  uint32_t len = 2 + nwords;
  if (c.key.size() < len) c.key.resize(len);
  uint64_t* k = c.key.data();
  std::memset(k, 0, len * sizeof(uint64_t));
  k[0] = node;
  k[1] = c.epoch;
  uint8_t* out = reinterpret_cast<uint8_t*>(k + 2);
  for (uint32_t r = 0; r < nranges; ++r) {
    std::memcpy(out, c.s.b + ranges[2 * r], ranges[2 * r + 1]);
    out += ranges[2 * r + 1];
  }
  uint64_t h = 0x8f1bbcdcbfa53e0bULL;
  for (uint32_t i = 0; i < len; ++i) h = mix(h, k[i]);
  return c.seen[c.level].insert(h ^ (h >> 32), k, len);
}

/// What a nested (reachability) search saves of its caller's.
struct Saved {
  uint32_t tagbase;
  uint64_t epoch;
  bool nondet;
};

/// Starts a nested (reachability) search; `end_search` restores the caller's.
inline Saved begin_search(Cache& c) {
  ++c.level;
  if (c.level >= c.seen.size()) c.seen.resize(c.level + 1);
  c.seen[c.level].clear();
  Saved s{c.tagbase, c.epoch, c.nondet};
  c.tagbase = c.ntags;
  c.epoch = ++c.next_epoch;
  c.nondet = false;
  return s;
}

inline void end_search(Cache& c, Saved s) {
  c.tagbase = s.tagbase;
  c.epoch = s.epoch;
  c.nondet = s.nondet;
  --c.level;
}

/// Marks a check as running; reports a check that needs itself (rg.md §11, condition 1).
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
  /// Uniform in [0, n), without modulo bias (n > 0).
  size_t below(size_t n) {
    uint64_t m = n;
    uint64_t zone = UINT64_MAX - UINT64_MAX % m;
    for (;;) {
      uint64_t x = next();
      if (x < zone) return static_cast<size_t>(x % m);
    }
  }

 private:
  uint64_t s_;
};
