"""The Python API: loading, states, stable action ids, chance, keeper, visibility, goals,
perft and rollouts, on the bundled examples and games written here."""

import random
import threading

import pytest

import rgt
from conftest import CHANCE_GAME, EXAMPLES, HIDDEN_GAME, TWO_KEEPER_MOVES

NIM = EXAMPLES / "nim.rg"
LINEGAMES = ["alquerque.lg", "dashGuti.lg", "pretwa.lg", "lauKataKati.lg"]


def test_load_a_file_and_describe_the_game():
    game = rgt.load(NIM)
    assert game.players == ["alice", "bob"]
    assert game.num_players() == 2
    assert game.language == "rg"
    assert game.perfect_information and not game.has_chance
    assert (game.min_utility(), game.max_utility()) == (0.0, 100.0)
    assert game.stats()["edges"] > 0
    assert "type Player" in game.to_rg()
    # The same game from a str path and from its text.
    assert rgt.load(str(NIM)).to_rg() == game.to_rg()
    assert rgt.load(NIM.read_text(), language="rg").to_rg() == game.to_rg()


def test_errors_carry_code_line_and_column():
    with pytest.raises(rgt.GameError) as e:
        rgt.load("type Player = { a };\nbegin, end: bogus;", language="rg")
    err = e.value
    assert err.code == "rg::parse::unexpected_token"
    assert (err.line, err.column) == (2, 18)
    assert "unexpected" in err.message
    assert err.diagnostics[0]["code"] == err.code
    assert "bogus" in err.rendered
    with pytest.raises(rgt.GameError) as e:
        rgt.load("no/such/game.hrg")
    assert "cannot read" in str(e.value)
    with pytest.raises(ValueError):
        rgt.load(NIM, language="cobol")
    with pytest.raises(ValueError):
        rgt.load(NIM, optimize=3)


def test_keeper_moves_are_applied_and_players_alternate():
    state = rgt.load(NIM).new_initial_state()
    assert state.current_player() == 0  # the keeper's opening move is already made
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    assert state.move_number() == 1


# Games whose moves have a finite alphabet, and games with capture chains of any length.
WITH_ALPHABET = [NIM] + [EXAMPLES / "linegames" / n for n in ["alquerque_lud.lg", "pretwa_lud.lg"]]
WITHOUT_ALPHABET = [EXAMPLES / "linegames" / n for n in ["alquerque.lg", "pretwa.lg"]]


def test_finite_move_alphabets_are_found():
    for path in WITH_ALPHABET:
        assert rgt.load(path).num_distinct_actions() is not None, path
    for path in WITHOUT_ALPHABET:
        assert rgt.load(path).num_distinct_actions() is None, path


def test_action_ids_mean_the_same_move_in_every_state():
    for path in WITH_ALPHABET + WITHOUT_ALPHABET:
        game = rgt.load(path)
        alphabet = game.num_distinct_actions()
        meaning = {}
        rng = random.Random(7)
        for _ in range(5):
            state = game.new_initial_state()
            while not state.is_terminal():
                actions = state.legal_actions()
                assert actions == sorted(set(actions))
                for a, m in zip(actions, state.legal_moves()):
                    assert a < game.num_actions_known()
                    assert meaning.setdefault(a, m) == m
                    assert game.action_to_string(a) == m
                state.apply_action(rng.choice(actions))
        # With an alphabet every move is in it; without, ids are handed out as moves are met.
        if alphabet is not None:
            assert game.num_actions_known() == alphabet
        else:
            assert game.num_actions_known() == len(meaning)


def test_illegal_actions_are_refused():
    state = rgt.load(NIM).new_initial_state()
    bad = max(state.legal_actions()) + 1
    with pytest.raises(ValueError):
        state.apply_action(bad)
    with pytest.raises(ValueError):
        state.observation_string(2)


def test_clone_and_child_leave_the_state_alone():
    state = rgt.load(NIM).new_initial_state()
    before = str(state)
    a = state.legal_actions()[0]
    child = state.child(a)
    copy = state.clone()
    copy.apply_action(a)
    assert str(state) == before
    assert child == copy and hash(child) == hash(copy)
    assert child != state
    assert child.history() == [a]


