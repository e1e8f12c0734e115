//! High-level Regular Games (HRG) front-end: parser, static semantics, lowering to RG.
