"""rgt games as OpenSpiel games: registration, game types, OpenSpiel's own MCTS and random
bots playing complete games, and the counts of OpenSpiel's hand-written games against ours."""

import os

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import rgt  # noqa: E402
import rgt.openspiel  # noqa: E402
from conftest import CHANCE_GAME, EXAMPLES, HIDDEN_GAME, corpus_file  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

GameType = pyspiel.GameType


def test_load_game_by_name_with_a_path():
    game = pyspiel.load_game("rgt", {"path": str(EXAMPLES / "nim.rg")})
    kind = game.get_type()
    assert kind.dynamics == GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == GameType.ChanceMode.DETERMINISTIC
    assert kind.information == GameType.Information.PERFECT_INFORMATION
    assert kind.reward_model == GameType.RewardModel.TERMINAL
    assert game.num_players() == 2
    assert game.num_distinct_actions() == rgt.load(EXAMPLES / "nim.rg").num_distinct_actions()
    assert (game.min_utility(), game.max_utility()) == (0.0, 100.0)


def test_chance_and_hidden_information_set_the_game_type():
    chance = pyspiel.load_game("rgt", {"text": CHANCE_GAME, "language": "rg", "optimize": 0})
    assert chance.get_type().chance_mode == GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = chance.new_initial_state()
    assert state.is_chance_node()
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    hidden = rgt.openspiel.load_game(HIDDEN_GAME, language="rg")
    assert hidden.get_type().information == GameType.Information.IMPERFECT_INFORMATION
    state = hidden.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.observation_string(0) != state.observation_string(1)
    assert state.information_state_string(1) == state.observation_string(1)


def play_mcts_against_random(game, evaluator, simulations=20, seed=1):
    """One complete game of MCTS (player 0) against a random bot; the final returns."""
    rs = np.random.RandomState(seed)
    bots = [
        mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=rs, solve=False),
        pyspiel.make_uniform_random_bot(1, seed),
    ]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)
    assert len(returns) == 2
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    return returns


def test_mcts_with_openspiels_own_evaluator_plays_nim():
    game = pyspiel.load_game("rgt", {"path": str(EXAMPLES / "nim.rg")})
    evaluator = mcts.RandomRolloutEvaluator(2, np.random.RandomState(3))
    # Nim is won by the first player with perfect play; 200 simulations find it.
    assert play_mcts_against_random(game, evaluator, simulations=200) == [100.0, 0.0]


@pytest.mark.parametrize("name", ["alquerque.lg", "pretwa.lg"])
def test_mcts_with_rust_rollouts_plays_linegames(name):
    game = rgt.openspiel.load_game(EXAMPLES / "linegames" / name)
    play_mcts_against_random(game, rgt.openspiel.RolloutEvaluator(4, seed=5))


# Corpus games of every language; each skips visibly when the corpus is absent.
CORPUS_GAMES = [
    "kif/rg-suite/ticTacToe.kif",
    "kif/rg-suite/connect4.kif",
    "hrg/connect4.hrg",
    "hrg/breakthrough.hrg",
    "rbg/hl/ticTacToe.rbg",
    "rbg/hl/connect4.rbg",
    "rg/ticTacToe.rg",
]


@pytest.mark.parametrize("relative", CORPUS_GAMES)
def test_mcts_against_random_on_corpus_games(relative):
    game = rgt.openspiel.load_game(corpus_file(relative))
    play_mcts_against_random(game, rgt.openspiel.RolloutEvaluator(2, seed=11), simulations=10)


def spiel_perft(state, depth, key=None, memo=None):
    """Perft over an OpenSpiel state; the last ply counts legal actions (chance outcomes).

    With `key`, subtrees are counted once per distinct `key(state)` and depth (a transposition
    table): valid only where the key determines the whole future of the game."""
    if state.is_terminal():
        return 0
    moves = state.chance_outcomes() if state.is_chance_node() else state.legal_actions()
    if depth == 1:
        return len(moves)
    if key is not None:
        seen = (key(state), depth)
        if seen in memo:
            return memo[seen]
    total = 0
    for m in moves:
        a = m[0] if isinstance(m, tuple) else m
        total += spiel_perft(state.child(a), depth - 1, key, memo)
    if key is not None:
        memo[seen] = total
    return total


def rgt_perft(state, depth, memo, native=2):
    """Perft over an rgt state with a transposition table (an rgt state's hash and equality are
    its whole position), counted by `State.perft` in Rust from `native` plies to the end."""
    if depth <= native or state.is_terminal():
        return state.perft(depth)
    seen = (state, depth)
    if seen not in memo:
        memo[seen] = sum(rgt_perft(state.child(a), depth - 1, memo) for a in state.legal_actions())
    return memo[seen]


def whole_board(state):
    """Pentago's whole state in OpenSpiel: the board (its string) and the player to move."""
    return (str(state), state.current_player())


DEEP = pytest.mark.skipif(
    not os.environ.get("RGT_DEEP_CHECKS"),
    reason="a deep cross-check (minutes): set RGT_DEEP_CHECKS=1 to run it",
)

# OpenSpiel's hand-written game, our translation of it, the depth compared, and the key of the
# transposition table used on OpenSpiel's side (None: the plain tree walk).
CROSS_CHECKS = [
    ("connect_four", "hrg/connect4.hrg", 5, None),
    ("breakthrough", "hrg/breakthrough.hrg", 4, None),
    ("chess", "hrg/chess.hrg", 4, None),
    ("chess", "rbg/hl/chess.rbg", 4, None),
    # 21 934 080 leaves at depth 3 and 5 790 597 120 at depth 4: counted through transpositions
    # (a pentago position is reached by many move orders). Depth 4 takes about 10 CPU minutes
    # (our side: its translation keeps more than the board, so fewer positions coincide).
    ("pentago", "hrg/pentago.hrg", 3, whole_board),
    pytest.param("pentago", "hrg/pentago.hrg", 4, whole_board, marks=DEEP),
    ("oware", "hrg/oware.hrg", 5, None),
    ("checkers", "hrg/englishDraughts.hrg", 5, None),
]


@pytest.mark.parametrize("spiel, relative, depth, key", CROSS_CHECKS)
def test_openspiel_counts_equal_ours(spiel, relative, depth, key):
    ours = rgt.load(corpus_file(relative)).new_initial_state()
    theirs = pyspiel.load_game(spiel).new_initial_state()
    ours_memo, theirs_memo = {}, {}
    for d in range(1, depth + 1):
        counted = rgt_perft(ours, d, ours_memo) if key else ours.perft(d)
        assert counted == spiel_perft(theirs, d, key, theirs_memo), (spiel, relative, d)


def test_the_readme_example_runs():
    """README's ten-line example, on the corpus's tic-tac-toe in KIF."""
    readme = (EXAMPLES.parent / "README.md").read_text()
    start = readme.index("```python\n", readme.index("## Python")) + len("```python\n")
    code = readme[start : readme.index("```", start)]
    assert '"ticTacToe.kif"' in code
    path = corpus_file("kif/rg-suite/ticTacToe.kif")
    scope = {}
    exec(code.replace('"ticTacToe.kif"', repr(str(path)), 1), scope)
    assert isinstance(scope["game"], rgt.openspiel.RgtGame)
