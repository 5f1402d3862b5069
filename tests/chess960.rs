//! Chess960 (Fischer Random): castling rights by rook square in FEN (X-FEN and Shredder-FEN in,
//! X-FEN out as python-chess writes it), castling moves in the legal-move and replay stages
//! (the known traps, each checked against shakmaty in Chess960 mode), perft rows, PGN
//! `Variant` tags, and UCI castling in both modes.

use crate::common;
use common::*;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, Position};
use sqlchess::Setup;
use sqlchess::chess::fen::FenField;
use sqlchess::pgn::PgnReader;
use sqlchess::validate::{GameReport, ValidateOptions, Variant, validate_games_with};

fn c960(fen: &str) -> Setup {
    Setup::from_fen_chess960(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// shakmaty's legal moves in Chess960 mode: (UCI king-takes-rook, SAN with +/#), by UCI.
fn shakmaty_moves(fen: &str) -> Vec<(String, String)> {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_position(CastlingMode::Chess960)
        .unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut out: Vec<(String, String)> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            (
                m.to_uci(CastlingMode::Chess960).to_string(),
                SanPlus::from_move(pos.clone(), *m).to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Our legal moves of Chess960 positions: (UCI, SAN) by UCI.
async fn our_moves(e: &sqlchess::Engine, fens: &[&str]) -> Vec<Vec<(String, String)>> {
    let setups: Vec<Setup> = fens.iter().map(|f| c960(f)).collect();
    moves_by_position(e, &setups)
        .await
        .into_iter()
        .map(|v| v.into_iter().map(|m| (m.uci, m.san)).collect())
        .collect()
}

/// Rows of a `.perft` file: (id, FEN, depth, nodes).
fn perft_rows(text: &str) -> Vec<(String, String, u32, u64)> {
    let (mut id, mut fen) = (String::new(), String::new());
    let mut out = vec![];
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("id ") {
            id = v.trim().to_string();
        } else if let Some(v) = line.strip_prefix("epd ") {
            fen = format!("{} 0 1", v.trim());
        } else if let Some(v) = line.strip_prefix("perft ") {
            let mut it = v.split_whitespace();
            let depth = it.next().and_then(|d| d.parse().ok()).expect("depth");
            let nodes = it.next().and_then(|n| n.parse().ok()).expect("nodes");
            out.push((id.clone(), fen.clone(), depth, nodes));
        }
    }
    out
}

#[test]
fn xfen_round_trip_matches_python_chess() {
    let text = std::fs::read_to_string(data("chess960/xfen.tsv")).expect("xfen.tsv");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (source, fen, xfen, shredder) = (cols[0], cols[1], cols[2], cols[3]);
        let s = c960(fen);
        assert_eq!(s.to_fen(), xfen, "{source}");
        assert_eq!(s.to_shredder_fen(), shredder, "{source}");
        assert_eq!(c960(xfen), s, "{source}: X-FEN reads back");
        assert_eq!(c960(shredder), s, "{source}: Shredder-FEN reads back");
        n += 1;
    }
    assert_eq!(n, 1078);
}

#[test]
fn castling_rights_choose_the_mode_and_name_the_field() {
    // standard rights stay standard
    let s = Setup::from_fen_auto("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("standard");
    assert!(!s.chess960);
    assert_eq!(s.castling.rooks(), 1 | 1 << 7 | 1 << 56 | 1 << 63);
    // an inner rook or a king off the e-file with rights: Chess960
    for fen in [
        "4k3/8/8/8/8/8/8/RK1R4 w DA - 0 1",
        "1nrr2k1/1pp2ppp/1b1pb2q/1P1Nn3/2P2N2/4P3/1B1QBPPP/R2R2K1 w Q - 1 19",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 1",
    ] {
        let s = Setup::from_fen_auto(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(s.chess960, "{fen}");
    }
    // standard mode keeps rejecting them
    let e = Setup::from_fen("4k3/8/8/8/8/8/8/RK1R4 w DA - 0 1").expect_err("standard");
    assert_eq!(
        (e.field, e.kind.as_str()),
        (FenField::Castling, "castling_king_moved")
    );
    // Chess960 errors name the castling field
    for (fen, kind) in [
        // no rook on c1
        ("4k3/8/8/8/8/8/8/RK6 w C - 0 1", "castling_without_rook"),
        // the king is not on its back rank
        ("4k3/8/8/8/8/8/4K3/R6R w KQ - 0 1", "castling_king_moved"),
        // two rights on the a-side of the king
        ("4k3/8/8/8/8/8/8/RR2K3 w BA - 0 1", "castling_duplicate"),
    ] {
        let e = Setup::from_fen_chess960(fen).expect_err(fen);
        assert_eq!(
            (e.field, e.kind.as_str()),
            (FenField::Castling, kind),
            "{fen}: {e}"
        );
        let e = Setup::from_fen_auto(fen).expect_err(fen);
        assert_eq!(e.field, FenField::Castling, "{fen}: {e}");
    }
}

#[test]
fn perft_rows_of_tests_data() {
    let text = std::fs::read_to_string(data("chess960/perft.perft")).expect("perft");
    let rows = perft_rows(&text);
    assert_eq!(rows.len(), 36);
    rt().block_on(async {
        let e = engine().await;
        for depth in 1..=3 {
            let at: Vec<_> = rows.iter().filter(|r| r.2 == depth).collect();
            let setups: Vec<Setup> = at.iter().map(|r| c960(&r.1)).collect();
            let got = e.perft(&setups, depth).await.expect("perft");
            for (r, have) in at.iter().zip(got) {
                assert_eq!(have, r.3, "perft({} {}, {depth})", r.0, r.1);
            }
        }
    });
}

/// The known traps of Chess960 castling: each position's castling moves (UCI, king takes
/// rook), and its whole move list equal to shakmaty's.
#[test]
fn castling_traps() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "a-side castling blocked by the h-side rook on its target",
            "4k3/8/8/8/8/8/8/RK1R4 w DA - 0 1",
            &["b1d1"],
        ),
        (
            "king already on its target square",
            "4k3/8/8/8/8/8/8/6KR w K - 0 1",
            &["g1h1"],
        ),
        (
            "rook on the king's target square",
            "4k3/8/8/8/8/8/8/4K1R1 w K - 0 1",
            &["e1g1"],
        ),
        (
            "king on b1, rook on a1: castling and the king's step to c1 both",
            "4k3/8/8/8/8/8/8/RK6 w Q - 0 1",
            &["b1a1"],
        ),
        ("out of check", "4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1", &[]),
        (
            "through an attacked square",
            "5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            &["e1a1"],
        ),
        (
            "into check",
            "1k4r1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            &["e1a1"],
        ),
        (
            "Chess960 king moving right for O-O-O onto an attacked square",
            "2r1k3/8/8/8/8/8/8/RK6 w Q - 0 1",
            &[],
        ),
        (
            "the castling rook hides the king's target from a queen behind it",
            "4k3/8/8/8/8/8/8/qR1K4 w Q - 0 1",
            &[],
        ),
        (
            "the same with the rook's target beside it: still hidden",
            "4k3/8/8/8/8/8/8/qRK5 w Q - 0 1",
            &[],
        ),
        (
            "black, both sides, king on the f-file",
            "r4k1r/8/8/8/8/8/8/4K3 b kq - 0 1",
            &["f8a8", "f8h8"],
        ),
    ];
    let fens: Vec<&str> = cases.iter().map(|c| c.1).collect();
    rt().block_on(async {
        let e = engine().await;
        let ours = our_moves(&e, &fens).await;
        for ((name, fen, castlings), moves) in cases.iter().zip(ours) {
            assert_eq!(moves, shakmaty_moves(fen), "{name}: {fen}");
            let castles: Vec<&str> = moves
                .iter()
                .filter(|(_, san)| san.starts_with("O-O"))
                .map(|(uci, _)| uci.as_str())
                .collect();
            assert_eq!(castles, *castlings, "{name}: {fen}");
        }
        // b1c1 is the king's step, b1a1 castling: both listed, told apart by SAN
        let m = our_moves(&e, &["4k3/8/8/8/8/8/8/RK6 w Q - 0 1"])
            .await
            .remove(0);
        assert!(m.contains(&("b1c1".into(), "Kc1".into())), "{m:?}");
        assert!(m.contains(&("b1a1".into(), "O-O-O".into())), "{m:?}");
    });
}

/// Positions of shakmaty playouts from Chess960 set-ups (castling played whenever legal),
/// with their legal moves: our move lists (UCI, SAN) equal shakmaty's.
#[test]
fn playouts_from_chess960_setups_match_shakmaty() {
    let text = std::fs::read_to_string(data("chess960/perft.perft")).expect("perft");
    let mut starts: Vec<String> = perft_rows(&text).into_iter().map(|r| r.1).collect();
    starts.dedup();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    };
    let (mut fens, mut castled) = (vec![], 0);
    for start in &starts {
        for _ in 0..4 {
            let mut pos: Chess = start
                .parse::<Fen>()
                .expect("fen")
                .into_position(CastlingMode::Chess960)
                .expect("position");
            for _ in 0..40 {
                fens.push(Fen::from_position(&pos, shakmaty::EnPassantMode::Legal).to_string());
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let castles: Vec<_> = moves.iter().filter(|m| m.is_castle()).collect();
                let m = if !castles.is_empty() {
                    castled += 1;
                    *castles[next() % castles.len()]
                } else {
                    moves[next() % moves.len()]
                };
                pos.play_unchecked(m);
            }
        }
    }
    assert!(castled >= 20, "{castled} castlings played");
    let refs: Vec<&str> = fens.iter().map(String::as_str).collect();
    rt().block_on(async {
        let e = engine().await;
        let ours = our_moves(&e, &refs).await;
        for (fen, moves) in refs.iter().zip(ours) {
            assert_eq!(moves, shakmaty_moves(fen), "{fen}");
        }
    });
}

