//! RG optimisation passes, analyses and the pass manager.
