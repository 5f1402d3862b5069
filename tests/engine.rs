//! Engine tests that need nothing outside the repository.

mod common;
use common::*;

use sqlchess::Setup;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POS3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POS4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POS5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POS6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

fn check_perft(fen: &str, expected: &[u64]) {
    rt().block_on(async {
        let e = engine().await;
        for (d, want) in expected.iter().enumerate() {
            let got = e.perft(&[setup(fen)], d as u32 + 1).await.expect("perft");
            assert_eq!(got, vec![*want], "{fen} depth {}", d + 1);
        }
    });
}

#[test]
fn perft_start_position() {
    check_perft(START, &[20, 400, 8902, 197281]);
}

#[test]
fn perft_kiwipete() {
    check_perft(KIWIPETE, &[48, 2039, 97862]);
}

#[test]
fn perft_position_3() {
    check_perft(POS3, &[14, 191, 2812, 43238, 674624]);
}

#[test]
fn perft_position_4() {
    check_perft(POS4, &[6, 264, 9467]);
}

#[test]
fn perft_position_5() {
    check_perft(POS5, &[44, 1486, 62379]);
}

#[test]
fn perft_position_6() {
    check_perft(POS6, &[46, 2079, 89890]);
}

#[test]
fn legal_moves_match_python_chess_oracle() {
    let mut rdr = csv::Reader::from_path(data("oracle_positions.csv")).expect("csv");
    let rows: Vec<(String, String, bool)> = rdr
        .records()
        .map(|r| {
            let r = r.expect("row");
            (r[0].to_string(), r[2].to_string(), &r[4] == "True")
        })
        .collect();
    assert!(rows.len() >= 250);
    let setups: Vec<Setup> = rows.iter().map(|r| setup(&r.0)).collect();
    let got = rt().block_on(async { moves_by_position(&engine().await, &setups).await });
    for (i, (fen, want, mate)) in rows.iter().enumerate() {
        let is_mate = got[i].is_empty() && *mate;
        let mut want: Vec<String> = want.split_whitespace().map(str::to_string).collect();
        want.sort();
        let have: Vec<String> = got[i].iter().map(|m| m.uci.clone()).collect();
        assert_eq!(have, want, "legal moves of {fen}");
        assert_eq!(is_mate, *mate, "checkmate flag of {fen}");
    }
}

#[test]
fn differential_against_shakmaty_random_playouts() {
    let positions = random_playout_positions(20240601, 12_000);
    assert!(positions.len() >= 10_000);
    let setups: Vec<Setup> = positions.iter().map(|(fen, _)| setup(fen)).collect();
    let got = rt().block_on(async { moves_by_position(&engine().await, &setups).await });
    for (i, (fen, want)) in positions.iter().enumerate() {
        let have: Vec<(String, String)> = got[i]
            .iter()
            .map(|m| (m.uci.clone(), m.san.clone()))
            .collect();
        assert_eq!(&have, want, "moves of {fen}");
    }
}

#[test]
fn fide_rules_the_seed_breaks() {
    rt().block_on(async {
        let e = engine().await;
        // underpromotion: all four pieces
        let m = ucis(&e, "8/4P3/8/8/8/8/k7/4K3 w - - 0 1").await;
        for u in ["e7e8q", "e7e8r", "e7e8b", "e7e8n"] {
            assert!(m.contains(&u.to_string()), "{u} missing: {m:?}");
        }
        // no castling out of a pawn check
        let m = ucis(&e, "4k3/8/8/8/8/8/3p4/4K2R w K - 0 1").await;
        assert!(!m.contains(&"e1g1".to_string()), "{m:?}");
        assert!(m.contains(&"e1d2".to_string()));
        // a plain capture on the 6th rank removes only the captured piece
        let after = play(&e, "7k/8/3n4/3pP3/8/8/8/K7 w - - 0 1", &["exd6"]).await;
        assert_eq!(after, "7k/8/3P4/3p4/8/8/8/K7 b - - 0 1");
        // castling rights die with the rook captured on its square
        let after = play(
            &e,
            "b3k3/8/8/8/8/7R/8/4K2R b K - 0 1",
            &["Bxh1", "Rxh1", "Kd8"],
        )
        .await;
        assert_eq!(after, "3k4/8/8/8/8/8/8/4K2R w - - 1 3");
        let m = ucis(&e, &after).await;
        assert!(!m.contains(&"e1g1".to_string()), "{m:?}");
        // en passant that uncovers a rank attack on the king is illegal, otherwise legal
        let m = ucis(&e, "7k/8/8/K2pP2r/8/8/8/8 w - d6 0 1").await;
        assert!(!m.contains(&"e5d6".to_string()), "{m:?}");
        let m = ucis(&e, "7k/8/8/K2pP3/8/8/8/8 w - d6 0 1").await;
        assert!(m.contains(&"e5d6".to_string()), "{m:?}");
        // ... and when the capturing pawn is pinned on a diagonal it may only capture along it
        let m = ucis(&e, "7b/8/8/3pP3/8/8/8/K6k w - d6 0 1").await;
        assert!(!m.contains(&"e5d6".to_string()), "{m:?}");
        // double check: only king moves
        let m = ucis(&e, "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1").await;
        assert!(m.iter().all(|u| u.starts_with("e1")), "{m:?}");
        // kings never stand adjacent
        let m = ucis(&e, "8/8/8/3k4/8/3K4/8/8 w - - 0 1").await;
        assert!(
            !m.iter().any(|u| u == "d3d4" || u == "d3c4" || u == "d3e4"),
            "{m:?}"
        );
    });
}

