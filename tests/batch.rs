//! Batch validation extras: the per-ply table (`validate --plies`, [`validate_games_with`])
//! checked against shakmaty, and `result_consistent` on pgn-extract's fix-result-tags input.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use common::{data, engine, rt, scratch};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};
use sqlchess::PipelineConfig;
use sqlchess::chess::outcome::FinalStatus;
use sqlchess::pgn::PgnReader;
use sqlchess::validate::{
    ErrorKind, PlyRow, ValidateOptions, Validator, validate_games, validate_games_with,
};

/// One row of the per-ply CSV, as written.
#[derive(Debug, Clone)]
struct CsvPly {
    game_index: u64,
    ply: u32,
    color: String,
    move_number: u32,
    fen_before: String,
    uci: String,
    san: String,
    is_capture: bool,
    is_check: bool,
    is_castling: bool,
    is_en_passant: bool,
    promotion: Option<String>,
}

fn flag(s: &str) -> bool {
    match s {
        "true" => true,
        "false" => false,
        _ => panic!("not a boolean: {s:?}"),
    }
}

/// The start position and its castling mode: Chess960 when the castling rights are valid
/// only there (python-chess reads such a PGN `FEN` tag as Chess960).
fn start_position(start_fen: Option<&str>) -> (Chess, CastlingMode) {
    match start_fen {
        Some(f) => {
            let fen = Fen::from_ascii(f.as_bytes()).expect("start fen");
            match fen.clone().into_position(CastlingMode::Standard) {
                Ok(pos) => (pos, CastlingMode::Standard),
                Err(_) => (
                    fen.into_position(CastlingMode::Chess960)
                        .expect("start position"),
                    CastlingMode::Chess960,
                ),
            }
        }
        None => (Chess::default(), CastlingMode::Standard),
    }
}

/// Replays one game's rows with shakmaty from its start position: each row's FEN before,
/// UCI, SAN and flags must be shakmaty's.
fn check_against_shakmaty((start, mode): (Chess, CastlingMode), rows: &[CsvPly]) {
    let mut pos = start;
    for (i, r) in rows.iter().enumerate() {
        let at = format!("game {} ply {}", r.game_index, r.ply);
        assert_eq!(r.ply as usize, i + 1, "{at}: plies numbered from 1");
        assert_eq!(
            r.fen_before,
            Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
            "{at}: fen_before"
        );
        let mover = if pos.turn() == shakmaty::Color::White {
            "white"
        } else {
            "black"
        };
        assert_eq!(r.color, mover, "{at}: color");
        assert_eq!(r.move_number, pos.fullmoves().get(), "{at}: move_number");
        if r.uci == "0000" {
            assert_eq!(r.san, "--", "{at}: null move");
            assert!(
                !r.is_check && !r.is_capture && r.promotion.is_none(),
                "{at}"
            );
            pos = common::after_null_move(&pos);
            continue;
        }
        let m = r
            .uci
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("{at}: {} is not legal: {e}", r.uci));
        assert_eq!(m.to_uci(mode).to_string(), r.uci, "{at}: uci");
        let san = SanPlus::from_move(pos.clone(), m).to_string();
        assert_eq!(r.san, san, "{at}: san");
        assert_eq!(r.is_capture, m.is_capture(), "{at}: is_capture");
        assert_eq!(r.is_en_passant, m.is_en_passant(), "{at}: is_en_passant");
        assert_eq!(r.is_castling, m.is_castle(), "{at}: is_castling");
        assert_eq!(
            r.promotion,
            m.promotion().map(|p| p.upper_char().to_string()),
            "{at}: promotion"
        );
        // the flags agree with the SAN text
        assert_eq!(r.is_capture, r.san.contains('x'), "{at}");
        assert_eq!(
            r.is_check,
            r.san.ends_with('+') || r.san.ends_with('#'),
            "{at}"
        );
        assert_eq!(r.is_castling, r.san.starts_with("O-O"), "{at}");
        pos.play_unchecked(m);
        assert_eq!(r.is_check, pos.is_check(), "{at}: is_check");
    }
}

/// A movetext token without check marks and glyphs, castling with letter O.
fn normalized(token: &str) -> String {
    token
        .trim_end_matches(['+', '#', '!', '?'])
        .replace('0', "O")
}

