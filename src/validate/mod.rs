//! Game validation: replays PGN games ply-synchronously through the pipeline.
//!
//! All games of a batch advance one ply per pipeline run. First [`crate::engine::replay`] checks each
//! game's given moves on their own for as long as each stands for exactly one legal move.
//! From where replay stops (usually the end of the movetext), the full stages take over:
//! each ply, the current positions of the live games get their legal moves (`legal_moves`), status (`position_status`) and the
//! lexed move token of the ply is resolved against them (`token_matches`,
//! `token_verdicts`, `token_moves`); the resolved moves are applied (`next_positions`,
//! `next_pieces`). A game leaves the batch when its movetext ends or its token does not
//! resolve to exactly one legal move; its report then gives the first illegal ply, the error
//! kind (taxonomy of `shared/data/bad/README.md`), the final FEN (python-chess style: en
//! passant square only when an en passant capture is legal) and the final status.
//!
//! On request ([`ValidateOptions::plies`]) it also gives one [`PlyRow`] per legal ply played:
//! the stage `san` names the chosen moves, and the status of the position after each move
//! (its side to move in check, without legal moves) gives the SAN suffix `+` / `#`.

use std::collections::{BTreeMap, HashMap};

use datafusion::arrow::array::{
    Array, AsArray, BooleanArray, Int32Array, Int64Array, RecordBatch, StringArray,
};
use datafusion::arrow::datatypes::UInt64Type;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::chess::fen::{Color, Setup};
use crate::pgn::RawGame;
use crate::stages::{APPLY, LEGAL};
use crate::chess::outcome::{History, Key};
use crate::engine::replay::replay;
use crate::chess::san::{SanToken, parse_san};
use crate::stages::tables::{self, column};

/// Error kinds of a game report (`error_kind` column).
pub mod kind {
    /// The token is not a move (not SAN, UCI or a null move), or the PGN text is broken.
    pub const SYNTAX: &str = "syntax";
    /// Two or more legal moves match the token.
    pub const AMBIGUOUS: &str = "ambiguous_move";
    /// The token names a legal move of the side not to move.
    pub const WRONG_SIDE: &str = "wrong_side";
    /// The side to move has no piece of that kind where the token says.
    pub const NO_SUCH_PIECE: &str = "no_such_piece";
    /// Any other token that matches no legal move.
    pub const ILLEGAL: &str = "illegal_move";
    /// The FEN tag does not give a legal position.
    pub const SETUP: &str = "setup";
    /// The game's `Variant` tag names rules other than standard chess.
    pub const UNSUPPORTED_VARIANT: &str = "unsupported_variant";
}

/// One row of the validation report.
///
/// Columns (in this order): `file: Utf8, game_index: UInt64 (0-based, in file order),
/// plies: UInt32 (legal main-line plies applied), first_illegal_ply: UInt32 (nullable; 1-based;
/// 0 = the game could not be set up), error_kind: Utf8 (nullable), error_message: Utf8
/// (nullable), final_fen: Utf8 (nullable when the game could not be set up), final_status: Utf8
/// (checkmate, stalemate, insufficient_material, seventyfive_moves, fivefold_repetition,
/// fifty_moves, threefold_repetition, ongoing), white, black, event, date, result: Utf8 (tags),
/// start_fen: Utf8 (nullable: the FEN tag), result_consistent: Boolean (false when the Result
/// tag contradicts a checkmate or stalemate on the board)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GameReport {
    /// Input file name.
    pub file: String,
    /// 0-based index of the game in its file.
    pub game_index: u64,
    /// Legal plies applied.
    pub plies: u32,
    /// 1-based ply of the first illegal or unreadable move; 0 = set-up error.
    pub first_illegal_ply: Option<u32>,
    /// See [`kind`].
    pub error_kind: Option<String>,
    /// What is wrong, naming the ply and token.
    pub error_message: Option<String>,
    /// FEN of the last position reached.
    pub final_fen: Option<String>,
    /// Status of the last position reached.
    pub final_status: Option<String>,
    /// Tags.
    pub white: String,
    /// Tags.
    pub black: String,
    /// Tags.
    pub event: String,
    /// Tags.
    pub date: String,
    /// Tags.
    pub result: String,
    /// The FEN tag, when the game starts from a set-up position.
    pub start_fen: Option<String>,
    /// False when the Result tag contradicts a checkmate or stalemate on the board.
    pub result_consistent: bool,
}

