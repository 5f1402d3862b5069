//! The rows `explorer` aggregates: one per legal main-line ply of a standard game (no
//! `FEN` tag, no `Variant` other than standard), up to the call's `max_ply`, each with its
//! position before the move and the game's facts the explorer's filters and counts use
//! ([`explorer_plies_schema`]). The PGN scan builds them ([`super::super::Rows`]) from
//! the games' plies, each ply games share replayed once ([`crate::validate::replay_prefixes`]).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Int64Array, RecordBatch, RecordBatchOptions, StringArray, UInt16Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::DataFusionError;

use crate::chess::color::Color;
use crate::chess::polyglot::polyglot_key_of;
use crate::pgn::RawGame;
use crate::pgn::time_control::speed;
use crate::sql::openings::epd_of_fen;
use crate::validate::{PlyRow, PrefixPlies, is_standard_start};

/// The lower bounds of the lichess opening explorer's rating bands, by the two players'
/// mean rating: 0 (under 1000), 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500 (and above).
pub const RATING_BANDS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

/// The Arrow schema of the explorer's plies:
///
/// | column | type | |
/// |---|---|---|
/// | `position_key` | UInt64 | Polyglot key of the position before the move |
/// | `epd` | Utf8 | that position as an EPD (en passant square only when a capture there is legal) |
/// | `uci`, `san` | Utf8 | the move, as `read_plies` writes it |
/// | `speed` | Utf8, nullable | the game's speed ([`crate::pgn::time_control::speed`]) |
/// | `rating_band` | UInt16, nullable | [`rating_band`] of the game's Elo tags |
/// | `month` | Utf8, nullable | [`month`] of the game's date |
/// | `white_win`, `draw`, `black_win` | Int64 | 1 when the `Result` tag is `1-0`, `1/2-1/2`, `0-1`, else 0 |
/// | `mover_elo` | Int64, nullable | the Elo tag of the side that moves |
/// | `date` | Utf8, nullable | the game's date as the tag writes it (`UTCDate`, else `Date`; NULL when unknown) |
#[must_use]
pub fn explorer_plies_schema() -> SchemaRef {
    use DataType::*;
    let f = |n: &str, t: DataType, null: bool| Field::new(n, t, null);
    Arc::new(Schema::new(vec![
        f("position_key", UInt64, false),
        f("epd", Utf8, false),
        f("uci", Utf8, false),
        f("san", Utf8, false),
        f("speed", Utf8, true),
        f("rating_band", UInt16, true),
        f("month", Utf8, true),
        f("white_win", Int64, false),
        f("draw", Int64, false),
        f("black_win", Int64, false),
        f("mover_elo", Int64, true),
        f("date", Utf8, true),
    ]))
}

/// The lichess explorer's band of a game: the greatest of [`RATING_BANDS`] at most the
/// mean of the two ratings; `None` without both.
#[must_use]
pub fn rating_band(white_elo: Option<i64>, black_elo: Option<i64>) -> Option<u16> {
    let mean = (white_elo? + black_elo?) / 2;
    RATING_BANDS
        .iter()
        .rev()
        .find(|&&b| i64::from(b) <= mean)
        .copied()
        .or(Some(0))
}

/// `YYYY-MM` of a PGN date (`2025.01.31`); `None` when the year or month is unknown
/// (`????.??.??`, `2025.??.??`), the month is not 01 to 12, or the text is not a date.
#[must_use]
pub fn month(date: &str) -> Option<String> {
    let mut parts = date.trim().split('.');
    let (year, m) = (parts.next()?, parts.next()?);
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let in_year = matches!(m.parse::<u8>(), Ok(1..=12));
    (digits(year, 4) && digits(m, 2) && in_year).then(|| format!("{year}-{m}"))
}

/// What a game gives each of its rows.
struct GameFacts<'a> {
    standard: bool,
    speed: Option<&'static str>,
    band: Option<u16>,
    month: Option<String>,
    date: Option<&'a str>,
    result: [i64; 3],
    elo: [Option<i64>; 2],
}

