//! Our streaming PGN reader: every movetext token is reported, so that a validator sees each
//! one (see [`reader`]).

mod reader;

pub use reader::*;