/// Options of [`validate_games_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValidateOptions {
    /// Also return one [`PlyRow`] per legal ply played. Its notation needs every legal move,
    /// so every ply then runs the full legal-move stages and `san` instead of replay
    /// ([`crate::engine::replay`]): much slower.
    pub plies: bool,
}

/// One legal ply of a game: a row of the per-ply table (`sqlchess validate --plies`).
///
/// Arrow schema ([`crate::io::report::plies_schema`]), in this order: `game_id: UInt64` (the
/// game's `game_index` in the per-game report: 0-based, in file order), `ply: UInt32`
/// (1-based), `fen_before: Utf8` (FEN of the position before the move, python-chess style:
/// en passant square only when an en passant capture is legal), `uci: Utf8` (`e2e4`,
/// `e7e8q`, castling as the king's move `e1g1`; `0000` for a null move), `san: Utf8` (as
/// python-chess `board.san(move)` writes it: with `+` / `#`, `O-O`, `=Q`; `--` for a null
/// move), `is_capture`, `is_check` (`san` ends with `+` or `#`), `is_castling`,
/// `is_en_passant: Boolean`, `promotion: Utf8` (nullable: the lowercase letter of the piece
/// promoted to).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlyRow {
    /// `game_index` of the game's report.
    pub game_id: u64,
    /// 1-based ply.
    pub ply: u32,
    /// FEN before the move.
    pub fen_before: String,
    /// UCI of the move.
    pub uci: String,
    /// SAN of the move, with `+` / `#`.
    pub san: String,
    /// The move captures (en passant included).
    pub is_capture: bool,
    /// The move gives check (or mate).
    pub is_check: bool,
    /// The move castles.
    pub is_castling: bool,
    /// The move captures en passant.
    pub is_en_passant: bool,
    /// Lowercase letter of the promotion piece.
    pub promotion: Option<String>,
}

/// What [`validate_games_with`] gives back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validation {
    /// One report per game, in input order.
    pub reports: Vec<GameReport>,
    /// With [`ValidateOptions::plies`]: the legal plies, by game (input order), then ply;
    /// else empty.
    pub plies: Vec<PlyRow>,
}

/// Per-game replay state.
struct Live {
    id: u64,
    tokens: Vec<String>,
    ply: usize,
    /// The position after `ply` plies, until the full stages load it.
    position: Setup,
    history: History,
    fault: Option<(u32, String)>,
    /// The row of the move just applied, waiting for the status of the position after it
    /// (the SAN suffix).
    pending: Option<PlyRow>,
}

/// Status of one position from the `position_status` stage.
#[derive(Clone)]
struct Status {
    n_legal: i64,
    in_check: bool,
    ep_legal_sq: Option<u8>,
    insufficient: bool,
    key: Key,
}

/// Validates a batch of games (each with the name of its file) in one ply-synchronous
/// replay. Reports come back in input order.
///
/// Errors: only pipeline failures ([`Error::DataFusion`]); every input fault is reported in
/// its game's row.
pub async fn validate_games(engine: &Engine, games: &[(&str, RawGame)]) -> Result<Vec<GameReport>> {
    Ok(
        validate_games_with(engine, games, ValidateOptions::default())
            .await?
            .reports,
    )
}

