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

/// The legal moves of a state, in the interpreter's order (duplicates kept): for each, its tags
/// and the state it leads to. Reuse one object: clearing keeps the buffers.
class Moves {
 public:
  size_t size() const { return states_.size(); }
  bool empty() const { return states_.empty(); }
  /// The state after move `i`.
  const State& state(size_t i) const { return states_[i]; }
  /// The tags (symbol ids) of move `i`.
  const uint32_t* tags(size_t i) const { return tags_.data() + begin(i); }
  size_t tag_count(size_t i) const { return ends_[i] - begin(i); }
  /// Bit `p` is set when player number `p` sees tag `k` of move `i` (rg.md §10, visibility).
  uint64_t seen_by(size_t i, size_t k) const;
  void clear() {
    states_.clear();
    tags_.clear();
    ends_.clear();
    vis_.clear();
  }

  // Filled by the generated search.
  std::vector<State> states_;
  std::vector<uint32_t> tags_;
  std::vector<uint32_t> ends_;
  std::vector<uint64_t> vis_;

 private:
  size_t begin(size_t i) const { return i == 0 ? 0 : ends_[i - 1]; }
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
  Cache() : seen(4), th(1, 0x51ed270b27a1f3c5ULL) {}

  // Used by the generated search.
  State s;
  Moves* out = nullptr;
  std::vector<detail::Seen> seen;
  uint32_t level = 0;
  std::vector<uint32_t> tags;
  std::vector<uint64_t> th;  // hash of the first k tags, k = 0..tags.size()
  std::vector<uint64_t> vis;
  uint32_t tagbase = 0;
  std::vector<uint64_t> key;
  std::vector<uint8_t> active;
  Moves scratch;
};

namespace detail {

constexpr size_t TAG_LIMIT = size_t(1) << 16;

[[noreturn]] void fail(const char* what);

inline void push_tag(Cache& c, uint32_t t, uint64_t vis) {
  if (c.tags.size() >= TAG_LIMIT) fail("a walk collects more than 65536 tags (a cycle through tag edges)");
  c.tags.push_back(t);
  c.th.push_back(mix(c.th.back(), t));
  if (DYNAMIC_VISIBILITY) c.vis.push_back(vis);
}

inline void pop_tag(Cache& c) {
  c.tags.pop_back();
  c.th.pop_back();
  if (DYNAMIC_VISIBILITY) c.vis.pop_back();
}

/// Records the walk's current state as a finished move at `node`; the caller then applies the
/// assignment to `player` to the returned copy.
inline State& emit(Cache& c, uint32_t node) {
  Moves& m = *c.out;
  m.states_.push_back(c.s);
  State& n = m.states_.back();
  n.node = node;
  m.tags_.insert(m.tags_.end(), c.tags.begin(), c.tags.end());
  m.ends_.push_back(static_cast<uint32_t>(m.tags_.size()));
  if (DYNAMIC_VISIBILITY) m.vis_.insert(m.vis_.end(), c.vis.begin(), c.vis.end());
  return n;
}

/// The visited-state check: false when (node, tags of this search, `n` words of key bytes) was
/// seen.
inline bool visit(Cache& c, uint32_t node, const uint8_t* bytes, uint32_t n) {
  uint32_t nt = static_cast<uint32_t>(c.tags.size()) - c.tagbase;
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

/// Starts a nested (reachability) search; `end_search` restores the caller's.
inline uint32_t begin_search(Cache& c) {
  ++c.level;
  if (c.level >= c.seen.size()) c.seen.resize(c.level + 1);
  c.seen[c.level].clear();
  uint32_t tb = c.tagbase;
  c.tagbase = static_cast<uint32_t>(c.tags.size());
  return tb;
}

inline void end_search(Cache& c, uint32_t tb) {
  c.tagbase = tb;
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
  return vis_[begin(i) + k];
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