#[test]
fn plies_csv_of_the_sample_agrees_with_the_report_the_movetext_and_shakmaty() {
    let dir = scratch("batch-plies");
    let (report, plies) = (dir.join("report.csv"), dir.join("plies.csv"));
    let out = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["validate", "data/sample.pgn", "--out"])
        .arg(&report)
        .arg("--plies")
        .arg(&plies)
        .output()
        .expect("run sqlchess");
    assert!(
        out.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // the report: plies and start FEN per game
    let mut rdr = csv::Reader::from_path(&report).expect("report");
    let head = rdr.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect(n);
    let (gi, pl, sf, ek) = (
        col("game_index"),
        col("plies"),
        col("start_fen"),
        col("error_kind"),
    );
    let mut unsupported = vec![];
    let games: Vec<(u64, usize, Option<String>)> = rdr
        .records()
        .map(|r| {
            let r = r.expect("row");
            let fen = (!r[sf].is_empty()).then(|| r[sf].to_string());
            unsupported.push(&r[ek] == "unsupported_variant");
            (r[gi].parse().unwrap(), r[pl].parse().unwrap(), fen)
        })
        .collect();
    assert_eq!(games.len(), 20);
    // python-chess's plies (sample_oracle.csv) of every game whose variant is supported
    let mut oracle = csv::Reader::from_path(data("sample_oracle.csv")).expect("oracle");
    let oracle_plies: usize = oracle
        .records()
        .zip(&unsupported)
        .filter(|(_, u)| !**u)
        .map(|(r, _)| r.expect("row")[2].parse::<usize>().expect("plies"))
        .sum();

    // the ply table: exactly these columns, one row per legal ply
    let mut rdr = csv::Reader::from_path(&plies).expect("plies");
    let head: Vec<String> = rdr
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        head,
        [
            "game_index",
            "ply",
            "color",
            "move_number",
            "fen_before",
            "uci",
            "san",
            "promotion",
            "is_capture",
            "is_check",
            "is_castling",
            "is_en_passant"
        ]
    );
    let rows: Vec<CsvPly> = rdr
        .records()
        .map(|r| {
            let r = r.expect("row");
            CsvPly {
                game_index: r[0].parse().unwrap(),
                ply: r[1].parse().unwrap(),
                color: r[2].to_string(),
                move_number: r[3].parse().unwrap(),
                fen_before: r[4].to_string(),
                uci: r[5].to_string(),
                san: r[6].to_string(),
                promotion: (!r[7].is_empty()).then(|| r[7].to_string()),
                is_capture: flag(&r[8]),
                is_check: flag(&r[9]),
                is_castling: flag(&r[10]),
                is_en_passant: flag(&r[11]),
            }
        })
        .collect();
    let total: usize = games.iter().map(|g| g.1).sum();
    assert_eq!(total, oracle_plies);
    assert_eq!(rows.len(), total, "one row per legal ply of the report");
    let mut by_game: BTreeMap<u64, Vec<CsvPly>> = BTreeMap::new();
    for r in &rows {
        by_game.entry(r.game_index).or_default().push(r.clone());
    }
    for (id, n, start_fen) in &games {
        let mine = by_game.remove(id).unwrap_or_default();
        assert_eq!(mine.len(), *n, "rows of game {id}");
        if *n > 0 {
            check_against_shakmaty(start_position(start_fen.as_deref()), &mine);
        }
    }
    assert!(by_game.is_empty(), "rows of no game: {by_game:?}");
    // rows come by game, then ply
    let order: Vec<(u64, u32)> = rows.iter().map(|r| (r.game_index, r.ply)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);

    // the first game: its movetext tokens, normalized, are the SAN of its rows
    let text = std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.pgn"))
        .expect("sample");
    let first = PgnReader::new(&text[..])
        .next()
        .expect("a game")
        .expect("read");
    let first_rows: Vec<&CsvPly> = rows.iter().filter(|r| r.game_index == 0).collect();
    assert_eq!(first_rows.len(), first.moves.len());
    for (token, r) in first.moves.iter().zip(&first_rows) {
        assert_eq!(
            normalized(token),
            r.san.trim_end_matches(['+', '#']),
            "ply {}",
            r.ply
        );
    }
    // 1. d4 Nf6 ... 5. O-O ... 7. c4 bxc4
    assert_eq!(
        (first_rows[0].uci.as_str(), first_rows[0].san.as_str()),
        ("d2d4", "d4")
    );
    assert_eq!(
        first_rows[0].fen_before,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(
        (first_rows[8].uci.as_str(), first_rows[8].san.as_str()),
        ("e1g1", "O-O")
    );
    assert!(first_rows[8].is_castling);
    assert_eq!(first_rows[13].san, "bxc4");
    assert!(first_rows[13].is_capture && !first_rows[13].is_check);
}