/// [`validate_games`] with options: with [`ValidateOptions::plies`], also the legal plies
/// played ([`PlyRow`], see [`crate::io::report::plies_to_batch`] for them as Arrow).
///
/// Errors: as [`validate_games`].
pub async fn validate_games_with(
    engine: &Engine,
    games: &[(&str, RawGame)],
    options: ValidateOptions,
) -> Result<Validation> {
    let mut plies: Vec<Vec<PlyRow>> = vec![vec![]; if options.plies { games.len() } else { 0 }];
    let mut reports: Vec<GameReport> = games.iter().map(|(file, g)| base_report(file, g)).collect();
    let mut live: Vec<Live> = vec![];
    for (i, (_, g)) in games.iter().enumerate() {
        let r = &mut reports[i];
        if let Some(v) = g.tag("Variant") {
            let v = v.trim().to_ascii_lowercase();
            if !(v.is_empty() || v == "standard" || v == "chess") {
                r.first_illegal_ply = Some(0);
                r.error_kind = Some(kind::UNSUPPORTED_VARIANT.into());
                r.error_message = Some(format!(
                    "game {}: Variant tag {v:?}: only standard chess is supported",
                    r.game_index
                ));
                continue;
            }
        }
        let setup = match g.tag("FEN") {
            Some(fen) => match Setup::from_fen(fen) {
                Ok(s) => s,
                Err(e) => {
                    set_error(
                        r,
                        0,
                        kind::SETUP,
                        format!("game {}: FEN tag {}: {e}", r.game_index, e.field.as_str()),
                    );
                    continue;
                }
            },
            None => Setup::standard(),
        };
        let fault = g.fault.as_ref().map(|f| (f.ply, format!("{}", f.message)));
        live.push(Live {
            id: i as u64,
            tokens: g.moves.clone(),
            ply: 0,
            position: setup,
            history: History::default(),
            fault,
            pending: None,
        });
    }
    let p = engine.pipeline();
    // set-up positions the engine rejects (side not to move in check, impossible checks);
    // games without a FEN tag start from the standard position
    let fen_games: Vec<(u64, &Setup)> = live
        .iter()
        .filter(|l| games[l.id as usize].1.tag("FEN").is_some())
        .map(|l| (l.id, &l.position))
        .collect();
    if !fen_games.is_empty() {
        let (positions, pieces) = tables::setups_to_batches(&fen_games)?;
        p.set_table("positions", vec![positions]).await?;
        p.set_table("pieces", vec![pieces]).await?;
        p.run_all(LEGAL).await?;
        let bad = setup_errors(&p.run("setup_checks").await?)?;
        for (id, msg) in &bad {
            let r = &mut reports[*id as usize];
            set_error(
                r,
                0,
                kind::SETUP,
                format!("game {}: FEN tag position: {msg}", r.game_index),
            );
        }
        live.retain(|l| !bad.contains_key(&l.id));
    }
    // moves checked one by one (not with the plies table: its notation needs every legal
    // move); the full stages below take over where replay stops
    if !options.plies {
        let starts: Vec<(u64, &Setup, &[String])> = live
            .iter()
            .map(|l| (l.id, &l.position, l.tokens.as_slice()))
            .collect();
        let mut replayed = replay(engine.pipeline(), &starts).await?;
        for l in live.iter_mut() {
            if let Some(r) = replayed.remove(&l.id) {
                l.ply = r.plies;
                l.history = r.history;
                l.position = r.setup;
                reports[l.id as usize].plies = r.plies as u32;
            }
        }
    }
    let pairs: Vec<(u64, &Setup)> = live.iter().map(|l| (l.id, &l.position)).collect();
    let (positions, pieces) = tables::setups_to_batches(&pairs)?;
    p.set_table("positions", vec![positions]).await?;
    p.set_table("pieces", vec![pieces]).await?;

    while !live.is_empty() {
        p.run_all(LEGAL).await?;
        p.run("position_keys").await?;
        let status = read_status(&p.run("position_status").await?)?;
        let current =
            tables::batches_to_setups(&p.table("positions").await?, &p.table("pieces").await?)?;
        let mut tokens: Vec<(u64, SanToken)> = vec![];
        // games whose token carries the en passant mark (`exd6 e.p.`)
        let mut ep_marked: std::collections::HashSet<u64> = Default::default();
        let mut finished: Vec<u64> = vec![];
        for l in live.iter_mut() {
            let Some(st) = status.get(&l.id) else {
                if let Some(row) = l.pending.take() {
                    plies[l.id as usize].push(row);
                }
                finished.push(l.id);
                continue;
            };
            if let Some(mut row) = l.pending.take() {
                if row.uci != NULL_UCI && st.in_check {
                    row.is_check = true;
                    row.san.push(if st.n_legal == 0 { '#' } else { '+' });
                }
                plies[l.id as usize].push(row);
            }
            l.history.push_position(st.key.clone());
            let r = &mut reports[l.id as usize];
            let ply = l.ply as u32 + 1;
            let Some(token) = l.tokens.get(l.ply) else {
                if let Some((_, msg)) = &l.fault {
                    set_error(
                        r,
                        ply,
                        kind::SYNTAX,
                        format!("game {}: ply {ply}: {msg}", r.game_index),
                    );
                }
                finish(r, l, st, current.get(&l.id));
                finished.push(l.id);
                continue;
            };
            match parse_san(token) {
                Ok((t, suffix)) => {
                    if suffix.en_passant {
                        ep_marked.insert(l.id);
                    }
                    tokens.push((l.id, t));
                }
                Err(e) => {
                    set_error(
                        r,
                        ply,
                        kind::SYNTAX,
                        format!(
                            "game {}: ply {ply}: token {:?}: {e}",
                            r.game_index,
                            short(token)
                        ),
                    );
                    finish(r, l, st, current.get(&l.id));
                    finished.push(l.id);
                }
            }
        }
        let index: HashMap<u64, usize> = live.iter().enumerate().map(|(i, l)| (l.id, i)).collect();
        if !tokens.is_empty() {
            let pairs: Vec<(u64, &SanToken)> = tokens.iter().map(|(i, t)| (*i, t)).collect();
            p.set_table("tokens", vec![tables::tokens_to_batch(&pairs)?])
                .await?;
            p.run("token_matches").await?;
            let verdicts = read_verdicts(&p.run("token_verdicts").await?)?;
            let moves = p.run("token_moves").await?;
            let flags = move_flags(&moves)?;
            let named = if options.plies {
                chosen_notation(engine, &moves).await?
            } else {
                HashMap::new()
            };
            p.set_table("chosen_moves", moves).await?;
            p.run_all(APPLY).await?;
            let mut unmatched: Vec<u64> = vec![];
            for (id, t) in &tokens {
                let l = index
                    .get(id)
                    .and_then(|&i| live.get_mut(i))
                    .ok_or(Error::Poisoned)?;
                let r = &mut reports[*id as usize];
                let st = status.get(id).ok_or(Error::Poisoned)?;
                let (n, has_piece) = verdicts.get(id).copied().unwrap_or((0, false));
                let ply = l.ply as u32 + 1;
                let token = &l.tokens[l.ply];
                let (zeroing, en_passant) = flags.get(id).copied().unwrap_or_default();
                if n == 1 && ep_marked.contains(id) && !en_passant {
                    set_error(
                        r,
                        ply,
                        kind::SYNTAX,
                        format!(
                            "game {}: ply {ply}: token {:?}: en passant mark on a move that is \
                             not an en passant capture",
                            r.game_index,
                            short(token)
                        ),
                    );
                    finish(r, l, st, current.get(id));
                    finished.push(*id);
                    continue;
                }
                if matches!(t, SanToken::Null) || n == 1 {
                    l.history.push_move(zeroing || st.ep_legal_sq.is_some());
                    if options.plies {
                        let mut row = match named.get(id) {
                            Some(row) => row.clone(),
                            None if matches!(t, SanToken::Null) => PlyRow {
                                uci: NULL_UCI.into(),
                                san: "--".into(),
                                ..Default::default()
                            },
                            None => return Err(Error::Poisoned),
                        };
                        row.game_id = r.game_index;
                        row.ply = ply;
                        row.fen_before = current
                            .get(id)
                            .map(|s| fen_of(s, st))
                            .ok_or(Error::Poisoned)?;
                        l.pending = Some(row);
                    }
                    l.ply += 1;
                    r.plies = l.ply as u32;
                    continue;
                }
                let (k, why) = if n > 1 {
                    (kind::AMBIGUOUS, format!("{n} legal moves match it"))
                } else if matches!(t, SanToken::Castle { .. }) {
                    (kind::ILLEGAL, "castling is not legal here".to_string())
                } else {
                    unmatched.push(*id);
                    if has_piece {
                        (kind::ILLEGAL, "no legal move matches it".to_string())
                    } else {
                        (
                            kind::NO_SUCH_PIECE,
                            "the side to move has no such piece there".to_string(),
                        )
                    }
                };
                let side = if current.get(id).map(|s| s.side_to_move) == Some(Color::Black) {
                    "black"
                } else {
                    "white"
                };
                set_error(
                    r,
                    ply,
                    k,
                    format!(
                        "game {}: ply {ply} ({side}): {:?}: {why}",
                        r.game_index,
                        short(token)
                    ),
                );
                finish(r, l, st, current.get(id));
                finished.push(*id);
            }
            if !unmatched.is_empty() {
                for id in wrong_side(engine, &unmatched).await? {
                    let r = &mut reports[id as usize];
                    r.error_kind = Some(kind::WRONG_SIDE.into());
                    if let Some(m) = &mut r.error_message {
                        *m = m
                            .replace(
                                "the side to move has no such piece there",
                                "only the side not to move has this move",
                            )
                            .replace(
                                "no legal move matches it",
                                "only the side not to move has this move",
                            );
                    }
                }
            }
            let finished: std::collections::HashSet<u64> = finished.into_iter().collect();
            live.retain(|l| !finished.contains(&l.id));
            let keep: std::collections::HashSet<u64> = live.iter().map(|l| l.id).collect();
            let positions =
                tables::filter_ids(&p.table("next_positions").await?, |id| keep.contains(&id))?;
            let pieces =
                tables::filter_ids(&p.table("next_pieces").await?, |id| keep.contains(&id))?;
            p.set_table("positions", positions).await?;
            p.set_table("pieces", pieces).await?;
        } else {
            let finished: std::collections::HashSet<u64> = finished.into_iter().collect();
            live.retain(|l| !finished.contains(&l.id));
            keep_ids(engine, &live).await?;
        }
    }
    Ok(Validation {
        reports,
        plies: plies.into_iter().flatten().collect(),
    })
}

