//! The integration tests, one binary: a module per file of `tests/` (each file's header
//! says what it checks). `cargo test --release` runs them all; one file's:
//! `cargo test --release --test tests -- cli::`. The modules `shared_data` (the python-chess
//! oracles over `../shared/data`) and `cluster` (a Ballista cluster on 127.0.0.1) need the
//! features `shared-data` and `ballista` (`.ci/run` runs them). The sqllogictest files run
//! in their own binary, `tests/sql_files.rs`.

mod common;

mod batch;
#[cfg(feature = "browser")]
mod browser;
mod cases;
mod chart;
mod chess960;
mod cli;
mod clocks_evals;
#[cfg(feature = "ballista")]
mod cluster;
mod engine;
mod explore;
mod explorer;
mod fuzz;
mod layers;
mod limits;
mod move_functions;
mod openings;
mod pgn_out;
mod pgn_reader;
mod pictures;
mod pictures_pipeline;
mod position_queries;
mod profile;
mod queries;
mod seed;
#[cfg(feature = "shared-data")]
mod shared_data;
mod sql;
mod stages;