const EDGES: &str = "[Event \"edges\"]\n[Result \"*\"]\n\n\
    1. e4 Nf6 2. e5 d5 3. exd6 e6 4. dxc7 Qd7 5. cxb8=Q Rxb8 6. Nf3 Bd6 7. Be2 O-O \
    8. O-O Qc7 9. Nc3 a6 10. h3 Bh2+ 11. Kh1 -- *\n\n\
    [Event \"mate\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
    [Event \"illegal\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n";

#[test]
fn ply_rows_of_en_passant_promotion_castling_check_mate_and_null_moves() {
    let games: Vec<_> = PgnReader::new(EDGES.as_bytes())
        .map(|g| ("edges.pgn", g.expect("read")))
        .collect();
    let (v, plain) = rt().block_on(async {
        let e = engine().await;
        let v = validate_games_with(&e, &games, ValidateOptions::with_plies(true))
            .await
            .expect("validate");
        (v, validate_games(&e, &games).await.expect("validate"))
    });
    assert_eq!(v.reports, plain, "the reports do not depend on the option");
    let plies: Vec<u32> = v.reports.iter().map(|r| r.plies).collect();
    assert_eq!(plies, [22, 4, 2]);
    assert_eq!(v.ply_count(), 28, "no row for the illegal ply");
    let row = |game: u64, ply: u32| -> &PlyRow {
        v.all_plies()
            .find(|r| r.game_index == game && r.ply == ply)
            .unwrap_or_else(|| panic!("no row {game}/{ply}"))
    };
    let ep = row(0, 5);
    assert_eq!((ep.uci.as_str(), ep.san.as_str()), ("e5d6", "exd6"));
    assert!(ep.is_en_passant && ep.is_capture && !ep.is_check);
    assert_eq!(
        ep.fen_before(),
        "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    );
    let promo = row(0, 9);
    assert_eq!(
        (promo.uci.as_str(), promo.san.as_str()),
        ("c7b8q", "cxb8=Q")
    );
    assert_eq!(promo.promotion.as_deref(), Some("Q"));
    assert!(promo.is_capture);
    let castle = row(0, 14);
    assert_eq!((castle.uci.as_str(), castle.san.as_str()), ("e8g8", "O-O"));
    assert!(castle.is_castling && !castle.is_capture);
    let check = row(0, 20);
    assert_eq!((check.uci.as_str(), check.san.as_str()), ("d6h2", "Bh2+"));
    assert!(check.is_check);
    let null = row(0, 22);
    assert_eq!((null.uci.as_str(), null.san.as_str()), ("0000", "--"));
    assert!(!null.is_check && null.promotion.is_none());
    let mate = row(1, 4);
    assert_eq!((mate.uci.as_str(), mate.san.as_str()), ("d8h4", "Qh4#"));
    assert!(mate.is_check);
    // every row against shakmaty
    for game in 0..3u64 {
        let rows: Vec<CsvPly> = v
            .all_plies()
            .filter(|r| r.game_index == game)
            .map(|r| CsvPly {
                game_index: r.game_index,
                ply: r.ply,
                color: r.color().name().to_string(),
                move_number: r.move_number(),
                fen_before: r.fen_before(),
                uci: r.uci.clone(),
                san: r.san.clone(),
                is_capture: r.is_capture,
                is_check: r.is_check,
                is_castling: r.is_castling,
                is_en_passant: r.is_en_passant,
                promotion: r.promotion.clone(),
            })
            .collect();
        check_against_shakmaty((Chess::default(), CastlingMode::Standard), &rows);
    }
}

/// A king taken after a null move left it attacked (python-chess plays such a game): the
/// move is named (no king to check afterwards), its side's castling rights end with it, and
/// the game goes on. Expected values: python-chess 1.11.2 (`parse_san`, `is_check`, `fen`).
#[test]
fn a_king_taken_after_a_null_move_in_check_is_named_and_its_rights_end() {
    let text = "1. e4 f5 2. Qh5+ -- 3. Qxe8 a6 4. Qd8 *\n";
    let games: Vec<_> = PgnReader::new(text.as_bytes())
        .map(|g| ("king.pgn", g.expect("read")))
        .collect();
    let v = rt().block_on(async {
        validate_games_with(&engine().await, &games, ValidateOptions::with_plies(true))
            .await
            .expect("validate")
    });
    let r = &v.reports[0];
    assert_eq!((r.plies, r.error_kind), (7, None), "{r:?}");
    assert_eq!(
        r.final_fen.as_deref(),
        Some("rnbQ1bnr/1pppp1pp/p7/5p2/4P3/8/PPPP1PPP/RNB1KBNR b KQ - 0 4")
    );
    let plies: Vec<(&str, &str, bool, bool)> = v
        .all_plies()
        .map(|p| (p.uci.as_str(), p.san.as_str(), p.is_capture, p.is_check))
        .collect();
    assert_eq!(
        plies,
        [
            ("e2e4", "e4", false, false),
            ("f7f5", "f5", false, false),
            ("d1h5", "Qh5+", false, true),
            ("0000", "--", false, false),
            ("h5e8", "Qxe8", true, false),
            ("a7a6", "a6", false, false),
            ("e8d8", "Qxd8", true, false),
        ]
    );
    let after = v.all_plies().nth(5).expect("ply 6").fen_before();
    assert_eq!(
        after,
        "rnbqQbnr/ppppp1pp/8/5p2/4P3/8/PPPP1PPP/RNB1KBNR b KQ - 0 3"
    );
}

/// pgn-extract's `-F`/fix-result-tags input: every game's Result tag contradicts its
/// final position (checkmates given by the other side, a stalemate scored as a win).
#[test]
fn result_consistent_on_pgn_extract_fixresulttags() {
    let text = std::fs::read(data("pgn/test-fixresulttags-in.pgn")).expect("fixture");
    let games: Vec<_> = PgnReader::new(&text[..])
        .map(|g| ("test-fixresulttags-in.pgn", g.expect("read")))
        .collect();
    assert_eq!(games.len(), 5);
    let reports = rt().block_on(async {
        validate_games(&engine().await, &games)
            .await
            .expect("validate")
    });
    let mut consistent = vec![];
    for ((_, g), r) in games.iter().zip(&reports) {
        assert_eq!(r.error_kind, None, "{r:?}");
        assert_eq!(r.plies as usize, g.moves.len());
        // the expectation, from shakmaty's replay of the movetext
        let mut pos = Chess::default();
        for t in &g.moves {
            let m = t.parse::<San>().expect("san").to_move(&pos).expect("legal");
            pos.play_unchecked(m);
        }
        let (status, want) = if pos.is_checkmate() {
            let winner = if pos.turn() == Color::White {
                "0-1"
            } else {
                "1-0"
            };
            ("checkmate", r.result == winner)
        } else if pos.is_stalemate() {
            ("stalemate", r.result == "1/2-1/2")
        } else {
            ("ongoing", true)
        };
        assert_eq!(
            r.final_status.map(FinalStatus::as_str),
            Some(status),
            "{r:?}"
        );
        assert_eq!(r.result_consistent, want, "{r:?}");
        assert_eq!(
            r.final_fen.as_deref(),
            Some(
                Fen::from_position(&pos, EnPassantMode::Legal)
                    .to_string()
                    .as_str()
            )
        );
        consistent.push((
            r.result.clone(),
            r.final_status
                .map(FinalStatus::as_str)
                .unwrap_or_default()
                .to_string(),
            r.result_consistent,
        ));
    }
    let s = |r: &str, st: &str, c: bool| (r.to_string(), st.to_string(), c);
    assert_eq!(
        consistent,
        [
            s("1-0", "checkmate", false),     // 30... Qh5#: black mates
            s("0-1", "stalemate", false),     // 70... Kf3: white is stalemated
            s("1/2-1/2", "checkmate", false), // 40. Ng5#
            s("0-1", "checkmate", false),     // 33. Rh8#
            s("1/2-1/2", "checkmate", false), // 37. Qxg7#
        ]
    );
}

/// A mate scored for the mating side or for the mated side, a game that does not end on
/// the board (any result is consistent), a stalemate scored as a draw or as a win.
#[test]
fn result_consistent_when_the_result_tag_agrees() {
    let pgn = "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
        [Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n\
        [Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
        [Result \"1/2-1/2\"]\n[FEN \"7k/5Q2/6K1/8/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Kh6 1/2-1/2\n\n\
        [Result \"1-0\"]\n[FEN \"7k/5Q2/6K1/8/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Kh6 1-0\n";
    let reports = rt().block_on(async { common::validate_text(&engine().await, pgn).await });
    let got: Vec<(Option<&str>, bool)> = reports
        .iter()
        .map(|r| (r.final_status.map(FinalStatus::as_str), r.result_consistent))
        .collect();
    assert_eq!(
        got,
        [
            (Some("checkmate"), true),
            (Some("checkmate"), false),
            (Some("ongoing"), true),
            (Some("stalemate"), true),
            (Some("stalemate"), false),
        ]
    );
}

/// Games where checking the given move alone (replay) must agree with resolving the token
/// among all legal moves: a pinned knight that makes `Nf3` unambiguous, en passant into a
/// discovered check along the rank, castling across an attacked square and the other way,
/// underpromotion, and a UCI token (which replay hands to the full stages).
const REPLAY_EDGES: &str = "[Event \"pin\"]\n[FEN \"4k3/8/8/b7/8/8/3N4/4K1N1 w - - 0 1\"]\n\n\
    1. Nf3 Kd7 2. Nd4 Kc7 *\n\n\
    [Event \"ep into check\"]\n[FEN \"7k/8/8/K2pP2r/8/8/8/8 w - d6 0 2\"]\n\n2. exd6 *\n\n\
    [Event \"castle through check\"]\n[FEN \"5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1\"]\n\n1. O-O *\n\n\
    [Event \"castle long\"]\n[FEN \"5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1\"]\n\n1. O-O-O Kg7 2. Rd7 *\n\n\
    [Event \"underpromotion\"]\n[FEN \"7k/1P6/8/8/8/8/8/K7 w - - 0 1\"]\n\n1. b8=N Kg7 2. b1 *\n\n\
    [Event \"uci\"]\n\n1. e2e4 e5 2. g1f3 Nc6 3. Bb5 a6 *\n";

#[test]
fn replay_agrees_with_the_full_legal_move_stages() {
    let games: Vec<_> = PgnReader::new(REPLAY_EDGES.as_bytes())
        .map(|g| ("replay.pgn", g.expect("read")))
        .collect();
    let (full, replayed) = rt().block_on(async {
        let e = engine().await;
        let full = validate_games_with(&e, &games, ValidateOptions::with_plies(true))
            .await
            .expect("validate");
        (
            full.reports,
            validate_games(&e, &games).await.expect("validate"),
        )
    });
    assert_eq!(replayed, full);
    let outcome: Vec<(u32, Option<u32>, Option<&str>)> = replayed
        .iter()
        .map(|r| {
            (
                r.plies,
                r.first_illegal_ply,
                r.error_kind.map(ErrorKind::as_str),
            )
        })
        .collect();
    assert_eq!(
        outcome,
        [
            (4, None, None),
            (0, Some(1), Some("illegal_move")),
            (0, Some(1), Some("illegal_move")),
            (3, None, None),
            (2, Some(3), Some("no_such_piece")),
            (6, None, None),
        ]
    );
    assert_eq!(
        replayed[0].final_fen.as_deref(),
        Some("8/2k5/8/b7/3N4/8/3N4/4K3 w - - 4 3")
    );
    assert_eq!(
        replayed[3].final_fen.as_deref(),
        Some("5r2/3R2k1/8/8/8/8/8/2K4R b - - 3 2")
    );
    assert_eq!(
        replayed[4].final_fen.as_deref(),
        Some("1N6/6k1/8/8/8/8/8/K7 w - - 1 2")
    );
}

/// The games of the bundled sample, named `sample.pgn`.
fn sample_games() -> Vec<(&'static str, sqlchess::pgn::RawGame)> {
    let text = std::fs::read_to_string(data("pgn/sample.pgn")).expect("sample");
    PgnReader::new(text.as_bytes())
        .map(|g| ("sample.pgn", g.expect("read")))
        .collect()
}

#[test]
fn validator_shares_give_the_reports_of_one_pipeline() {
    let games = sample_games();
    assert_eq!(games.len(), 20);
    let (one, two) = rt().block_on(async {
        let one = validate_games(&engine().await, &games)
            .await
            .expect("validate");
        let v = Validator::new(2, PipelineConfig::default())
            .await
            .expect("validator");
        (
            one,
            v.validate(&games, ValidateOptions::default())
                .expect("validate"),
        )
    });
    assert_eq!(two.reports, one);
    assert_eq!(two.ply_count(), 0);
}

/// `validate_each` hands each share's result, turned by `finish` on the share's thread, to
/// `consume` in input order; an error of `consume` is returned after every share is done.
#[test]
fn validator_consumes_the_shares_in_input_order() {
    let games = sample_games();
    let v = rt()
        .block_on(Validator::new(3, PipelineConfig::default()))
        .expect("validator");
    let options = ValidateOptions::with_plies(true);
    let whole = v.validate(&games, options).expect("validate");
    let mut seen = vec![];
    v.validate_each(
        &games,
        options,
        |share| {
            // the first share finishes last: consumed in input order all the same
            if share.reports.first().map(|r| r.game_index) == Some(0) {
                std::thread::sleep(std::time::Duration::from_millis(300));
            }
            Ok((
                std::thread::current().id(),
                share
                    .reports
                    .iter()
                    .map(|r| r.game_index)
                    .collect::<Vec<_>>(),
                share.ply_count(),
            ))
        },
        |t| {
            seen.push(t);
            Ok(())
        },
    )
    .expect("validate_each");
    assert_eq!(seen.len(), 3, "one share per pipeline");
    let caller = std::thread::current().id();
    assert!(seen.iter().all(|(thread, _, _)| *thread != caller));
    let order: Vec<u64> = seen.iter().flat_map(|(_, ids, _)| ids.clone()).collect();
    assert_eq!(order, (0..games.len() as u64).collect::<Vec<_>>());
    let plies: usize = seen.iter().map(|(_, _, n)| n).sum();
    assert_eq!(plies, whole.ply_count());
    assert!(plies > 0);
    let mut calls = 0;
    let failed = v.validate_each(
        &games,
        options,
        |share| Ok(share.reports.len()),
        |_| {
            calls += 1;
            Err(sqlchess::Error::Internal("the writer failed".into()))
        },
    );
    assert!(matches!(failed, Err(sqlchess::Error::Internal(m)) if m == "the writer failed"));
    assert_eq!(calls, 1, "nothing consumed after the first error");
}

/// `Workers` validates each chunk on whichever pipeline is free and hands the results back in
/// the order the chunks were submitted, the last games shared out between the pipelines;
/// after an error nothing more is consumed.
#[test]
fn workers_hand_back_chunks_in_submission_order() {
    let games = sample_games();
    let v = rt()
        .block_on(Validator::new(2, PipelineConfig::default()))
        .expect("validator");
    let options = ValidateOptions::with_plies(true);
    let whole = v.validate(&games, options).expect("validate");
    let finish = |share: sqlchess::validate::Validation,
                  chunk: &[(&str, sqlchess::pgn::RawGame)]| {
        // the first chunk finishes last: consumed first all the same
        if share.reports.first().map(|r| r.game_index) == Some(0) {
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
        assert_eq!(share.reports.len(), chunk.len());
        let plies = share.ply_count();
        Ok((std::thread::current().id(), share.reports, plies))
    };
    let mut seen = vec![];
    std::thread::scope(|scope| {
        let mut workers = v.workers(scope, options, &finish);
        let mut consume = |t| {
            seen.push(t);
            Ok(())
        };
        // chunks of 3 games, then the last 5 shared out between both pipelines
        for chunk in games[..15].chunks(3) {
            workers.submit(chunk.into(), &mut consume).expect("submit");
        }
        workers
            .submit_shared(games[15..].to_vec(), &mut consume)
            .expect("submit_shared");
        workers.finish(&mut consume).expect("finish");
    });
    assert_eq!(seen.len(), 7, "five chunks, then one share per pipeline");
    let caller = std::thread::current().id();
    assert!(seen.iter().all(|(thread, _, _)| *thread != caller));
    let reports: Vec<_> = seen.iter().flat_map(|(_, r, _)| r.clone()).collect();
    assert_eq!(reports, whole.reports, "the same reports, in input order");
    let plies: usize = seen.iter().map(|(_, _, n)| n).sum();
    assert_eq!(plies, whole.ply_count());
    // an error of `consume` stops the run: later chunks are not consumed
    let mut calls = 0;
    let failed = std::thread::scope(|scope| {
        let mut workers = v.workers(scope, options, &|share, _| Ok(share.reports.len()));
        let mut consume = |_| {
            calls += 1;
            Err(sqlchess::Error::Internal("the writer failed".into()))
        };
        for chunk in games.chunks(4) {
            if let Err(e) = workers.submit(chunk.into(), &mut consume) {
                workers.stop();
                return Err(e);
            }
        }
        workers.finish(&mut consume)
    });
    assert!(matches!(failed, Err(sqlchess::Error::Internal(m)) if m == "the writer failed"));
    assert_eq!(calls, 1, "nothing consumed after the first error");
}

/// `Workers::submit_held` holds the chunk read last back until the input ends: that chunk
/// and the games after it are shared out between the pipelines (an input of one chunk and a
/// few games is validated by both pipelines, not one), in shares no larger than the chunk,
/// and `finish` shares out a chunk still held. The results come back in input order.
#[test]
fn workers_share_out_the_last_chunk_with_the_games_after_it() {
    let games = sample_games();
    let v = rt()
        .block_on(Validator::new(2, PipelineConfig::default()))
        .expect("validator");
    let options = ValidateOptions::default();
    let whole = v.validate(&games, options).expect("validate");
    let run = |chunks: &[(usize, usize)], last: std::ops::Range<usize>| {
        let mut seen: Vec<Vec<u64>> = vec![];
        std::thread::scope(|scope| {
            let mut workers = v.workers(scope, options, &|share, _| Ok(share.reports));
            let mut consume = |reports: Vec<sqlchess::validate::GameReport>| {
                seen.push(reports.iter().map(|r| r.game_index).collect());
                Ok(())
            };
            for &(from, to) in chunks {
                workers
                    .submit_held(games[from..to].to_vec(), &mut consume)
                    .expect("submit_held");
            }
            if !last.is_empty() {
                workers
                    .submit_shared(games[last].to_vec(), &mut consume)
                    .expect("submit_shared");
            }
            workers.finish(&mut consume).expect("finish");
        });
        seen
    };
    let indices = |r: std::ops::Range<usize>| -> Vec<u64> {
        whole.reports[r].iter().map(|r| r.game_index).collect()
    };
    // one chunk of 18 games and 2 games after it: two shares of the 20, not 18 on one
    // pipeline and one game on each
    let seen = run(&[(0, 18)], 18..20);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.iter().all(|s| s.len() >= 5), "{seen:?}");
    assert_eq!(seen.concat(), indices(0..20));
    // three chunks: the first two go as they are, the third is shared out with the rest
    let seen = run(&[(0, 5), (5, 10), (10, 15)], 15..20);
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(seen[0], indices(0..5));
    assert_eq!(seen[1], indices(5..10));
    assert_eq!(seen.concat(), indices(0..20));
    // no share larger than the chunk held (what a pipeline's memory is sized for): a chunk
    // of 4 and 16 games after it make 5 shares, not 2 of 10
    let seen = run(&[(0, 4)], 4..20);
    assert_eq!(seen.len(), 5, "{seen:?}");
    assert_eq!(seen.concat(), indices(0..20));
    // nothing after the chunk held (the input ended on a chunk, or Ctrl-C): `finish` shares
    // it out
    let seen = run(&[(0, 10), (10, 20)], 0..0);
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(seen[0], indices(0..10));
    assert_eq!(seen.concat(), indices(0..20));
}

/// python-chess 1.11.2 reads these `Variant` values as standard chess (any case); the game
/// is checked, not reported `unsupported_variant` (issue: games silently left unchecked).
/// Right values from python-chess: 2 legal plies, this final FEN, ongoing.
#[test]
fn variant_tags_that_mean_standard_chess_are_checked() {
    let game = |variant: &str| {
        format!(
            "[Variant \"{variant}\"]\n[SetUp \"1\"]\n[FEN \"8/8/2Pk3p/1R6/2r3P1/4K3/8/8 w - - 1 19\"]\n\n19. Rh5 Rxg4 *\n\n"
        )
    };
    let values = [
        "From Position",
        "normal",
        "Standard",
        "CHESS",
        "Classical",
        "illegal",
        " from position ",
    ];
    let text: String = values.iter().map(|v| game(v)).collect::<String>() + &game("Crazyhouse");
    let games: Vec<_> = PgnReader::new(text.as_bytes())
        .map(|g| ("variants.pgn", g.expect("game")))
        .collect();
    let reports = rt().block_on(async {
        validate_games(&engine().await, &games)
            .await
            .expect("validate")
    });
    assert_eq!(reports.len(), values.len() + 1);
    for (r, v) in reports.iter().zip(values) {
        assert_eq!(r.plies, 2, "{v}");
        assert_eq!(r.error_kind, None, "{v}");
        assert_eq!(
            r.final_fen.as_deref(),
            Some("8/8/2Pk3p/7R/6r1/4K3/8/8 w - - 0 20"),
            "{v}"
        );
        assert_eq!(r.final_status, Some(FinalStatus::Ongoing), "{v}");
    }
    let crazyhouse = &reports[values.len()];
    assert_eq!(crazyhouse.error_kind, Some(ErrorKind::UnsupportedVariant));
    assert_eq!(crazyhouse.plies, 0);
}

/// The per-ply rows of the replay path (stage `replay_plies` where replay accepts the ply)
/// equal those of the full stages at every ply (`san`), every column, on every PGN file of
/// tests/data; the reports too. `plies.pgn` holds the cases where the two SAN writers could
/// differ (over-disambiguated tokens, a pinned rival, file/rank/square disambiguation, check
/// and mate by castling, en passant with discovered check, promotions with check, discovered
/// and double checks, a check followed by a token replay leaves to the full stages, Chess960
/// castling); its rows are also held against shakmaty. The reports without plies (where
/// replay resumes after each ply the full stages play) equal them too.
#[test]
fn replay_plies_equal_full_stage_plies() {
    use sqlchess::validate::validate_plies_on_full_stages;
    let files = common::pgn_files(&data("pgn"));
    assert!(files.len() > 20, "{} files", files.len());
    rt().block_on(async {
        let e = engine().await;
        for f in &files {
            let name = f.display().to_string();
            let bytes = std::fs::read(f).expect("read");
            let games: Vec<_> = PgnReader::new(&bytes[..])
                .map(|g| (name.as_str(), g.expect("read")))
                .collect();
            let replayed = validate_games_with(&e, &games, ValidateOptions::with_plies(true))
                .await
                .expect("validate");
            let full = validate_plies_on_full_stages(&e, &games)
                .await
                .expect("validate");
            assert_eq!(replayed.reports, full.reports, "{name}: reports");
            // without plies, replay takes a game back after each ply the full stages play
            let reports = validate_games(&e, &games).await.expect("validate");
            assert_eq!(reports, full.reports, "{name}: reports without plies");
            assert_eq!(replayed.ply_count(), full.ply_count(), "{name}: plies");
            for (r, f) in replayed.all_plies().zip(full.all_plies()) {
                assert_eq!(r, f, "{name}: replayed (left) and full-stage (right) ply");
            }
            if !name.ends_with("/plies.pgn") {
                continue;
            }
            for (g, report) in replayed.reports.iter().enumerate() {
                assert_eq!(report.error_kind, None, "{name} game {g}");
                let rows: Vec<CsvPly> = replayed
                    .all_plies()
                    .filter(|p| p.game_index == g as u64)
                    .map(|p| CsvPly {
                        game_index: p.game_index,
                        ply: p.ply,
                        color: p.color().name().to_string(),
                        move_number: p.move_number(),
                        fen_before: p.fen_before(),
                        uci: p.uci.clone(),
                        san: p.san.clone(),
                        is_capture: p.is_capture,
                        is_check: p.is_check,
                        is_castling: p.is_castling,
                        is_en_passant: p.is_en_passant,
                        promotion: p.promotion.clone(),
                    })
                    .collect();
                assert_eq!(rows.len(), report.plies as usize, "{name} game {g}");
                check_against_shakmaty(start_position(report.start_fen.as_deref()), &rows);
            }
            let sans: Vec<&str> = replayed.all_plies().map(|p| p.san.as_str()).collect();
            for want in [
                "Nf3", "Nc6", "Qe2", "Qa1b2", "Qb7+", "Qaa2", "O-O+", "O-O#", "O-O-O+", "exd6+",
                "hxg6", "cxb8=Q", "b8=Q+", "bxa8=N+", "Ng5+", "Nf6+", "Qxf7+", "Bc4+", "Qxf7#",
            ] {
                assert!(sans.contains(&want), "{name}: no {want} in {sans:?}");
            }
            assert!(
                replayed
                    .all_plies()
                    .any(|p| p.uci == "e1b1" && p.san == "O-O-O"),
                "{name}: Chess960 castling"
            );
        }
    });
}

/// A replay pass ends once few games are in play while a game it stopped waits for the full
/// stages (two null moves before the moves of the sample's longest game): the waiting game
/// goes on beside the long one, not in steps of its own after it. About one replay step per
/// ply of the long game, not two; the reports and plies of the full stages.
#[test]
fn a_game_stopped_early_goes_on_beside_the_long_ones() {
    use sqlchess::validate::validate_plies_on_full_stages;
    let long = sample_games()
        .into_iter()
        .max_by_key(|(_, g)| g.moves.len())
        .expect("a game");
    let plies = long.1.moves.len();
    assert!(plies > 100, "{plies} plies");
    let text = format!(
        "[Event \"nulls first\"]\n\n-- -- {} *\n",
        long.1.moves.join(" ")
    );
    let waiting = PgnReader::new(text.as_bytes())
        .next()
        .expect("a game")
        .expect("read");
    assert_eq!(waiting.moves.len(), plies + 2);
    let games = vec![long, ("nulls.pgn", waiting)];
    rt().block_on(async {
        let e = engine().await;
        let replayed = validate_games_with(&e, &games, ValidateOptions::with_plies(true))
            .await
            .expect("validate");
        let steps = e
            .pipeline()
            .profile()
            .into_iter()
            .find(|(s, _)| s == "replay_moves")
            .map_or(0, |(_, p)| p.runs as usize);
        assert!(
            (plies..plies + 10).contains(&steps),
            "{steps} replay steps for two games of {plies} plies"
        );
        let full = validate_plies_on_full_stages(&e, &games)
            .await
            .expect("validate");
        assert_eq!(replayed, full);
        assert_eq!(replayed.reports[1].plies as usize, plies + 2);
        assert_eq!(replayed.reports[1].error_kind, None);
    });
}