/// Validation on several pipelines at once, one OS thread each: a batch of games is cut into
/// one share per pipeline (about the same number of plies each), the shares are validated
/// side by side with [`validate_games_with`], and the results are put back in input order.
///
/// Replay (see [`crate::engine::replay`]) runs small stages once per ply, on one row per game; at
/// that size a second DataFusion partition costs more than it gives, so each pipeline has
/// one partition and the cores are used by the shares instead.
pub struct Validator {
    engines: Vec<Engine>,
}

impl Validator {
    /// `threads` pipelines (at least one) of `config` with one target partition each.
    ///
    /// Errors: as [`Engine::new`].
    pub async fn new(threads: usize, config: crate::PipelineConfig) -> Result<Validator> {
        let mut engines = vec![];
        for _ in 0..threads.max(1) {
            engines.push(
                Engine::new(crate::PipelineConfig {
                    target_partitions: 1,
                    ..config.clone()
                })
                .await?,
            );
        }
        Ok(Validator { engines })
    }

    /// The pipelines (for their per-stage profiles).
    pub fn engines(&self) -> &[Engine] {
        &self.engines
    }

    /// [`validate_games_with`] over the shares of `games`, each on its own thread with its
    /// own single-threaded tokio runtime. Blocks the calling thread until all are done.
    ///
    /// Errors: as [`validate_games`]; [`Error::Io`] when a thread's runtime cannot start;
    /// [`Error::Poisoned`] when a thread panicked.
    pub fn validate(
        &self,
        games: &[(&str, RawGame)],
        options: ValidateOptions,
    ) -> Result<Validation> {
        let shares = shares(games, self.engines.len());
        let results: Vec<Result<Validation>> = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .iter()
                .zip(&self.engines)
                .map(|(share, engine)| {
                    scope.spawn(move || {
                        tokio::runtime::Builder::new_current_thread()
                            .build()
                            .map_err(|source| Error::Io {
                                path: "tokio runtime".into(),
                                source,
                            })?
                            .block_on(validate_games_with(engine, share, options))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Err(Error::Poisoned)))
                .collect()
        });
        let mut out = Validation::default();
        for r in results {
            let mut v = r?;
            out.reports.append(&mut v.reports);
            out.plies.append(&mut v.plies);
        }
        Ok(out)
    }
}

