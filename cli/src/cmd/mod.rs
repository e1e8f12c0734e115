//! One module per subcommand.

pub mod batch;
pub mod completions;
pub mod fmt;
pub mod perft;
pub mod stats;
pub mod translate;