async fn validate_plies(
    e: &sqlchess::Engine,
    pgn: &str,
    plies: bool,
) -> (Vec<GameReport>, Vec<sqlchess::validate::PlyRow>) {
    let games: Vec<_> = PgnReader::new(pgn.as_bytes())
        .map(|g| ("test.pgn", g.expect("read")))
        .collect();
    let v = validate_games_with(e, &games, ValidateOptions::with_plies(plies))
        .await
        .expect("validate");
    (v.reports, v.plies.into_iter().flatten().collect())
}

#[test]
fn variant_tag_values() {
    assert_eq!(Variant::of("From Position"), Variant::Standard);
    assert_eq!(Variant::of("normal"), Variant::Standard);
    for v in ["Standard", "chess", "CLASSICAL", "Illegal", "from position"] {
        assert_eq!(Variant::of(v), Variant::Standard, "{v}");
    }
    for v in [
        "Chess960",
        "chess 960",
        "Fischerandom",
        "FischerRandom",
        "fischer random",
    ] {
        assert_eq!(Variant::of(v), Variant::Chess960, "{v}");
    }
    for v in ["Crazyhouse", "Antichess", "chess960x", "Atomic"] {
        assert_eq!(Variant::of(v), Variant::Unsupported, "{v}");
    }
    let pgn = concat!(
        "[Variant \"From Position\"]\n[SetUp \"1\"]\n[FEN \"8/8/2Pk3p/1R6/2r3P1/4K3/8/8 w - - 1 19\"]\n\n",
        "19. Rh5 Rxg4 *\n\n",
        "[Variant \"normal\"]\n\n1. e4 e5 *\n\n",
        "[Variant \"Crazyhouse\"]\n\n1. e4 e5 *\n\n",
        "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/RK6 w Q - 0 1\"]\n\n1. O-O-O Ke7 *\n\n",
        "[Variant \"fischerandom\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/RK6 w Q - 0 1\"]\n\n1. b1a1 Ke7 *\n\n",
        // no Variant tag: rights that only Chess960 has
        "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/RK1R4 w DA - 0 1\"]\n\n1. O-O Kd7 *\n\n",
    );
    rt().block_on(async {
        let e = engine().await;
        for plies in [false, true] {
            let (r, rows) = validate_plies(&e, pgn, plies).await;
            let got: Vec<_> = r
                .iter()
                .map(|g| {
                    (
                        g.plies,
                        g.error_kind.map(|k| k.as_str()),
                        g.final_fen.as_deref(),
                        g.final_status.map(|s| s.as_str()),
                    )
                })
                .collect();
            assert_eq!(
                got,
                vec![
                    (
                        2,
                        None,
                        Some("8/8/2Pk3p/7R/6r1/4K3/8/8 w - - 0 20"),
                        Some("ongoing")
                    ),
                    (
                        2,
                        None,
                        Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
                        Some("ongoing")
                    ),
                    (0, Some("unsupported_variant"), None, None),
                    (
                        2,
                        None,
                        Some("8/4k3/8/8/8/8/8/2KR4 w - - 2 2"),
                        Some("ongoing")
                    ),
                    (
                        2,
                        None,
                        Some("8/4k3/8/8/8/8/8/2KR4 w - - 2 2"),
                        Some("ongoing")
                    ),
                    (
                        2,
                        None,
                        Some("8/3k4/8/8/8/8/8/R4RK1 w - - 2 2"),
                        Some("ongoing")
                    ),
                ],
                "plies: {plies}"
            );
            if plies {
                let castles: Vec<(&str, &str)> = rows
                    .iter()
                    .filter(|p| p.is_castling)
                    .map(|p| (p.uci.as_str(), p.san.as_str()))
                    .collect();
                assert_eq!(
                    castles,
                    vec![("b1a1", "O-O-O"), ("b1a1", "O-O-O"), ("b1d1", "O-O")]
                );
            }
        }
    });
}