/// `games` cut into at most `n` consecutive shares with about the same number of move
/// tokens each.
fn shares<'a, 'g>(games: &'a [(&'g str, RawGame)], n: usize) -> Vec<&'a [(&'g str, RawGame)]> {
    let total: usize = games.iter().map(|(_, g)| g.moves.len() + 1).sum();
    let mut out = vec![];
    let (mut start, mut acc) = (0, 0);
    for (i, (_, g)) in games.iter().enumerate() {
        acc += g.moves.len() + 1;
        if acc * n >= total * (out.len() + 1) && out.len() + 1 < n {
            out.push(&games[start..=i]);
            start = i + 1;
        }
    }
    out.push(&games[start..]);
    out.retain(|s| !s.is_empty());
    out
}

/// UCI of a null move (python-chess `Move.null().uci()`).
const NULL_UCI: &str = "0000";

/// The notation of the chosen moves (`token_moves`, null moves left out) by game id: stage
/// `san` over the current legal moves, without check suffixes (`move_flags` emptied; the
/// caller adds them from the status of the position after the move). Leaves `legal_moves`
/// as it was.
async fn chosen_notation(engine: &Engine, moves: &[RecordBatch]) -> Result<HashMap<u64, PlyRow>> {
    let p = engine.pipeline();
    let mut chosen: HashMap<u64, i32> = HashMap::new();
    for b in moves {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let code: &Int32Array = column(b, "move_code")?;
        let null: &BooleanArray = column(b, "is_null")?;
        for i in 0..b.num_rows() {
            if !null.value(i) {
                chosen.insert(id.value(i), code.value(i));
            }
        }
    }
    if chosen.is_empty() {
        return Ok(HashMap::new());
    }
    p.set_table("move_flags", vec![]).await?;
    let mut out = HashMap::with_capacity(chosen.len());
    for b in &p.run("san").await? {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let code: &Int32Array = column(b, "move_code")?;
        let uci: &StringArray = column(b, "uci")?;
        let san: &StringArray = column(b, "san")?;
        let capture: &BooleanArray = column(b, "is_capture")?;
        let castling: &BooleanArray = column(b, "is_castling")?;
        let ep: &BooleanArray = column(b, "is_en_passant")?;
        let promotion: &StringArray = column(b, "promotion")?;
        for i in 0..b.num_rows() {
            if chosen.get(&id.value(i)) != Some(&code.value(i)) {
                continue;
            }
            out.insert(
                id.value(i),
                PlyRow {
                    uci: uci.value(i).to_string(),
                    san: san.value(i).to_string(),
                    is_capture: capture.value(i),
                    is_castling: castling.value(i),
                    is_en_passant: ep.value(i),
                    promotion: (!promotion.is_null(i))
                        .then(|| promotion.value(i).to_ascii_lowercase()),
                    ..Default::default()
                },
            );
        }
    }
    Ok(out)
}

