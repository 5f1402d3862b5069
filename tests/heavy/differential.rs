//! Differential testing against shakmaty (a native move generator, dev-dependency only):
//! random playouts, from the standard position and from real-game positions of the shared
//! data (`oracle/positions.csv.gz`), with moves chosen with a bias towards castling,
//! promotions, en passant and checks.
//!
//! * Positions: every position of the playouts, given to [`Engine::legal_moves`] as a FEN
//!   (en passant square written only when a capture is legal, or after every double push):
//!   the legal moves must be shakmaty's, with the same UCI and SAN (`+`/`#` included).
//! * Games: random games written as PGN (SAN with or without `+`/`#`, `0-0` castling, UCI
//!   tokens; some start from a `FEN` tag, some shuffle pieces back and forth to repeat
//!   positions, some end with a token that is not a legal move there), validated in batches
//!   ([`Validator`]): plies, first illegal ply, final FEN (python-chess conventions: en passant
//!   square only when a capture is legal) and final status (python-chess 1.11.2's
//!   `outcome()`, then fifty moves, then threefold repetition, modelled below) must be
//!   shakmaty's replay; in every fourth batch also every ply row (`--plies`).
//!
//! Counts: 10,000 positions and 10,000 games here; `SQLCHESS_DIFF_POSITIONS=1000000
//! SQLCHESS_DIFF_GAMES=100000 cargo test --release --features shared-data --test
//! shared_data differential -- --nocapture` for the opt-in run (batches of 10,000 positions,
//! 5,000 games). `SQLCHESS_DIFF_SEED` changes the seed.

use std::collections::HashMap;
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::{Bitboard, CastlingMode, Chess, EnPassantMode, Move, Position};
use sqlchess::pgn::PgnReader;
use sqlchess::validate::{PlyRow, ValidateOptions, Validator};
use sqlchess::{PipelineConfig, Setup};

use crate::common::{Rng, engine, env_count, moves_by_position, rt};

/// Real-game positions of the shared data (standard ones), as shakmaty positions.
fn real_positions() -> Vec<Chess> {
    let file = std::fs::File::open(super::shared("oracle/positions.csv.gz"))
        .expect("oracle/positions.csv.gz");
    let mut rdr = csv::Reader::from_reader(flate2::read::GzDecoder::new(file));
    let out: Vec<Chess> = rdr
        .records()
        .map(|r| r.expect("row"))
        .filter(|r| !r[6].eq_ignore_ascii_case("true"))
        .map(|r| {
            r[0].parse::<Fen>()
                .expect("fen")
                .into_position(CastlingMode::Standard)
                .expect("position")
        })
        .collect();
    assert_eq!(out.len(), 19_600);
    out
}

fn fen(pos: &Chess, mode: EnPassantMode) -> String {
    Fen::from_position(pos, mode).to_string()
}

/// A legal move of `pos` (which has some), chosen with weights: castling, promotion and en
/// passant 8, a check 4, a capture 2, any other 1.
fn biased_move(pos: &Chess, rng: &mut Rng) -> Move {
    let moves = pos.legal_moves();
    let weights: Vec<u64> = moves
        .iter()
        .map(|m| {
            let gives_check = || {
                let mut after = pos.clone();
                after.play_unchecked(*m);
                after.is_check()
            };
            if m.is_castle() || m.is_promotion() || m.is_en_passant() {
                8
            } else if gives_check() {
                4
            } else if m.is_capture() {
                2
            } else {
                1
            }
        })
        .collect();
    let mut pick = rng.next_u64() % weights.iter().sum::<u64>();
    for (m, w) in moves.iter().zip(&weights) {
        if pick < *w {
            return *m;
        }
        pick -= w;
    }
    moves[moves.len() - 1]
}

/// A start: the standard position or (half the time, when there are some) a real-game one.
fn start(real: &[Chess], rng: &mut Rng) -> (Chess, bool) {
    if real.is_empty() || rng.chance(1, 2) {
        (Chess::default(), false)
    } else {
        (real[rng.below(real.len())].clone(), true)
    }
}