#[test]
fn engine_rejects_impossible_setups() {
    let text = std::fs::read_to_string(data("fen/fen_bad.txt")).expect("fen_bad");
    let mut checked = 0;
    rt().block_on(async {
        let e = engine().await;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let cols: Vec<&str> = line.split('\t').collect();
            let (fen, kind) = (cols[0], cols[2]);
            match Setup::from_fen(fen) {
                Err(err) => assert_eq!(err.kind, kind, "{fen}"),
                Ok(s) => {
                    let verdict = e.check_setups(&[s]).await.expect("setup checks");
                    let (got, _) = verdict[0]
                        .clone()
                        .unwrap_or_else(|| panic!("{fen} ({kind}) accepted"));
                    let want = if kind.starts_with("opposite_check") {
                        "opposite_check"
                    } else {
                        kind
                    };
                    assert_eq!(got, want, "{fen}");
                    checked += 1;
                }
            }
        }
    });
    assert_eq!(checked, 5);
    let edge = std::fs::read_to_string(data("fen/fen_edge.txt")).expect("fen_edge");
    rt().block_on(async {
        let e = engine().await;
        for line in edge
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let fen = line.split('\t').next().unwrap_or_default();
            let s = Setup::from_fen(fen).unwrap_or_else(|err| panic!("{fen}: {err}"));
            assert_eq!(
                e.check_setups(&[s]).await.expect("checks")[0],
                None,
                "{fen}"
            );
        }
    });
}

#[test]
fn sample_games_match_python_chess() {
    let text =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample.pgn"))
            .expect("sample");
    let games: Vec<_> = sqlchess::pgn::PgnReader::new(&text[..])
        .map(|g| ("sample.pgn", g.expect("read")))
        .collect();
    assert_eq!(games.len(), 20);
    let reports = rt().block_on(async {
        sqlchess::validate::validate_games(&engine().await, &games)
            .await
            .expect("validate")
    });
    let mut rdr = csv::Reader::from_path(data("sample_oracle.csv")).expect("oracle");
    for (r, row) in reports.iter().zip(rdr.records()) {
        let row = row.expect("row");
        let (variant, plies, first_illegal, fen, status) =
            (&row[1], &row[2], &row[3], &row[4], &row[5]);
        if !["standard", "chess960"].contains(&variant) {
            assert_eq!(
                r.error_kind.as_deref(),
                Some("unsupported_variant"),
                "{r:?}"
            );
            continue;
        }
        assert_eq!(
            r.plies.to_string(),
            plies,
            "plies of game {}: {r:?}",
            r.game_index
        );
        assert_eq!(
            r.first_illegal_ply
                .map(|p| p.to_string())
                .unwrap_or_default(),
            first_illegal,
            "{r:?}"
        );
        assert_eq!(
            r.final_fen.as_deref(),
            Some(fen),
            "final FEN of game {}",
            r.game_index
        );
        assert_eq!(
            r.final_status.as_deref(),
            Some(status),
            "final status of game {}",
            r.game_index
        );
    }
}

#[test]
fn move_tokens_resolve_with_the_error_taxonomy() {
    rt().block_on(async {
        let e = engine().await;
        let cases: &[(&str, Option<(&str, u32)>)] = &[
            (
                "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *",
                None,
            ),
            ("1. g1f3 d7d5 2. e2e4 --  3. Z0 e8d7 *", None),
            ("1. e4 e5 2. Ke3 *", Some(("illegal_move", 3))),
            ("1. Nf3 d5 2. Nad2 *", Some(("no_such_piece", 3))),
            ("1. Nf3 e5 2. d3 e4 3. Nd2 *", Some(("ambiguous_move", 5))),
            ("1. e4 e5 2. e5 *", Some(("illegal_move", 3))),
            ("1. e4 e5 2. Qd4 *", Some(("illegal_move", 3))),
            ("1. e4 e5 2. Nf6 *", Some(("wrong_side", 3))),
            ("1. e4 Sf6 *", Some(("syntax", 2))),
            ("1. e4 e5 2. O-O *", Some(("illegal_move", 3))),
            ("1. e4 e5 2. Qz9 *", Some(("syntax", 3))),
            (
                "1. d4 d5 2. Qd3 Qd6 3. Qe3 Qe6 4. Qxe6 fxe6 5. Qd3 *",
                Some(("no_such_piece", 9)),
            ),
        ];
        for (movetext, want) in cases {
            let r = validate_text(&e, &format!("[Event \"t\"]\n\n{movetext}\n"))
                .await
                .remove(0);
            let got = r.error_kind.as_deref().zip(r.first_illegal_ply);
            assert_eq!(got, *want, "{movetext}: {r:?}");
        }
    });
}

#[test]
fn perft_refuses_counts_beyond_u64() {
    rt().block_on(async {
        let e = engine().await;
        let kk = setup("8/8/8/8/8/8/8/K6k w - - 0 1");
        assert_eq!(e.perft(&[kk], 10).await.expect("perft"), vec![18_036_498]);
        assert!(
            e.perft(&[kk], 25).await.is_err(),
            "2^64 overflow must be an error"
        );
    });
}
