//! The one integration test binary: one module per suite.
#![allow(clippy::print_stdout, clippy::print_stderr)] // tests report what they skip

mod compile;
mod front_diagnostics;
mod fuzz;
mod gdl;
mod gdl_lenient;
mod gdl_oracle;
mod hrg;
mod interp;
mod lg;
mod passes;
mod passes_fuzz;
mod pragma_compare;
mod python;
mod rbg;
mod rg;
mod validate;
