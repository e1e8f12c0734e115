// Nim with one pile of seven stones, written for rgt's README.
// Two players alternately take one, two or three stones; whoever takes the last stone wins.
//
// RG in one minute: a game is an automaton whose edges carry actions. `player = X` hands the
// turn to X and ends the current move; `$ t` is a tag naming the move; comparisons guard edges;
// `goals` holds the outcome when the game reaches `end`.

type Player = { alice, bob };
type Score = { 0, 100 };
type Stones = { s0, s1, s2, s3, s4, s5, s6, s7 };
type Take = { one, two, three };

// after[n][k] = n - k, or s0 when fewer than k stones are left (such moves are refused below).
const after: Stones -> Take -> Stones = {
  s7: { one: s6, two: s5, three: s4, :s0 },
  s6: { one: s5, two: s4, three: s3, :s0 },
  s5: { one: s4, two: s3, three: s2, :s0 },
  s4: { one: s3, two: s2, three: s1, :s0 },
  s3: { one: s2, two: s1, three: s0, :s0 },
  s2: { one: s1, two: s0, :s0 },
  s1: { one: s0, :s0 },
  :{ :s0 }
};
// enough[n][k] = 1 when k stones can be taken from n.
const enough: Stones -> Take -> Bool = {
  s2: { three: 0, :1 },
  s1: { one: 1, :0 },
  s0: { :0 },
  :{ :1 }
};
const opponent: Player -> Player = { alice: bob, :alice };

var pile: Stones = s7;
var mover: Player = alice;
var take: Take = one;

begin, turn: player = PlayerOrSystem(mover);
turn, chosen: take = Take(*);
chosen, allowed: enough[pile][take] == 1;
allowed, named: $$ take;
named, taken: pile = after[pile][take];
taken, judge: player = keeper;
judge, won: pile == s0;
judge, next: pile != s0;
next, begin: mover = opponent[mover];
won, scored: goals[mover] = 100;
scored, end: player = keeper;