/// FEN of a position as python-chess writes it: the en passant square only when an en
/// passant capture is legal (`position_status`).
fn fen_of(setup: &Setup, st: &Status) -> String {
    let mut s = *setup;
    s.ep_square = st.ep_legal_sq;
    s.to_fen()
}

/// Keeps only the live games in `positions` and `pieces`.
async fn keep_ids(engine: &Engine, live: &[Live]) -> Result<()> {
    let p = engine.pipeline();
    let keep: std::collections::HashSet<u64> = live.iter().map(|l| l.id).collect();
    for name in ["positions", "pieces"] {
        let kept = tables::filter_ids(&p.table(name).await?, |id| keep.contains(&id))?;
        p.set_table(name, kept).await?;
    }
    Ok(())
}

/// The games among `ids` whose token is exactly one legal move of the other side
/// (en passant square cleared): stages `flipped_positions`, then the legal-move stages and
/// token resolution again. The tables `positions`/`pieces` are left as `flipped_*`.
async fn wrong_side(engine: &Engine, ids: &[u64]) -> Result<Vec<u64>> {
    let p = engine.pipeline();
    let tokens = tables::filter_ids(&p.table("tokens").await?, |id| ids.contains(&id))?;
    p.set_table("tokens", tokens).await?;
    let positions = p.run("flipped_positions").await?;
    let pieces = tables::filter_ids(&p.table("pieces").await?, |id| ids.contains(&id))?;
    p.set_table("positions", positions).await?;
    p.set_table("pieces", pieces).await?;
    p.run_all(LEGAL).await?;
    p.run("token_matches").await?;
    let verdicts = read_verdicts(&p.run("token_verdicts").await?)?;
    Ok(verdicts
        .into_iter()
        .filter(|(_, (n, _))| *n == 1)
        .map(|(id, _)| id)
        .collect())
}

