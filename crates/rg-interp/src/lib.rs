//! RG interpreter: flat runtime form, legal moves, perft, seeded random playouts, equivalence oracle.
