//! Chess vocabulary, independent of the pipeline, one concept per module: colours
//! ([`color`]), roles and pieces ([`role`]), squares ([`square`]), castling rights
//! ([`castling`]), set-up positions and their validity checks ([`setup`]), positions as
//! bitboards ([`bitboards`]), FEN and X-FEN reading and writing ([`fen`]) and its errors
//! ([`fen_error`]), the SAN token lexer ([`san`]), the game outcome's repetition history
//! ([`outcome`]), the Polyglot key ([`polyglot`]), Polyglot opening books
//! ([`polyglot_book`]), board patterns ([`subfen`]), pgn-extract's material balance
//! patterns ([`material_pattern`]), arrows and circles drawn on a board ([`mark`]).

pub mod bitboards;
pub mod castling;
pub mod color;
pub mod fen;
pub mod fen_error;
pub mod mark;
pub mod material_pattern;
pub mod outcome;
pub mod polyglot;
pub mod polyglot_book;
pub mod role;
pub mod san;
pub mod setup;
pub mod square;
pub mod subfen;