fn short(token: &str) -> String {
    if token.len() > 40 {
        let cut: String = token.chars().take(32).collect();
        format!("{cut}... ({} bytes)", token.len())
    } else {
        token.to_string()
    }
}

fn set_error(r: &mut GameReport, ply: u32, k: &str, msg: String) {
    r.first_illegal_ply = Some(ply);
    r.error_kind = Some(k.to_string());
    r.error_message = Some(msg);
}

fn base_report(file: &str, g: &RawGame) -> GameReport {
    let tag = |n: &str| g.tag(n).unwrap_or("?").to_string();
    GameReport {
        file: file.to_string(),
        game_index: g.index as u64,
        white: tag("White"),
        black: tag("Black"),
        event: tag("Event"),
        date: tag("Date"),
        result: g.tag("Result").unwrap_or("*").to_string(),
        start_fen: g.tag("FEN").map(str::to_string),
        result_consistent: true,
        ..Default::default()
    }
}

/// Fills final FEN and status (python-chess `outcome(claim_draw=False)` order, then
/// fifty-move and threefold claims: see `shared/data/oracle/README.md`).
fn finish(r: &mut GameReport, l: &Live, st: &Status, setup: Option<&Setup>) {
    if let Some(s) = setup {
        r.final_fen = Some(fen_of(s, st));
    }
    let halfmove = setup.map(|s| s.halfmove_clock).unwrap_or(0);
    let reps = l.history.repetitions();
    let status = if st.n_legal == 0 && st.in_check {
        "checkmate"
    } else if st.n_legal == 0 {
        "stalemate"
    } else if st.insufficient {
        "insufficient_material"
    } else if halfmove >= 150 {
        "seventyfive_moves"
    } else if reps >= 5 {
        "fivefold_repetition"
    } else if halfmove >= 100 {
        "fifty_moves"
    } else if reps >= 3 {
        "threefold_repetition"
    } else {
        "ongoing"
    };
    r.final_status = Some(status.to_string());
    let mover = setup.map(|s| s.side_to_move);
    r.result_consistent = match status {
        "checkmate" => match mover {
            Some(Color::White) => r.result == "0-1",
            Some(Color::Black) => r.result == "1-0",
            None => true,
        },
        "stalemate" => r.result == "1/2-1/2",
        _ => true,
    };
}