/// `n` positions of biased random playouts (each up to 200 plies).
fn playout_positions(real: &[Chess], rng: &mut Rng, n: usize) -> Vec<Chess> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let (mut pos, _) = start(real, rng);
        let len = 1 + rng.below(200);
        for _ in 0..len {
            out.push(pos.clone());
            if out.len() >= n || pos.legal_moves().is_empty() {
                break;
            }
            let m = biased_move(&pos, rng);
            pos.play_unchecked(m);
        }
    }
    out
}

/// Shakmaty's legal moves of `pos`: (UCI, SAN with `+`/`#`), sorted by UCI.
fn shakmaty_moves(pos: &Chess) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            (
                m.to_uci(CastlingMode::Standard).to_string(),
                SanPlus::from_move(pos.clone(), *m).to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn differential_positions_against_shakmaty() {
    let n = env_count("SQLCHESS_DIFF_POSITIONS", 10_000);
    let seed = env_count("SQLCHESS_DIFF_SEED", 20261130) as u64;
    let real = real_positions();
    let mut rng = Rng(seed);
    let t0 = Instant::now();
    let (mut done, mut moves_compared) = (0usize, 0usize);
    let mut disagreements: Vec<String> = vec![];
    let mut features = [0usize; 4]; // castling, promotion, en passant, check available
    rt().block_on(async {
        let e = engine().await;
        while done < n {
            let batch = playout_positions(&real, &mut rng, (n - done).min(10_000));
            let fens: Vec<String> = batch
                .iter()
                .map(|p| {
                    let mode = if rng.chance(1, 4) {
                        EnPassantMode::Always
                    } else {
                        EnPassantMode::Legal
                    };
                    fen(p, mode)
                })
                .collect();
            let setups: Vec<Setup> = fens
                .iter()
                .map(|f| Setup::from_fen(f).unwrap_or_else(|err| panic!("{f}: {err}")))
                .collect();
            let got = moves_by_position(&e, &setups).await;
            for ((pos, f), have) in batch.iter().zip(&fens).zip(&got) {
                let want = shakmaty_moves(pos);
                let have: Vec<(String, String)> = have
                    .iter()
                    .map(|m| (m.uci.clone(), m.san.clone()))
                    .collect();
                moves_compared += want.len();
                for m in pos.legal_moves() {
                    features[0] += usize::from(m.is_castle());
                    features[1] += usize::from(m.is_promotion());
                    features[2] += usize::from(m.is_en_passant());
                }
                features[3] += usize::from(want.iter().any(|(_, s)| s.ends_with(['+', '#'])));
                if have != want {
                    let only_ours: Vec<_> = have.iter().filter(|m| !want.contains(m)).collect();
                    let only_theirs: Vec<_> = want.iter().filter(|m| !have.contains(m)).collect();
                    disagreements.push(format!(
                        "{f}: only sqlchess {only_ours:?}, only shakmaty {only_theirs:?}"
                    ));
                }
            }
            done += batch.len();
            if n > 10_000 {
                eprintln!(
                    "differential positions: {done}/{n}, {} disagreements, {:.0} s",
                    disagreements.len(),
                    t0.elapsed().as_secs_f64()
                );
            }
        }
    });
    eprintln!(
        "differential positions: {done} positions, {moves_compared} moves \
         (castling {}, promotion {}, en passant {}, positions with a check {}), \
         {} disagreements, {:.1} s",
        features[0],
        features[1],
        features[2],
        features[3],
        disagreements.len(),
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(done, n);
    assert!(
        features.iter().all(|&c| c > 0),
        "the playouts reach castling, promotions, en passant and checks: {features:?}"
    );
    assert!(
        disagreements.is_empty(),
        "{} of {n} positions disagree with shakmaty:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(50)].join("\n")
    );
}

/// python-chess's position key (`Board._transposition_key`): board, side to move, castling
/// rights, en passant square when a capture is legal.
fn key(pos: &Chess) -> String {
    let f = fen(pos, EnPassantMode::Legal);
    f.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// A game's positions and, for each move, whether python-chess's `is_irreversible` holds
/// for it (a capture or pawn move, castling rights lost, or a legal en passant capture in
/// the position it leaves).
struct History {
    keys: Vec<String>,
    irreversible: Vec<bool>,
}

impl History {
    fn new(start: &Chess) -> History {
        History {
            keys: vec![key(start)],
            irreversible: vec![],
        }
    }

    fn push(&mut self, before: &Chess, m: Move, after: &Chess) {
        let rights = |p: &Chess| -> Bitboard { p.castles().castling_rights() };
        self.irreversible.push(
            m.is_zeroing() || rights(before) != rights(after) || before.legal_ep_square().is_some(),
        );
        self.keys.push(key(after));
    }

    /// python-chess `Board.is_repetition(count)` for the last position.
    fn is_repetition(&self, mut count: usize) -> bool {
        let Some(current) = self.keys.last() else {
            return false;
        };
        let mut i = self.keys.len() - 1;
        loop {
            if count <= 1 {
                return true;
            }
            if i < count - 1 {
                return false;
            }
            i -= 1;
            if self.irreversible[i] {
                return false;
            }
            if &self.keys[i] == current {
                count -= 1;
            }
        }
    }
}

/// python-chess's status of the last position (the report's `final_status`).
fn status(pos: &Chess, history: &History) -> &'static str {
    let has_moves = !pos.legal_moves().is_empty();
    if pos.is_checkmate() {
        "checkmate"
    } else if pos.is_insufficient_material() {
        "insufficient_material"
    } else if !has_moves {
        "stalemate"
    } else if pos.halfmoves() >= 150 {
        "seventyfive_moves"
    } else if history.is_repetition(5) {
        "fivefold_repetition"
    } else if pos.halfmoves() >= 100 {
        "fifty_moves"
    } else if history.is_repetition(3) {
        "threefold_repetition"
    } else {
        "ongoing"
    }
}

/// A random game and what validating it must give.
struct GameCase {
    pgn: String,
    plies: u32,
    /// The 1-based ply of the last token, which is not a legal move there, and whether
    /// shakmaty finds it ambiguous.
    illegal: Option<(u32, bool)>,
    final_fen: String,
    status: &'static str,
    /// (fen_before, uci, san) of each legal ply.
    rows: Vec<(String, String, String)>,
}

/// A movetext token for `m`: SAN with `+`/`#` mostly, sometimes without them, `0-0` for
/// castling, or UCI.
fn token(pos: &Chess, m: Move, rng: &mut Rng) -> String {
    match rng.below(20) {
        0 | 1 => m.to_uci(CastlingMode::Standard).to_string(),
        2 | 3 => San::from_move(pos, m).to_string(),
        4 if m.is_castle() => San::from_move(pos, m).to_string().replace('O', "0"),
        _ => SanPlus::from_move(pos.clone(), m).to_string(),
    }
}

/// How many legal moves of `pos` python-chess's `parse_san` finds for `san` (2 = two or
/// more): as shakmaty, except that a capture mark `x` is not checked (a pawn token without
/// a file still only moves along its file).
fn python_chess_matches(san: San, pos: &Chess) -> usize {
    let count = |s: San| match s.to_move(pos) {
        Ok(_) => 1,
        Err(SanError::IllegalSan) => 0,
        Err(SanError::AmbiguousSan) => 2,
    };
    match san {
        San::Normal {
            role: shakmaty::Role::Pawn,
            file: None,
            ..
        } => count(san),
        San::Normal {
            role,
            file,
            rank,
            to,
            promotion,
            ..
        } => {
            let with = |capture| San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            };
            (count(with(true)) + count(with(false))).min(2)
        }
        other => count(other),
    }
}

/// A random game: from the standard position or a real-game one (`FEN` tag), up to 250 plies
/// of biased moves; a fifth of the games move a piece back where it came from whenever it
/// can (repetitions); some end with a SAN token of another position that is not a legal
/// move here. `pool` collects SAN tokens for that.
fn random_game(index: usize, real: &[Chess], pool: &mut Vec<String>, rng: &mut Rng) -> GameCase {
    let (start_pos, from_fen) = start(real, rng);
    let mut pos = start_pos.clone();
    let mut history = History::new(&pos);
    let mut tags = format!("[Event \"differential {index}\"]\n[Result \"*\"]\n");
    if from_fen {
        let mode = if rng.chance(1, 3) {
            EnPassantMode::Always
        } else {
            EnPassantMode::Legal
        };
        tags += &format!("[SetUp \"1\"]\n[FEN \"{}\"]\n", fen(&pos, mode));
    }
    let shuffle = rng.chance(1, 5);
    let len = rng.below(251);
    let mut tokens: Vec<String> = vec![];
    let mut rows = vec![];
    let mut played: Vec<Move> = vec![];
    while tokens.len() < len && !pos.legal_moves().is_empty() {
        let back = played
            .len()
            .checked_sub(2)
            .map(|i| played[i])
            .and_then(|m| {
                let from = m.from()?;
                pos.legal_moves()
                    .iter()
                    .find(|l| {
                        l.from() == Some(m.to())
                            && l.to() == from
                            && !l.is_zeroing()
                            && !l.is_castle()
                    })
                    .copied()
            });
        let m = match back {
            Some(b) if shuffle && rng.chance(9, 10) => b,
            _ => biased_move(&pos, rng),
        };
        let t = token(&pos, m, rng);
        if rng.chance(1, 8) {
            pool.push(San::from_move(&pos, m).to_string());
        }
        rows.push((
            fen(&pos, EnPassantMode::Legal),
            m.to_uci(CastlingMode::Standard).to_string(),
            SanPlus::from_move(pos.clone(), m).to_string(),
        ));
        let before = pos.clone();
        pos.play_unchecked(m);
        history.push(&before, m, &pos);
        played.push(m);
        tokens.push(t);
    }
    let plies = tokens.len() as u32;
    let mut illegal = None;
    if !pool.is_empty() && !pos.legal_moves().is_empty() && rng.chance(1, 6) {
        for _ in 0..20 {
            let t = pool[rng.below(pool.len())].clone();
            let matches = python_chess_matches(t.parse::<San>().expect("san"), &pos);
            if matches != 1 {
                illegal = Some((plies + 1, matches > 1));
                tokens.push(t);
                // a legal-looking continuation that must not be read
                tokens.push("e4".into());
                break;
            }
        }
    }
    // move numbers as PGN writes them
    let mut movetext = String::new();
    let (mut number, mut white) = (
        start_pos.fullmoves().get(),
        start_pos.turn() == shakmaty::Color::White,
    );
    for (i, t) in tokens.iter().enumerate() {
        if white {
            movetext += &format!("{number}. ");
        } else if i == 0 {
            movetext += &format!("{number}... ");
        }
        movetext += t;
        movetext.push(' ');
        if !white {
            number += 1;
        }
        white = !white;
    }
    GameCase {
        pgn: format!("{tags}\n{movetext}*\n\n"),
        plies,
        illegal,
        final_fen: fen(&pos, EnPassantMode::Legal),
        status: status(&pos, &history),
        rows,
    }
}

/// The differences between what validating `case` gave and what it must give.
fn compare_game(
    case: &GameCase,
    report: &sqlchess::validate::GameReport,
    rows: Option<&[PlyRow]>,
) -> Vec<String> {
    fn check(out: &mut Vec<String>, what: &str, have: String, want: String) {
        if have != want {
            out.push(format!("{what}: sqlchess {have}, shakmaty {want}"));
        }
    }
    let mut out = vec![];
    check(
        &mut out,
        "plies",
        report.plies.to_string(),
        case.plies.to_string(),
    );
    check(
        &mut out,
        "first_illegal_ply",
        format!("{:?}", report.first_illegal_ply),
        format!("{:?}", case.illegal.map(|(p, _)| p)),
    );
    if let Some((_, ambiguous)) = case.illegal {
        let kind = report
            .error_kind
            .map(sqlchess::validate::ErrorKind::as_str)
            .unwrap_or("");
        let ok = if ambiguous {
            kind == "ambiguous_move"
        } else {
            ["illegal_move", "no_such_piece", "wrong_side"].contains(&kind)
        };
        if !ok {
            out.push(format!(
                "error_kind: sqlchess {kind:?}, shakmaty {}",
                if ambiguous { "ambiguous" } else { "illegal" }
            ));
        }
    } else {
        check(
            &mut out,
            "error_kind",
            format!("{:?}", report.error_kind),
            "None".into(),
        );
    }
    check(
        &mut out,
        "final_fen",
        report.final_fen.clone().unwrap_or_default(),
        case.final_fen.clone(),
    );
    check(
        &mut out,
        "final_status",
        report
            .final_status
            .map_or(String::new(), |s| s.as_str().to_string()),
        case.status.to_string(),
    );
    if let Some(rows) = rows {
        let have: Vec<(String, String, String)> = rows
            .iter()
            .map(|r| (r.fen_before(), r.uci.clone(), r.san.clone()))
            .collect();
        if have != case.rows {
            let at = have
                .iter()
                .zip(&case.rows)
                .position(|(a, b)| a != b)
                .unwrap_or(have.len().min(case.rows.len()));
            out.push(format!(
                "ply rows ({} vs {}) differ from ply {}: sqlchess {:?}, shakmaty {:?}",
                have.len(),
                case.rows.len(),
                at + 1,
                have.get(at),
                case.rows.get(at)
            ));
        }
    }
    out
}

#[test]
fn differential_games_against_shakmaty() {
    let n = env_count("SQLCHESS_DIFF_GAMES", 10_000);
    let seed = env_count("SQLCHESS_DIFF_SEED", 20261130) as u64 ^ 0x5eed;
    let batch_size = 5_000;
    let real = real_positions();
    let mut rng = Rng(seed);
    let mut pool: Vec<String> = vec![];
    let runtime = rt();
    let validator = runtime
        .block_on(Validator::new(2, PipelineConfig::default()))
        .expect("validator");
    let t0 = Instant::now();
    let (mut done, mut plies, mut rows_compared, mut illegal) = (0usize, 0u64, 0usize, 0usize);
    let mut statuses: HashMap<&'static str, usize> = HashMap::new();
    let mut disagreements: Vec<String> = vec![];
    let mut batch_index = 0;
    while done < n {
        let cases: Vec<GameCase> = (done..(done + batch_size).min(n))
            .map(|i| random_game(i, &real, &mut pool, &mut rng))
            .collect();
        let text: String = cases.iter().map(|c| c.pgn.as_str()).collect();
        let games: Vec<_> = PgnReader::new(text.as_bytes())
            .map(|g| ("differential.pgn", g.expect("read")))
            .collect();
        assert_eq!(games.len(), cases.len(), "one game read per game written");
        let with_rows = batch_index % 4 == 1;
        let v = validator
            .validate(&games, ValidateOptions::with_plies(with_rows))
            .expect("validate");
        assert_eq!(v.reports.len(), cases.len());
        let mut by_game: HashMap<u64, Vec<PlyRow>> = HashMap::new();
        for r in v.plies.into_iter().flatten() {
            by_game.entry(r.game_index).or_default().push(r);
        }
        for (case, report) in cases.iter().zip(&v.reports) {
            let rows = with_rows.then(|| by_game.remove(&report.game_index).unwrap_or_default());
            rows_compared += rows.as_ref().map_or(0, Vec::len);
            let diffs = compare_game(case, report, rows.as_deref());
            if !diffs.is_empty() {
                disagreements.push(format!("{}{}\n", case.pgn, diffs.join("\n")));
            }
            plies += u64::from(case.plies);
            illegal += usize::from(case.illegal.is_some());
            *statuses.entry(case.status).or_default() += 1;
        }
        done += cases.len();
        batch_index += 1;
        if n > 10_000 {
            eprintln!(
                "differential games: {done}/{n}, {} disagreements, {:.0} s",
                disagreements.len(),
                t0.elapsed().as_secs_f64()
            );
        }
    }
    let mut statuses: Vec<_> = statuses.into_iter().collect();
    statuses.sort();
    eprintln!(
        "differential games: {done} games, {plies} plies, {rows_compared} ply rows, \
         {illegal} ending with an illegal token, statuses {statuses:?}, {} disagreements, {:.1} s",
        disagreements.len(),
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(done, n);
    for s in ["checkmate", "stalemate", "threefold_repetition", "ongoing"] {
        assert!(
            statuses.iter().any(|(k, c)| *k == s && *c > 0),
            "no game ends in {s}: {statuses:?}"
        );
    }
    assert!(
        disagreements.is_empty(),
        "{} of {n} games disagree with shakmaty:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
}
