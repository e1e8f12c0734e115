//! One module per subcommand.

pub mod batch;
pub mod bench;
pub mod check;
pub mod compile;
pub mod completions;
pub mod equiv;
pub mod fmt;
pub mod lsp;
pub mod moves;
pub mod opt;
pub mod passes;
pub mod perft;
pub mod run;
pub mod stats;
pub mod translate;
pub mod verify;
pub mod view;
