//! One module per subcommand.

pub mod fmt;
pub mod stats;
pub mod translate;
