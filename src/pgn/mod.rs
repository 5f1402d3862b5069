//! Our streaming PGN reader: every movetext token is reported, so that a validator sees each
//! one (see [`reader`]); the commands of comments (`[%clk …]`, `[%eval …]`: [`commands`]).

pub mod commands;
mod reader;

pub use reader::*;