@pytest.mark.parametrize("optimize", [0, 2])
def test_chance_nodes_have_outcome_probabilities(optimize):
    game = rgt.load(CHANCE_GAME, language="rg", optimize=optimize)
    assert game.has_chance
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == -1
    outcomes = dict(
        (game.action_to_string(a), p) for a, p in state.chance_outcomes()
    )
    assert outcomes == pytest.approx({"h": 1 / 3, "t": 2 / 3})
    results = {}
    for a, _ in state.chance_outcomes():
        child = state.child(a)
        assert child.current_player() == 0
        child.apply_action(child.legal_actions()[0])
        assert child.is_terminal() and child.current_player() == -4
        results[game.action_to_string(a)] = child.returns()
    assert results == {"h": [100.0], "t": [50.0]}


def test_observations_follow_visibility():
    game = rgt.load(HIDDEN_GAME, language="rg", optimize=0)
    assert not game.perfect_information
    state = game.new_initial_state()
    moves = state.legal_moves()
    assert sorted(moves) == ["x", "y"]
    state.apply_action(state.legal_actions()[moves.index("y")])
    seen_a, seen_b = state.observation_string(0), state.observation_string(1)
    assert "y" in seen_a and "y" not in seen_b
    state.apply_action(state.legal_actions()[state.legal_moves().index("x")])
    assert state.is_terminal()
    assert state.returns() == [100.0, 0.0]
    assert "/x/" in state.observation_string(1)


def test_improper_games_raise_play_error():
    game = rgt.load(TWO_KEEPER_MOVES, language="rg", optimize=0)
    with pytest.raises(rgt.PlayError, match="keeper had 2 moves"):
        game.new_initial_state()


@pytest.mark.parametrize(
    "name, depth",
    [("nim.rg", 6)] + [("linegames/" + n, 2) for n in LINEGAMES],
)
def test_perft_through_the_api_equals_the_interpreter(name, depth):
    state = rgt.load(EXAMPLES / name).new_initial_state()
    for d in range(depth + 1):
        assert rgt.perft(state, d) == state.perft(d), (name, d)


def test_perft_of_games_written_here():
    chance = rgt.load(CHANCE_GAME, language="rg").new_initial_state()
    assert [rgt.perft(chance, d) for d in range(3)] == [1, 2, 2]
    assert [chance.perft(d) for d in range(3)] == [1, 2, 2]
    hidden = rgt.load(HIDDEN_GAME, language="rg").new_initial_state()
    assert [rgt.perft(hidden, d) for d in range(3)] == [1, 2, 4]
    assert [hidden.perft(d) for d in range(3)] == [1, 2, 4]


def test_the_rg_text_of_a_game_is_the_same_game():
    game = rgt.load(EXAMPLES / "linegames" / "alquerque.lg")
    again = rgt.load(game.to_rg(), language="rg")
    a, b = game.new_initial_state(), again.new_initial_state()
    assert [a.perft(d) for d in range(4)] == [b.perft(d) for d in range(4)]


def test_rollouts_are_seeded_and_count_every_play():
    game = rgt.load(NIM)
    one = game.rollouts(500, seed=3)
    assert one == {**game.rollouts(500, seed=3), "seconds": one["seconds"]}
    assert one["plays"] == 500 and sum(one["goals"].values()) == 500
    assert one["returns"] == pytest.approx(
        [100 * one["goals"].get("{ :0, alice: 100 }", 0) / 500,
         100 * one["goals"].get("{ :0, bob: 100 }", 0) / 500]
    )
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.rollouts(50, seed=1)["plays"] == 50


def test_rollouts_from_threads_agree_with_sequential_ones():
    game = rgt.load(EXAMPLES / "linegames" / "alquerque.lg")
    want = [game.rollouts(20, seed=s)["goals"] for s in range(4)]
    got = [None] * 4

    def run(s):
        got[s] = game.rollouts(20, seed=s)["goals"]

    threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want
