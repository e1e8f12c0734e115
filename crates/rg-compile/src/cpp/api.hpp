// ---- The forward model: states, legal moves, applying moves, goals. -----------------------

/// The initial state: `begin`, every variable at its initial value.
State initial_state();

/// Whether the play is over (the state is at `end`).
inline bool is_terminal(const State& s) { return s.node == END_NODE; }

/// The symbol id of the value of `player`: a player, `KEEPER` or `RANDOM`.
inline uint32_t current_player(const State& s) {
  return PLAYER_SYMBOLS[detail::get_bits(s, PLAYER_BIT, PLAYER_WIDTH)];
}
inline bool is_keeper(const State& s) { return current_player(s) == KEEPER; }
inline bool is_random(const State& s) { return current_player(s) == RANDOM; }

/// Fills `out` with the legal moves of `s` in the interpreter's order (its depth-first search's,
/// edges of a node in edge-list order, the last pushed walk first):
/// each move's tags and what `apply` needs, as cheaply as possible: the state its walk reached
/// (small states) or what the walk changed, and a move whose walk ends in checks that only
/// decide where it leads is left pending before them (`apply` evaluates them). Throws
/// RuntimeError when the game does something a proper game never does.
void legal_moves(const State& s, Moves& out, Cache& cache);

/// As `legal_moves`, and records the whole state each move leads to (`out.state(i)`), every
/// move finished: what perft and tree searches that keep many children want.
void legal_moves_and_states(const State& s, Moves& out, Cache& cache);

namespace detail {
/// Lists the moves recording states (else changes), leaving moves pending when `lazy`.
void list_moves(const State& s, Moves& out, Cache& cache, bool keep_states, bool lazy);
/// Lists the moves recording only their tags: `apply` searches the chosen one again.
void list_tags(const State& s, Moves& out, Cache& cache);
}  // namespace detail

/// The number of legal moves of `s`, found without listing them: with `apply_nth`, the cheap
/// way to play one random move in games whose moves are cheap to find.
size_t count_moves(const State& s, Cache& cache);

/// Applies move `k` (in the interpreter's order, as `legal_moves` lists them) of the
/// `count_moves(s)` legal moves of `s` to `s`.
void apply_nth(State& s, size_t k, Cache& cache);

/// Applies move `i` of `moves`, the legal moves of `s`, to `s`.
void apply(State& s, const Moves& moves, size_t i, Cache& cache);

/// As `apply`, by searching `s` again for the walk of move `i` (the path `apply_tags` takes,
/// using `@simpleApply` shortcuts); mainly a cross-check of the other two.
void apply_replayed(State& s, const Moves& moves, size_t i, Cache& cache);

/// Whether the move search from `s` is proven to find at most one move (a single walk without
/// tags, as the keeper's searches usually are).
bool has_single_move(const State& s);

/// Applies the only move of `s` (requires `has_single_move(s)`); false when `s` has no move.
/// Cheaper than listing the moves: the walk's state becomes `s` directly.
bool apply_only_move(State& s, Cache& cache);

/// Applies the first move of `s` in the interpreter's order; false when `s` has no move. In a
/// proper game the keeper has exactly one move, so for the keeper this is its move, found
/// without listing the others (whether there are others only listing tells).
bool apply_first_move(State& s, Cache& cache);

/// Applies the keeper's moves from `s` as `apply_first_move` does, one after another while the
/// keeper moves, at most `limit` of them; returns how many it applied (0 when `s` is not the
/// keeper's or has no move). Cheaper than a call per move: the search buffers hold the state
/// between the moves.
uint64_t apply_keeper_moves(State& s, uint64_t limit, Cache& cache);

/// A play that counts and applies moves one after another can keep its state in the cache's
/// search buffer (`hold_state`) and count and apply there: each search then starts from the
/// state the previous one left, with no copy into the buffer and out of it per call (a copy
/// out right after a walk's byte stores waits for them, see `copy_state`). The held state is
/// `held_state(cache)`; any other search with the cache (listing, counting or applying on a
/// `State`) replaces it. `count_held_moves`, `apply_nth_held` and `apply_held_keeper_moves`
/// are `count_moves`, `apply_nth` and `apply_keeper_moves` of the held state.
inline void hold_state(const State& s, Cache& cache) { detail::copy_state(cache.s, s); }
inline const State& held_state(const Cache& cache) { return cache.s; }
size_t count_held_moves(Cache& cache);
void apply_nth_held(size_t k, Cache& cache);
uint64_t apply_held_keeper_moves(uint64_t limit, Cache& cache);

/// Applies the first legal move, in the interpreter's order, whose tags are `tags`; false (and
/// `s` unchanged) when none is legal.
bool apply_tags(State& s, const uint32_t* tags, size_t n, Cache& cache);

/// The probability of each legal move of a state where `random` moves: uniform over
/// the list, so a move listed twice is twice as likely. Writes one probability per move.
void random_probabilities(const Moves& moves, std::vector<double>& out);

/// Players (the keys of `goals`), numbered 0..NUM_PLAYERS-1.
uint32_t player_symbol(uint32_t p);
/// The number of player `p` of the player symbol `sym`, or -1.
int32_t player_number(uint32_t sym);
/// The value of `goals[p]` (a symbol id) and, when that symbol is a number, its value (else NaN).
uint32_t goal_symbol(const State& s, uint32_t p);
double goal_value(const State& s, uint32_t p);
/// `goals` printed as the interpreter prints it (a map as its default, then its stored entries
/// sorted by key; a symbol bare), e.g. `{ :0, black: 100 }`.
std::string goals_text(const State& s);

/// The node and every variable, one per line.
std::string describe(const State& s);

/// Names of symbols and nodes; `find_symbol` returns -1 for an unknown name.
const char* symbol_name(uint32_t sym);
int64_t find_symbol(const char* name);
const char* node_name(uint32_t node);

/// The name of the game and a fingerprint of the compiled description.
extern const char* const GAME_NAME;
extern const char* const GAME_FINGERPRINT;