impl<'a> GameFacts<'a> {
    fn of(g: &'a RawGame) -> GameFacts<'a> {
        let elo = |tag| g.tag(tag).and_then(|v| v.trim().parse::<i64>().ok());
        let (white, black) = (elo("WhiteElo"), elo("BlackElo"));
        let date = [g.tag("UTCDate"), g.tag("Date")]
            .into_iter()
            .flatten()
            .find(|d| month(d).is_some());
        GameFacts {
            standard: is_standard_start(g),
            speed: g.tag("TimeControl").and_then(speed).map(|s| s.as_str()),
            band: rating_band(white, black),
            month: date.and_then(month),
            date,
            result: match g.tag("Result") {
                Some("1-0") => [1, 0, 0],
                Some("1/2-1/2") => [0, 1, 0],
                Some("0-1") => [0, 0, 1],
                _ => [0, 0, 0],
            },
            elo: [white, black],
        }
    }
}

/// The explorer's rows of a chunk of games (their plies as [`crate::validate::replay_prefixes`]
/// gives them, each shared ply once), in batches of at most `rows` rows, each handed to
/// `emit`; `false` when `emit` returned `false`.
///
/// Errors: [`DataFusionError::Internal`] when the plies are not those of these games.
pub(crate) fn explorer_batches(
    games: &[(&str, RawGame)],
    prefixes: &PrefixPlies,
    (projection, schema): (&[usize], &SchemaRef),
    rows: usize,
    mut emit: impl FnMut(RecordBatch) -> datafusion::common::Result<bool>,
) -> datafusion::common::Result<bool> {
    if prefixes.games.len() != games.len() {
        return Err(DataFusionError::Internal(format!(
            "explorer: the plies of {} games for {} games",
            prefixes.games.len(),
            games.len()
        )));
    }
    if let Some(p) = prefixes
        .games
        .iter()
        .flatten()
        .find(|&&p| p as usize >= prefixes.plies.len())
    {
        return Err(DataFusionError::Internal(format!("explorer: no ply {p}")));
    }
    let plies = Plies::of(&prefixes.plies, projection);
    let facts: Vec<GameFacts> = games.iter().map(|(_, g)| GameFacts::of(g)).collect();
    // each (position, move) once per game: a game that repeats a position and plays the
    // same move from it again is one game of that move
    let mut kept: Vec<(&GameFacts, usize)> = vec![];
    let mut seen: HashSet<(u64, u64), BuildHasherDefault<KeyHasher>> = HashSet::default();
    for (f, path) in facts.iter().zip(&prefixes.games) {
        if !f.standard {
            continue;
        }
        seen.clear();
        for &p in path {
            let p = p as usize;
            if seen.insert((plies.keys[p], plies.moves[p])) {
                kept.push((f, p));
            }
        }
    }
    for chunk in kept.chunks(rows.max(1)) {
        let columns = projection
            .iter()
            .map(|&i| plies.column(i, chunk))
            .collect::<datafusion::common::Result<Vec<_>>>()?;
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(chunk.len())),
        )?;
        if !emit(batch)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The distinct plies of a chunk, with the position facts the projection needs computed once
/// per ply (not once per game that plays it).
struct Plies<'a> {
    rows: &'a [PlyRow],
    /// Polyglot keys of the positions before the moves.
    keys: Vec<u64>,
    /// The moves' UCI, its bytes packed in a number (at most 5 of them).
    moves: Vec<u64>,
    /// Their EPDs (when projected).
    epds: Vec<String>,
}

impl<'a> Plies<'a> {
    fn of(rows: &'a [PlyRow], projection: &[usize]) -> Plies<'a> {
        Plies {
            rows,
            keys: rows
                .iter()
                .map(|p| polyglot_key_of(&p.position_before))
                .collect(),
            moves: rows
                .iter()
                .map(|p| p.uci.bytes().fold(0u64, |a, b| a << 8 | u64::from(b)))
                .collect(),
            epds: if projection.contains(&1) {
                rows.iter().map(|p| epd_of_fen(&p.fen_before())).collect()
            } else {
                vec![]
            },
        }
    }

    /// Column `i` of [`explorer_plies_schema`] for these (game, ply index) rows.
    fn column(
        &self,
        i: usize,
        rows: &[(&GameFacts, usize)],
    ) -> datafusion::common::Result<ArrayRef> {
        let result = |k: usize| {
            Arc::new(Int64Array::from_iter_values(
                rows.iter().map(|(g, _)| g.result[k]),
            )) as ArrayRef
        };
        Ok(match i {
            0 => Arc::new(UInt64Array::from_iter_values(
                rows.iter().map(|(_, p)| self.keys[*p]),
            )),
            1 => strings(rows.iter().map(|(_, p)| Some(self.epds[*p].as_str()))),
            2 => strings(rows.iter().map(|(_, p)| Some(self.rows[*p].uci.as_str()))),
            3 => strings(rows.iter().map(|(_, p)| Some(self.rows[*p].san.as_str()))),
            4 => strings(rows.iter().map(|(g, _)| g.speed)),
            5 => Arc::new(rows.iter().map(|(g, _)| g.band).collect::<UInt16Array>()),
            6 => strings(rows.iter().map(|(g, _)| g.month.as_deref())),
            7..=9 => result(i - 7),
            10 => Arc::new(
                rows.iter()
                    .map(|(g, p)| g.elo[usize::from(self.rows[*p].color() != Color::White)])
                    .collect::<Int64Array>(),
            ),
            11 => strings(rows.iter().map(|(g, _)| g.date)),
            _ => {
                return Err(DataFusionError::Internal(format!(
                    "explorer: no column {i}"
                )));
            }
        })
    }
}

/// The hasher of the (Polyglot key, packed UCI) pairs a game has played: the keys are
/// random already, so a rotation and an xor spread them (SipHash took 5 % of a run).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(29) ^ n;
    }
}

/// A Utf8 column of these values.
fn strings<'s>(values: impl Iterator<Item = Option<&'s str>>) -> ArrayRef {
    Arc::new(values.collect::<StringArray>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_of_the_mean_rating() {
        assert_eq!(rating_band(Some(1500), Some(1700)), Some(1600));
        assert_eq!(rating_band(Some(999), Some(1000)), Some(0));
        assert_eq!(rating_band(Some(2600), Some(2400)), Some(2500));
        assert_eq!(rating_band(Some(1199), Some(1201)), Some(1200));
        assert_eq!(rating_band(Some(300), Some(200)), Some(0));
        assert_eq!(rating_band(Some(1500), None), None);
    }

    #[test]
    fn months_of_dates() {
        assert_eq!(month("2025.01.31").as_deref(), Some("2025-01"));
        assert_eq!(month("2025.12.??").as_deref(), Some("2025-12"));
        assert_eq!(month("2025.??.??"), None);
        assert_eq!(month("????.??.??"), None);
        assert_eq!(month("2025-01-31"), None);
        assert_eq!(month("2024.13.45"), None);
        assert_eq!(month("2024.00.01"), None);
        assert_eq!(month(""), None);
    }
}
