"""rgt: every General Game Playing game as a Python game.

Load a game written in any language ``rgt`` reads -- GDL/KIF (``.kif``, ``.gdl``), Regular
Boardgames (``.rbg``), High-level Regular Games (``.hrg``), LineGames (``.lg``) or Regular Games
(``.rg``) -- and play it through the Regular Games interpreter::

    import rgt
    game = rgt.load("examples/nim.rg")
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    print(state.returns())

``State`` follows OpenSpiel's conventions: ``current_player()`` is a player index, -1 at a
chance node (RG's ``random``) or -4 at the end; the keeper's moves are applied automatically;
``legal_actions()`` are integer ids that mean the same move in every state (the move's tags,
numbered once for the whole game). ``rgt.openspiel`` registers games with OpenSpiel itself.
"""

import os

from ._rgt import ALPHABET_LIMIT, Game, GameError, PlayError, State
from ._rgt import load as _load

__all__ = ["ALPHABET_LIMIT", "Game", "GameError", "PlayError", "State", "load", "perft"]

_EXTENSIONS = (".rg", ".hrg", ".rbg", ".kif", ".gdl", ".lg")


def load(path_or_text, language=None, optimize=2, name=None):
    """Loads a game from a file or from its text.

    ``path_or_text`` is a path (``str`` or ``os.PathLike``) or the game's text: a string is
    read as a path when it has no line break and names an existing file or ends with a game
    extension. ``language`` (``"rg"``, ``"hrg"``, ``"rbg"``, ``"kif"``/``"gdl"``, ``"lg"``)
    overrides the extension and is needed for a text in any language but RG. ``optimize`` is
    the optimisation level (0, 1 or 2, as ``rgt -O``). ``name`` names a text in diagnostics.

    Raises ``rgt.GameError`` when the game has errors; the exception carries ``code``,
    ``message``, ``line`` and ``column`` of the first error, every diagnostic in
    ``diagnostics`` and the text ``rgt`` would print in ``rendered``.
    """
    if isinstance(path_or_text, os.PathLike):
        return _load(os.fspath(path_or_text), True, language, optimize, name)
    if not isinstance(path_or_text, str):
        raise TypeError("load() takes a path or the text of a game")
    text = path_or_text
    is_path = "\n" not in text and (
        os.path.isfile(text) or text.lower().endswith(_EXTENSIONS)
    )
    return _load(text, is_path, language, optimize, name)


def perft(state, depth):
    """Counts the move sequences of length ``depth`` from ``state`` through this API alone
    (``legal_actions``, ``chance_outcomes``, ``child``), as ``rgt perft`` counts them: keeper
    moves are free, and chance outcomes that lead to the same state count once.
    ``State.perft`` is the same count done by the interpreter in Rust."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    if state.is_chance_node():
        children = {state.child(a) for a, _ in state.chance_outcomes()}
    else:
        # One child at a time: a position may have a hundred thousand moves.
        children = (state.child(a) for a in state.legal_actions())
    return sum(perft(c, depth - 1) for c in children)
