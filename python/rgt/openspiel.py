"""Any game ``rgt`` loads, as an OpenSpiel game.

Importing this module registers the game ``"rgt"`` with ``pyspiel``; its parameters say which
game to load::

    import pyspiel
    import rgt.openspiel
    game = pyspiel.load_game("rgt", {"path": "examples/nim.rg"})
    # or, for a game already loaded (or a text): rgt.openspiel.load_game("chess.hrg")

Parameters: ``path`` (a game file) or ``text`` (the game itself), ``language`` (``rg``,
``hrg``, ``rbg``, ``kif``, ``lg``; needed for a text that is not RG), ``optimize`` (0, 1, 2),
``max_game_length`` (OpenSpiel wants a bound; RG does not state one, so the default is the
interpreter's limit on the length of a play, 1 000 000 moves) and ``num_distinct_actions``
(only for games without a finite move alphabet, see below).

The game type follows the game: sequential, explicit chance when ``random`` ever moves
(outcome probabilities are uniform over the interpreter's moves), perfect information when no
tag is ever hidden (RG's ``visible``), imperfect otherwise, general-sum utility with terminal
rewards (RG states no utility sum). Observations and information states are strings: the
moves so far as the player saw them.

Action ids are the game-wide ids of ``rgt.State.legal_actions``. When the game's move alphabet
is finite (the usual case) ``num_distinct_actions`` is its size; otherwise ids are handed out
as moves are first met and the game reports ``num_distinct_actions`` from the parameter of that
name (default ``rgt.ALPHABET_LIMIT``); a game that meets more moves than that raises
``rgt.PlayError``.
"""

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import rgt

MAX_GAME_LENGTH = 1_000_000

_PARAMS = {
    "path": "",
    "text": "",
    "language": "",
    "optimize": 2,
    "max_game_length": MAX_GAME_LENGTH,
    "num_distinct_actions": rgt.ALPHABET_LIMIT,
}


def _game_type(num_players, chance, perfect):
    return pyspiel.GameType(
        short_name="rgt",
        long_name="rgt: a General Game Playing game (GDL, RBG, HRG, LineGames, RG)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            if chance
            else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=(
            pyspiel.GameType.Information.PERFECT_INFORMATION
            if perfect
            else pyspiel.GameType.Information.IMPERFECT_INFORMATION
        ),
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=num_players,
        min_num_players=num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=_PARAMS,
    )


class RgtGame(pyspiel.Game):
    """An OpenSpiel game over an ``rgt.Game``."""

    def __init__(self, params=None, game=None):
        params = dict(params or {})
        if game is None:
            game = _load(params)
        self.rgt = game
        n = game.num_players()
        actions = game.num_distinct_actions()
        if actions is None:
            actions = int(params.get("num_distinct_actions", rgt.ALPHABET_LIMIT))
        self._actions = actions
        info = pyspiel.GameInfo(
            num_distinct_actions=max(actions, 1),
            max_chance_outcomes=max(actions, 1) if game.has_chance else 0,
            num_players=n,
            min_utility=game.min_utility(),
            max_utility=game.max_utility(),
            max_game_length=int(params.get("max_game_length", MAX_GAME_LENGTH)),
        )
        kind = _game_type(n, game.has_chance, game.perfect_information)
        super().__init__(kind, info, params)

    def new_initial_state(self):
        return RgtState(self, self.rgt.new_initial_state())

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(iig_obs_type, params)


class RgtState(pyspiel.State):
    """An OpenSpiel state over an ``rgt.State``."""

    def __init__(self, game, state):
        super().__init__(game)
        self.rgt = state
        self._limit = game._actions

    def current_player(self):
        return self.rgt.current_player()

    def _legal_actions(self, player):
        return self.rgt.legal_actions(player)

    def chance_outcomes(self):
        return self.rgt.chance_outcomes()

    def _apply_action(self, action):
        self.rgt.apply_action(action)
        if any(a >= self._limit for a in self.rgt.legal_actions()):
            raise rgt.PlayError(
                f"the game met more than num_distinct_actions={self._limit} distinct moves; "
                "raise that parameter"
            )

    def _action_to_string(self, player, action):
        return self.rgt.action_to_string(action)

    def is_terminal(self):
        return self.rgt.is_terminal()

    def returns(self):
        return self.rgt.returns()

    def __str__(self):
        return str(self.rgt)


class _Observer:
    """String observations: the moves so far as the player saw them (RG's ``visible``)."""

    def __init__(self, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state, player):
        del state, player

    def string_from(self, state, player):
        return state.rgt.observation_string(player)


class RolloutEvaluator(mcts.Evaluator):
    """An evaluator for OpenSpiel's ``MCTSBot`` whose random playouts run in Rust.

    ``evaluate`` plays ``n_rollouts`` playouts from the state with ``rgt.State.rollouts`` (the
    interpreter's own loop, without the GIL) and returns each player's mean goal; ``prior`` is
    uniform over the legal actions (the chance outcomes' probabilities at a chance node). The
    seed advances with every evaluation, so a search is reproducible from ``seed``.
    """

    def __init__(self, n_rollouts=1, seed=0):
        self.n_rollouts = n_rollouts
        self._seed = seed

    def evaluate(self, state):
        self._seed += 1
        return np.array(state.rgt.rollouts(self.n_rollouts, self._seed)["returns"])

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


def _load(params):
    path = params.get("path") or ""
    text = params.get("text") or ""
    if bool(path) == bool(text):
        raise ValueError("the game \"rgt\" needs exactly one of the parameters path and text")
    language = params.get("language") or None
    optimize = int(params.get("optimize", 2))
    if path:
        return rgt._load(path, True, language, optimize, None)
    return rgt._load(text, False, language, optimize, None)


def load_game(path_or_text, language=None, optimize=2, **params):
    """The OpenSpiel game of a file or text (as ``rgt.load`` reads it), or of an ``rgt.Game``."""
    if isinstance(path_or_text, rgt.Game):
        game = path_or_text
    else:
        game = rgt.load(path_or_text, language=language, optimize=optimize)
    return RgtGame(params, game=game)


pyspiel.register_game(_game_type(2, True, False), RgtGame)
