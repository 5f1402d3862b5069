//! Cases from real reports of other chess tools (issue 11, cases 2-6), each kind with its
//! right values as python-chess 1.11.2 gives them: castling written as a king move, en
//! passant marks, the `½-½` result marker, Windows-1252 files, and set-ups whose en passant
//! square contradicts the check the side to move is in.

use crate::common;

use common::{engine, rt, setup, validate_text};
use sqlchess::pgn::PgnReader;
use sqlchess::validate::{GameReport, validate_games};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Both sides may castle both ways.
const CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

fn from(fen: &str, moves: &str) -> String {
    format!("[FEN \"{fen}\"]\n[SetUp \"1\"]\n\n{moves}\n")
}

/// (plies, first_illegal_ply, error_kind, final_fen) of a report.
fn summary(r: &GameReport) -> (u32, Option<u32>, Option<&str>, Option<&str>) {
    (
        r.plies,
        r.first_illegal_ply,
        r.error_kind.map(|k| k.as_str()),
        r.final_fen.as_deref(),
    )
}

#[test]
fn castling_written_as_a_king_move_is_illegal() {
    rt().block_on(async {
        let e = engine().await;
        let start = Some(CASTLES);
        // white, both sides, SAN and long algebraic: illegal_move at ply 1
        for token in [
            "Kg1", "Kc1", "Ke1g1", "Ke1c1", "Ke1-g1", "Kg1+", "Kxh1", "Ke1h1",
        ] {
            let r = validate_text(&e, &from(CASTLES, &format!("1. {token} *"))).await;
            assert_eq!(
                summary(&r[0]),
                (0, Some(1), Some("illegal_move"), start),
                "{token}"
            );
        }
        // black, after white castled: illegal_move at ply 2
        let after = Some("r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
        for token in ["Kc8", "Kg8", "Ke8c8", "Ke8g8"] {
            let r = validate_text(&e, &from(CASTLES, &format!("1. O-O {token} *"))).await;
            assert_eq!(
                summary(&r[0]),
                (1, Some(2), Some("illegal_move"), after),
                "{token}"
            );
        }
        // castling tokens and UCI king-to-target / king-takes-rook stay castling
        let castled = Some("2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
        for moves in [
            "1. O-O O-O-O *",
            "1. 0-0 0-0-0 *",
            "1. e1g1 e8c8 *",
            "1. e1h1 e8a8 *",
        ] {
            let r = validate_text(&e, &from(CASTLES, moves)).await;
            assert_eq!(summary(&r[0]), (2, None, None, castled), "{moves}");
        }
        // a king move one square is still a king move
        let r = validate_text(&e, &from(CASTLES, "1. Kf1 Kd8 *")).await;
        assert_eq!(
            summary(&r[0]),
            (2, None, None, Some("r2k3r/8/8/8/8/8/8/R4K1R w - - 2 2"))
        );
        // the engine API resolves tokens the same way
        let s = setup(CASTLES);
        let out = e
            .play_tokens(&[s, s, s], &["Kg1", "e1g1", "O-O"])
            .await
            .expect("play");
        assert!(out[0].is_err(), "{:?}", out[0]);
        for o in &out[1..] {
            let fen = o.as_ref().map(|s| s.to_fen()).expect("castles");
            assert_eq!(fen, "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
        }
    });
}

#[test]
fn en_passant_marks_are_accepted_on_en_passant_captures_only() {
    rt().block_on(async {
        let e = engine().await;
        // White takes en passant on d6: the mark is no ply
        let white_ep = Some("r1bqkb1r/ppp1pppp/2nP1n2/8/8/8/PPPP1PPP/RNBQKBNR w KQkq - 1 4");
        for moves in [
            "1. e4 Nf6 2. e5 d5 3. exd6 e.p. Nc6 *",
            "1. e4 Nf6 2. e5 d5 3. exd6ep Nc6 *",
            "1. e4 Nf6 2. e5 d5 3. exd6e.p. Nc6 *",
            "1. e4 Nf6 2. e5 d5 3. e5d6 e.p. Nc6 *",
            "1. e4 Nf6 2. e5 d5 3. exd6 Nc6 *",
        ] {
            let r = validate_text(&e, moves).await;
            assert_eq!(summary(&r[0]), (6, None, None, white_ep), "{moves}");
        }
        // Black takes en passant on e3
        let black_ep = Some("rnbqkbnr/ppp1pppp/8/8/P7/4p3/1PPP1PPP/RNBQKBNR w KQkq - 0 4");
        for moves in [
            "1. a3 d5 2. a4 d4 3. e4 dxe3 e.p. *",
            "1. a3 d5 2. a4 d4 3. e4 dxe3ep *",
        ] {
            let r = validate_text(&e, moves).await;
            assert_eq!(summary(&r[0]), (6, None, None, black_ep), "{moves}");
        }
        // the mark on anything else is a syntax error at that ply
        let after_2 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        for (moves, plies, ply, fen) in [
            // not a pawn capture onto rank 3 or 6 (the lexer says so)
            ("1. e4 e.p. e5 *", 0, 1, START),
            ("1. e4ep e5 *", 0, 1, START),
            ("1. e4 e5 2. Nf3ep *", 2, 3, after_2),
            ("1. e4 e5 2. O-O e.p. *", 2, 3, after_2),
            // a pawn capture onto rank 6 that is an ordinary capture (the move says so)
            (
                "1. e4 d6 2. e5 Nc6 3. exd6ep *",
                4,
                5,
                "r1bqkbnr/ppp1pppp/2np4/4P3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 1 3",
            ),
        ] {
            let r = validate_text(&e, moves).await;
            assert_eq!(
                summary(&r[0]),
                (plies, Some(ply), Some("syntax"), Some(fen)),
                "{moves}"
            );
        }
        // the engine API checks the mark the same way
        let ep = setup("rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
        let plain = setup("r1bqkbnr/ppp1pppp/2np4/4P3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 1 3");
        let out = e
            .play_tokens(
                &[ep, ep, plain, plain],
                &["exd6ep", "exd6", "exd6ep", "exd6"],
            )
            .await
            .expect("play");
        let fens: Vec<Option<String>> = out
            .iter()
            .map(|o| o.as_ref().ok().map(|s| s.to_fen()))
            .collect();
        let taken =
            Some("rnbqkb1r/ppp1pppp/3P1n2/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3".to_string());
        let captured =
            Some("r1bqkbnr/ppp1pppp/2nP4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3".to_string());
        assert_eq!(fens, [taken.clone(), taken, None, captured]);
        // an en passant capture that is not available stays illegal_move
        let r = validate_text(&e, "1. e4 d5 2. e5 Nf6 3. d4 Nc6 4. exd6 e.p. *").await;
        assert_eq!(r[0].error_kind.map(|k| k.as_str()), Some("illegal_move"));
        assert_eq!(r[0].first_illegal_ply, Some(7));
    });
}

#[test]
fn half_point_result_marker_ends_the_game() {
    rt().block_on(async {
        let e = engine().await;
        let after_2 = Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        let text = "[Result \"1/2-1/2\"]\n\n1. e4 e5 \u{bd}-\u{bd}\n\n[Result \"*\"]\n\n1. d4 *\n";
        let r = validate_text(&e, text).await;
        assert_eq!(r.len(), 2);
        assert_eq!(summary(&r[0]), (2, None, None, after_2));
        assert_eq!(r[1].plies, 1);
        assert_eq!(r[1].error_kind, None);
        // the same marker in a Windows-1252 file (one byte 0xBD)
        let bytes = b"1. e4 e5 \xbd-\xbd\n\n1. d4 *\n";
        let games: Vec<_> = PgnReader::new(&bytes[..])
            .map(|g| ("cp1252.pgn", g.expect("read")))
            .collect();
        assert_eq!(games[0].1.result.as_deref(), Some("1/2-1/2"));
        let r = validate_games(&e, &games).await.expect("validate");
        assert_eq!(r.len(), 2);
        assert_eq!(summary(&r[0]), (2, None, None, after_2));
    });
}

#[test]
fn windows_1252_tag_values() {
    rt().block_on(async {
        let e = engine().await;
        let bytes = b"[Event \"Players\x92 Cup\"]\n[White \"M\xfcller\"]\n[Black \"\x93Bo\x94\"]\n\n1. e4 *\n";
        let games: Vec<_> = PgnReader::new(&bytes[..])
            .map(|g| ("cp1252.pgn", g.expect("read")))
            .collect();
        let r = validate_games(&e, &games).await.expect("validate");
        assert_eq!(r[0].event, "Players\u{2019} Cup");
        assert_eq!(r[0].white, "M\u{fc}ller");
        assert_eq!(r[0].black, "\u{201c}Bo\u{201d}");
        assert_eq!((r[0].plies, r[0].error_kind.map(|k| k.as_str())), (1, None));
    });
}

/// Set-ups with an en passant square (python-chess 1.11.2 `status()`): 65536 is
/// IMPOSSIBLE_CHECK; the same boards without the en passant square are valid.
const EP_SETUPS: [(&str, bool); 11] = [
    // the case: the queen's check on b5 passes d3, which the push did not open
    ("8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1", false),
    ("8/8/8/1k6/3Pp3/8/8/4KQ2 b - - 0 1", true),
    // the same with colours swapped
    ("4kq2/8/8/3pP3/1K6/8/8/8 w - d6 0 1", false),
    ("4kq2/8/8/3pP3/1K6/8/8/8 w - - 0 1", true),
    // double check (pawn and rook): never after a double push
    ("8/8/8/4k3/3P4/8/8/4RK2 b - d3 0 1", false),
    ("8/8/8/4k3/3P4/8/8/4RK2 b - - 0 1", true),
    // a knight's check
    ("8/8/8/8/3P4/1k6/8/N3K3 b - d3 0 1", false),
    ("8/8/8/8/3P4/1k6/8/N3K3 b - - 0 1", true),
    // the check the pawn uncovered (bishop c1 through d2) and the pawn's own check: valid
    ("8/8/8/6k1/3P4/8/8/2B1K3 b - d3 0 1", true),
    ("8/8/8/4k3/3P4/8/8/4K3 b - d3 0 1", true),
    // not in check
    ("4k3/8/8/8/2pP4/8/8/4K2B b - d3 0 1", true),
];

#[test]
fn en_passant_square_with_a_check_the_push_cannot_give() {
    rt().block_on(async {
        let e = engine().await;
        let setups: Vec<_> = EP_SETUPS.iter().map(|(f, _)| setup(f)).collect();
        let verdicts = e.check_setups(&setups).await.expect("setup checks");
        for ((fen, valid), verdict) in EP_SETUPS.iter().zip(&verdicts) {
            match verdict {
                None => assert!(valid, "{fen} must be rejected"),
                Some(e) => {
                    assert!(!valid, "{fen} is valid, got {e}");
                    assert_eq!(e.kind.as_str(), "impossible_check", "{fen}");
                    assert!(e.message.contains("en passant"), "{e}");
                }
            }
        }
        // a PGN game starting there: setup error at ply 0
        let r = validate_text(
            &e,
            &from("8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1", "1... exd3 *"),
        )
        .await;
        assert_eq!(r[0].error_kind.map(|k| k.as_str()), Some("setup"));
        assert_eq!(r[0].first_illegal_ply, Some(0));
        assert_eq!(r[0].plies, 0);
        assert!(
            r[0].error_message
                .as_deref()
                .unwrap_or("")
                .contains("en passant"),
            "{r:?}"
        );
        // without the en passant square the game is legal
        let r = validate_text(&e, &from("8/8/8/1k6/3Pp3/8/8/4KQ2 b - - 0 1", "1... Kb6 *")).await;
        assert_eq!(
            summary(&r[0]),
            (1, None, None, Some("8/8/1k6/8/3Pp3/8/8/4KQ2 w - - 1 2"))
        );
    });
}
