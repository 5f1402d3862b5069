//! sqlchess: a FIDE-exact chess rules engine that runs as a staged relational pipeline on
//! Apache DataFusion. Positions and moves are Arrow record batches; every rule (move
//! generation, king safety, castling, en passant, promotion, SAN, applying moves, game end)
//! is a SQL stage in `plans/`, planned once into a DataFusion logical plan.
//!
//! Layers, each importing only the ones above it:
//! - [`chess`] (squares, pieces, [`Setup`] and FEN, SAN tokens, repetition history) and
//!   [`pgn`] (the PGN reader): chess vocabulary, no DataFusion;
//! - [`session`]: DataFusion plumbing, no chess (stage tables, planned stages, profiles,
//!   readers by column name);
//! - [`stages`]: the chess stages of `plans/` named by type, their workflows and input
//!   tables, and the chess [`Pipeline`] on the session;
//! - [`engine`] (legal moves, tokens, perft, replay), [`validate`] (games), [`seed`] (the
//!   seed statement's replica), [`profile`] (per-stage figures, EXPLAIN);
//! - [`io`]: PGN inputs and report writers;
//! - [`picture`]: board diagrams (SVG, PNG), result pages and charts of the layers above;
//! - [`sql`]: SQL over games for users: `read_pgn` and the chess functions on a DataFusion
//!   session, and the codecs that let its plans travel;
//! - `cluster` (feature `ballista`): the same SQL on a Ballista scheduler and executors.
//!
//! The command line (`src/cli/`) sits on top and is not part of the library.

pub mod chess;
#[cfg(feature = "ballista")]
pub mod cluster;
pub mod engine;
pub mod error;
pub mod io;
pub mod pgn;
pub mod picture;
pub mod profile;
pub mod seed;
pub mod session;
pub mod sql;
pub mod stages;
pub mod validate;

/// The README's Rust code block, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use chess::setup::Setup;
pub use engine::Engine;
pub use error::{Error, Result};
pub use session::PipelineConfig;
pub use stages::Pipeline;
