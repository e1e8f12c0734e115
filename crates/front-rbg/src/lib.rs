//! Regular Boardgames (RBG) front-end: HL macros and boards, LL parser, lowering to RG.
