"""Shared paths and games for the tests of the Python package."""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CORPUS = ROOT.parent / "shared" / "corpus"

# A one-player game with a chance move: `random` says `h` (one walk) or `t` (two walks, ending
# with two different assignments to `player`, so two moves: twice as likely); the player then
# scores 100 after `h` and 50 after `t`.
CHANCE_GAME = """
type Player = { a };
type Score = { 0, 50, 100 };
type Die = { one, two };
var goals: Player -> Score = { :0 };
var d: Die = one;
begin, k: player = random;
k, x1: $ h;
x1, y1: d = one;
y1, c: player = a;
k, x2: $ t;
x2, y2: d = two;
y2, c: player = a;
k, x3: $ t;
x3, y3: d = two;
y3, c: player = a;
c, c1: $ go;
c1, g1: d == one;
g1, f: goals[a] = 100;
c1, g2: d == two;
g2, f: goals[a] = 50;
f, end: player = keeper;
"""

# A guessing game: `a` hides a bit from `b` (visible[b] is 0 while `a` tags it), `b` guesses
# it, and wins when right.
HIDDEN_GAME = """
type Player = { a, b };
type Score = { 0, 100 };
type Bit = { x, y };
var goals: Player -> Score = { :0 };
var s: Bit = x;
var g: Bit = x;
begin, p1: visible[b] = 0;
p1, m1: player = a;
m1, m2: s = Bit(*);
m2, m3: $$ s;
m3, p2: visible[b] = 1;
p2, n1: player = b;
n1, n2: g = Bit(*);
n2, n3: $$ g;
n3, w: player = keeper;
w, w1: s == g;
w1, e: goals[b] = 100;
w, w2: s != g;
w2, e: goals[a] = 100;
e, end: player = keeper;
"""

# The keeper has two moves at the start: not a proper game.
TWO_KEEPER_MOVES = """
type Player = { a };
type Score = { 0 };
var goals: Player -> Score = { :0 };
begin, x: $ k1;
x, y: player = a;
begin, x2: $ k2;
x2, y: player = a;
y, y1: $ m;
y1, end: player = keeper;
"""


def corpus_file(relative):
    """A corpus game, or a visible skip when the shared corpus is not on this machine."""
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"{path} is not present on this machine (the shared third-party corpus)")
    return path
