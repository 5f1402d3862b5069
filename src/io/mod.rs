//! Files in and out: PGN inputs (files, directories, standard input, compressed streams) in
//! [`input`], report writers (CSV, JSON lines, Parquet, Arrow IPC) in [`report`].

pub mod input;
pub mod report;
