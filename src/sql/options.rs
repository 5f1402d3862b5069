//! The settings of the chess tables in a session's configuration, under `sqlchess.`
//! ([`ChessOptions`]).

use datafusion::catalog::TableFunctionArgs;
use datafusion::config::ConfigExtension;

datafusion::common::extensions_options! {
    /// Settings of the chess tables, in a session's configuration under `sqlchess.`
    /// ([`super::register`] adds them): `SET sqlchess.split_bytes = 1048576`.
    pub struct ChessOptions {
        /// `read_pgn` / `read_plies`: a plain (uncompressed) PGN file of at least twice
        /// this many bytes is read as several partitions, each at least this large and
        /// starting at a game boundary (at most `datafusion.execution.target_partitions`
        /// per file), so one large file uses several cores; 0 never splits. Default 32 MiB.
        /// When the rules run, a plain file of at least 128 KiB is cut too (unless this
        /// is 0): the rules cost per ply, so every partition gets its share of each file.
        /// Read when the table function is called (planning), and kept in its table
        /// ([`super::PgnTable::split_bytes`]), so it travels with the plan to a cluster.
        pub split_bytes: u64, default = 32 * 1024 * 1024
    }
}

impl ConfigExtension for ChessOptions {
    const PREFIX: &'static str = "sqlchess";
}

/// The `sqlchess.split_bytes` of a table function call's session, or `defaults`' when the
/// session has no [`ChessOptions`] (a datafusion-python session calling over the FFI).
pub(crate) fn split_bytes_of(args: &TableFunctionArgs, defaults: &ChessOptions) -> u64 {
    args.session()
        .config_options()
        .extensions
        .get::<ChessOptions>()
        .map_or(defaults.split_bytes, |o| o.split_bytes)
}
