//! sqlchess: a FIDE-exact chess rules engine that runs as a staged relational pipeline on
//! Apache DataFusion. Positions and moves are Arrow record batches; every rule (move
//! generation, king safety, castling, en passant, promotion, SAN, applying moves, game end)
//! is a SQL stage in `plans/`, planned once into a DataFusion logical plan.
//!
//! Entry points: [`engine::Engine`] (legal moves, perft), [`validate`] (games),
//! [`pipeline::Pipeline`] (stages, profiling, user SQL over the stage tables).

pub mod engine;
pub mod error;
pub mod fen;
pub mod input;
pub mod pgn;
pub mod pipeline;
pub mod profile;
pub mod replay;
pub mod report;
pub mod san;
pub mod seed;
pub mod slot;
pub mod tables;
pub mod validate;

pub use engine::Engine;
pub use error::{Error, Result};
pub use fen::Setup;
pub use pipeline::{Pipeline, PipelineConfig};
