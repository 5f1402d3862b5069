//! Files in and out: PGN inputs (files, directories, standard input, compressed streams) in
//! [`input`], report writers (CSV, JSON lines, Parquet, Arrow IPC) in [`report`], one
//! large file as byte ranges that start at game boundaries in [`split`]; files written whole or
//! not at all in [`whole_file`]; games written out as PGN in [`pgn_out`].

pub mod input;
pub mod pgn_out;
pub mod report;
pub mod split;
pub mod whole_file;
