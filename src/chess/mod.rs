//! Chess vocabulary, independent of the pipeline: colours, pieces, squares, castling rights
//! and set-up positions with FEN ([`fen`]), the SAN token lexer ([`san`]) and the game
//! outcome's repetition history ([`outcome`]), the Polyglot key ([`polyglot`]).

pub mod fen;
pub mod outcome;
pub mod polyglot;
pub mod san;
