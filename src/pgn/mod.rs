//! Our streaming PGN reader: every movetext token is reported, so that a validator sees each
//! one (see [`reader`]); the commands of comments (`[%clk …]`, `[%eval …]`, `[%cal …]`, `[%csl …]`: [`commands`]);
//! the `TimeControl` tag ([`time_control`]); one game from a string, a table's movetext
//! column ([`movetext`]);
//! where a large file can be cut between games so that several readers give the same
//! games ([`split`]).

pub mod commands;
mod fault;
pub mod movetext;
mod reader;
mod source;
pub mod split;
pub mod time_control;

pub use reader::*;