#[test]
fn uci_castling_tokens_in_both_modes() {
    let games = concat!(
        // standard: king-to-target and king-takes-rook both castle; UCI written e1g1
        "[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. e1g1 e8a8 *\n\n",
        // Chess960 from a standard-looking set-up: castling is the king taking its rook;
        // e1g1 is no move there (python-chess `parse_san`)
        "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. e1h1 e8a8 *\n\n",
        "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. e1g1 *\n\n",
        // Chess960, king b1 and rook a1: b1c1 is the king's step, not castling
        "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/RK6 w Q - 0 1\"]\n\n1. b1c1 e8d7 *\n\n",
        // a king-move token is not castling
        "[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. Kg1 *\n\n",
    );
    rt().block_on(async {
        let e = engine().await;
        let (r, rows) = validate_plies(&e, games, true).await;
        let fens: Vec<_> = r
            .iter()
            .map(|g| (g.plies, g.final_fen.as_deref()))
            .collect();
        assert_eq!(
            fens,
            vec![
                (2, Some("2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2")),
                (2, Some("2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2")),
                (0, Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")),
                (2, Some("8/3k4/8/8/8/8/8/R1K5 w - - 2 2")),
                (0, Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")),
            ]
        );
        assert_eq!(r[2].error_kind.map(|k| k.as_str()), Some("illegal_move"));
        assert_eq!(r[4].error_kind.map(|k| k.as_str()), Some("illegal_move"));
        let ucis: Vec<(u64, &str)> = rows
            .iter()
            .map(|p| (p.game_index, p.uci.as_str()))
            .collect();
        assert_eq!(
            ucis,
            vec![
                (0, "e1g1"),
                (0, "e8c8"),
                (1, "e1h1"),
                (1, "e8a8"),
                (3, "b1c1"),
                (3, "e8d7"),
            ]
        );
    });
}

#[test]
fn rook_captured_on_its_square_loses_the_right() {
    rt().block_on(async {
        let e = engine().await;
        let pgn = concat!(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/7b/4K1R1 b K - 0 1\"]\n\n1... Bxg1 *\n\n",
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1\"]\n\n1. Rxh8+ *\n\n",
        );
        let (r, _) = validate_plies(&e, pgn, false).await;
        let fens: Vec<_> = r.iter().map(|g| g.final_fen.as_deref()).collect();
        assert_eq!(
            fens,
            vec![
                Some("4k3/8/8/8/8/8/8/4K1b1 w - - 0 2"),
                Some("rk5R/8/8/8/8/8/8/RK6 b Qq - 0 1"),
            ]
        );
    });
}