fn read_status(batches: &[RecordBatch]) -> Result<HashMap<u64, Status>> {
    let mut out = HashMap::new();
    for b in batches {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let n: &Int64Array = column(b, "n_legal")?;
        let check: &BooleanArray = column(b, "in_check")?;
        let wi: &BooleanArray = column(b, "white_insufficient")?;
        let bi: &BooleanArray = column(b, "black_insufficient")?;
        let keys: Vec<_> = [
            "key_occupied",
            "key_white",
            "key_bit0",
            "key_bit1",
            "key_bit2",
        ]
        .iter()
        .map(|k| {
            b.column_by_name(k)
                .map(|c| c.as_primitive::<UInt64Type>().clone())
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| Error::Schema("position_status keys".into()))?;
        let side: &StringArray = column(b, "side_to_move")?;
        let rights = tables::castling_columns(b)?;
        let ep: &Int32Array = column(b, "ep_key")?;
        for i in 0..b.num_rows() {
            let ep_key = if ep.is_null(i) { -1 } else { ep.value(i) };
            out.insert(
                id.value(i),
                Status {
                    n_legal: n.value(i),
                    in_check: check.value(i),
                    ep_legal_sq: (ep_key >= 0).then_some(ep_key as u8),
                    insufficient: wi.value(i) && bi.value(i),
                    key: (
                        keys[0].value(i),
                        keys[1].value(i),
                        keys[2].value(i),
                        keys[3].value(i),
                        keys[4].value(i),
                        side.value(i).to_string(),
                        rights.map(|r| r.value(i)),
                        ep_key,
                    ),
                },
            );
        }
    }
    Ok(out)
}

fn read_verdicts(batches: &[RecordBatch]) -> Result<BTreeMap<u64, (i64, bool)>> {
    let mut out = BTreeMap::new();
    for b in batches {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let n: &Int64Array = column(b, "n_matches")?;
        let has: &BooleanArray = column(b, "has_piece")?;
        for i in 0..b.num_rows() {
            out.insert(id.value(i), (n.value(i), has.value(i)));
        }
    }
    Ok(out)
}

/// Per chosen move: whether it is zeroing (pawn move or capture, FIDE art. 9.3) and whether
/// it is an en passant capture (art. 3.7.4.1).
fn move_flags(batches: &[RecordBatch]) -> Result<HashMap<u64, (bool, bool)>> {
    let mut out = HashMap::new();
    for b in batches {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let piece: &StringArray = column(b, "piece")?;
        let captured: &StringArray = column(b, "captured")?;
        let en_passant: &BooleanArray = column(b, "is_en_passant")?;
        for i in 0..b.num_rows() {
            let zeroing = (!piece.is_null(i) && piece.value(i) == "P") || !captured.is_null(i);
            out.insert(id.value(i), (zeroing, en_passant.value(i)));
        }
    }
    Ok(out)
}

fn setup_errors(batches: &[RecordBatch]) -> Result<HashMap<u64, String>> {
    let mut out = HashMap::new();
    for b in batches {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let msg: &StringArray = column(b, "message")?;
        for i in 0..b.num_rows() {
            out.entry(id.value(i))
                .or_insert_with(|| msg.value(i).to_string());
        }
    }
    Ok(out)
}
