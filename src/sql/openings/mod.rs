//! The named openings of lichess-org/chess-openings (`data/openings/*.tsv`, CC0, compiled
//! in): each line's `eco`, `name` and `pgn`, and what our own replay of its `pgn` gives
//! (its moves in UCI, the EPD of the position reached, its plies), computed once per process
//! on first use ([`book`]), never at [`crate::sql::register`]. The table `openings`
//! ([`table::OpeningsTable`]) shows them; `read_pgn`'s classification columns and
//! `opening(fen)` look positions up by EPD ([`Book::named`]).
//!
//! Several lines may name one position (transpositions, two names for one line): the
//! position's name is then the line with the fewest plies, the first in file order
//! (`a.tsv` … `e.tsv`, line by line) among equals.

pub(crate) mod table;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::engines::{EnginePool, with_engine};
use crate::error::{Error, Result};
use crate::pgn::{PgnReader, RawGame};
use crate::validate::{PlyRow, ValidateOptions, validate_games_with};

/// The TSV files, in file order.
const FILES: [(&str, &str); 5] = [
    ("a.tsv", include_str!("../../../data/openings/a.tsv")),
    ("b.tsv", include_str!("../../../data/openings/b.tsv")),
    ("c.tsv", include_str!("../../../data/openings/c.tsv")),
    ("d.tsv", include_str!("../../../data/openings/d.tsv")),
    ("e.tsv", include_str!("../../../data/openings/e.tsv")),
];

/// One named opening: a line of the TSV files and its replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// ECO code (`B90`).
    pub eco: String,
    /// Name (`Sicilian Defense: Najdorf Variation`).
    pub name: String,
    /// Its moves as the file writes them (`1. e4 c5 2. Nf3 …`).
    pub pgn: String,
    /// The moves in UCI, separated by spaces (`e2e4 c7c5 g1f3 …`; castling as the king's move).
    pub uci: String,
    /// The position reached, as an EPD: placement, side to move, castling rights, en
    /// passant square only when an en passant capture is legal (python-chess `board.epd()`).
    pub epd: String,
    /// Plies of the line.
    pub ply: u32,
}

/// The named openings and their positions.
#[derive(Debug)]
pub struct Book {
    /// Every line, in file order.
    pub openings: Vec<Opening>,
    /// The line naming each EPD (see the module docs for the rule).
    named: HashMap<String, usize>,
}

/// Plies searched by [`Book::classify`]: a named position reached later is not looked for.
pub const CLASSIFY_PLIES: u32 = 40;

impl Book {
    /// The classification of a game from the standard start position (a game with a `FEN`
    /// tag is not classified): the deepest of its first [`CLASSIFY_PLIES`] legal plies whose
    /// position is named ([`Book::named`]), and that opening. Transpositions count: the
    /// position decides, not the moves. `plies` are the game's legal plies in order (the
    /// positions before each, en passant square only when an en passant capture is legal)
    /// and `final_fen` the position after the last of them (both as
    /// [`crate::validate::validate_games_with`] gives them, with plies); an illegal move
    /// ends the plies, so a game is classified on its legal prefix.
    #[must_use]
    pub fn classify(&self, plies: &[PlyRow], final_fen: Option<&str>) -> Option<(&Opening, u32)> {
        let n = plies.len().min(CLASSIFY_PLIES as usize);
        // the position after ply k is the one before ply k + 1, after the last the final one
        (1..=n).rev().find_map(|k| {
            let epd = match plies.get(k) {
                Some(next) => epd_of_fen(&next.fen_before()),
                None => epd_of_fen(final_fen?),
            };
            self.named(&epd).map(|o| (o, k as u32))
        })
    }

    /// The opening named at the position of this EPD, if any.
    #[must_use]
    pub fn named(&self, epd: &str) -> Option<&Opening> {
        self.named.get(epd).and_then(|&i| self.openings.get(i))
    }
}

/// The first four fields of a FEN: its EPD (no operations). The en passant square is the
/// FEN's: give a FEN written python-chess style (en passant square only when an en passant
/// capture is legal) for python-chess's EPD.
#[must_use]
pub fn epd_of_fen(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// The book of the process, replayed on first use on an engine of `pool`.
///
/// Errors: the replay's pipeline errors; [`Error::Internal`] when a line of the compiled-in
/// files does not replay (they all do: checked by the tests against python-chess).
pub(crate) fn book(pool: &EnginePool) -> Result<Arc<Book>> {
    static BOOK: Mutex<Option<Arc<Book>>> = Mutex::new(None);
    let mut slot = BOOK
        .lock()
        .map_err(|_| Error::Internal("openings book lock poisoned".into()))?;
    if let Some(b) = slot.as_ref() {
        return Ok(b.clone());
    }
    let book = Arc::new(replay_book(pool)?);
    *slot = Some(book.clone());
    Ok(book)
}

/// Reads the TSV lines and replays them all in one batch.
fn replay_book(pool: &EnginePool) -> Result<Book> {
    let mut lines: Vec<(String, usize, [String; 3])> = vec![];
    for (file, text) in FILES {
        for (n, line) in text.lines().enumerate().skip(1) {
            let mut fields = line.split('\t').map(str::to_string);
            let (Some(eco), Some(name), Some(pgn)) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(Error::Internal(format!(
                    "openings: {file} line {}: not eco, name and pgn",
                    n + 1
                )));
            };
            lines.push((file.to_string(), n + 1, [eco, name, pgn]));
        }
    }
    let games: Vec<(&str, RawGame)> = lines
        .iter()
        .enumerate()
        .map(|(i, (file, n, [_, _, pgn]))| {
            let game = PgnReader::new(pgn.as_bytes()).next().and_then(|g| g.ok());
            // each line its own game index: the plies name their line
            game.map(|g| (file.as_str(), RawGame { index: i, ..g }))
                .ok_or_else(|| {
                    Error::Internal(format!("openings: {file} line {n}: no moves in {pgn:?}"))
                })
        })
        .collect::<Result<_>>()?;
    let options = ValidateOptions::with_plies(true);
    let validation = with_engine(pool, |engine, rt| {
        rt.block_on(validate_games_with(engine, &games, options))
    })?;
    let mut uci: Vec<Vec<&str>> = vec![vec![]; games.len()];
    for p in validation.all_plies() {
        if let Some(u) = usize::try_from(p.game_index)
            .ok()
            .and_then(|i| uci.get_mut(i))
        {
            u.push(&p.uci);
        }
    }
    let mut openings = Vec::with_capacity(lines.len());
    for (((file, n, [eco, name, pgn]), report), uci) in
        lines.into_iter().zip(&validation.reports).zip(uci)
    {
        let (Some(fen), None) = (&report.final_fen, &report.error_kind) else {
            return Err(Error::Internal(format!(
                "openings: {file} line {n}: {pgn:?} does not replay: {}",
                report.error_message.as_deref().unwrap_or("no position")
            )));
        };
        if uci.len() != report.plies as usize {
            return Err(Error::Internal(format!(
                "openings: {file} line {n}: {} plies, {} moves",
                report.plies,
                uci.len()
            )));
        }
        openings.push(Opening {
            eco,
            name,
            pgn,
            uci: uci.join(" "),
            epd: epd_of_fen(fen),
            ply: report.plies,
        });
    }
    let mut named: HashMap<String, usize> = HashMap::new();
    for (i, o) in openings.iter().enumerate() {
        let e = named.entry(o.epd.clone()).or_insert(i);
        if o.ply < openings[*e].ply {
            *e = i;
        }
    }
    Ok(Book { openings, named })
}
