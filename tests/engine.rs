//! Engine tests that need nothing outside the repository.

use crate::common;
use common::*;

use sqlchess::Setup;
use sqlchess::chess::outcome::FinalStatus;
use sqlchess::validate::ErrorKind;

/// The perft suite of `tests/data/standard.perft`: every position at every depth listed.
#[test]
fn perft_suite() {
    let suite = perft::read_perft(&data("standard.perft"));
    assert_eq!(suite.len(), 6, "positions in standard.perft");
    rt().block_on(async {
        let e = engine().await;
        for case in &suite {
            for &(depth, want) in &case.counts {
                let got = e.perft(&[setup(&case.epd)], depth).await.expect("perft");
                assert_eq!(got, vec![want], "{} ({}) depth {depth}", case.id, case.epd);
            }
        }
    });
}

/// The bucketed, spilled path of perft (issue 15), forced on small trees by its knobs: chunks
/// of a few positions, many buckets, every level spilled to Arrow IPC files, every bucket
/// shared by two one-partition workers. The counts are
/// the published ones, `--divide`'s rows those of the default run, and the progress
/// reports end with every node of the last level merged.
#[test]
fn perft_in_small_chunks_and_spilled_buckets_is_exact() {
    use sqlchess::engine::{PerftOptions, PerftProgress};
    use std::sync::{Arc, Mutex};
    let kiwipete = setup("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let position3 = setup("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
    rt().block_on(async {
        let e = sqlchess::Engine::new(sqlchess::PipelineConfig {
            target_partitions: 2,
            ..Default::default()
        })
        .await
        .expect("engine");
        let seen: Arc<Mutex<Vec<PerftProgress>>> = Arc::default();
        let log = seen.clone();
        let options = |chunk: usize, buckets: usize| PerftOptions {
            chunk: Some(chunk),
            buckets: Some(buckets),
            spill_at: Some(0),
            parallel_from: Some(1),
            progress: Some(Arc::new({
                let log = log.clone();
                move |p: &PerftProgress| log.lock().expect("log").push(*p)
            })),
        };
        let got = e.perft_with(&[kiwipete], 3, &options(5, 13)).await;
        assert_eq!(got.expect("kiwipete 3"), [97_862]);
        {
            let seen = seen.lock().expect("log");
            let last = seen.last().expect("progress reported");
            assert_eq!((last.ply, last.depth), (3, 3));
            assert_eq!(last.nodes_merged, last.nodes);
            assert_eq!(last.nodes, 2_039, "kiwipete level 2 nodes");
            assert!(last.spilled);
            assert!(seen.iter().any(|p| p.ply == 2 && p.positions > 0));
        }
        let got = e.perft_with(&[position3], 5, &options(300, 7)).await;
        assert_eq!(got.expect("position 3 depth 5"), [674_624]);
        // several roots at once, each counted on its own
        let got = e
            .perft_with(&[position3, kiwipete, position3], 2, &options(3, 5))
            .await;
        assert_eq!(got.expect("three roots"), [191, 2_039, 191]);
        let divided = e
            .perft_divide_with(&kiwipete, 3, &options(11, 3))
            .await
            .expect("divide");
        assert_eq!(divided.len(), 48);
        assert_eq!(divided.iter().map(|(_, n)| n).sum::<u64>(), 97_862);
        assert_eq!(divided, e.perft_divide(&kiwipete, 3).await.expect("divide"));
    });
}

/// One row of `oracle_positions.csv` / `oracle_endings.csv` (python-chess 1.11.2, made by
/// `tests/data/make_oracle_fixture.py`).
struct OracleRow {
    fen: String,
    count: usize,
    moves: Vec<String>,
    is_check: bool,
    is_checkmate: bool,
    is_stalemate: bool,
    checking: Vec<String>,
    mating: Vec<String>,
}

fn oracle_rows(name: &str) -> Vec<OracleRow> {
    let flag = |s: &str| match s {
        "true" => true,
        "false" => false,
        other => panic!("{name}: not a flag: {other:?}"),
    };
    let list = |s: &str| {
        let mut v: Vec<String> = s.split_whitespace().map(str::to_string).collect();
        v.sort();
        v
    };
    let mut rdr = csv::Reader::from_path(data(name)).expect("csv");
    let head = rdr.headers().expect("header").clone();
    assert_eq!(
        head.iter().collect::<Vec<_>>(),
        [
            "fen",
            "legal_move_count",
            "legal_moves_uci",
            "is_check",
            "is_checkmate",
            "is_stalemate",
            "checking_moves_uci",
            "mating_moves_uci"
        ]
    );
    rdr.records()
        .map(|r| {
            let r = r.expect("row");
            OracleRow {
                fen: r[0].to_string(),
                count: r[1].parse().expect("count"),
                moves: list(&r[2]),
                is_check: flag(&r[3]),
                is_checkmate: flag(&r[4]),
                is_stalemate: flag(&r[5]),
                checking: list(&r[6]),
                mating: list(&r[7]),
            }
        })
        .collect()
}

#[test]
fn legal_moves_checks_mates_and_stalemates_match_python_chess_oracle() {
    let mut rows = oracle_rows("oracle_positions.csv");
    assert_eq!(rows.len(), 288);
    // 12 stalemates, then 236 positions a move before checkmate
    let endings = oracle_rows("oracle_endings.csv");
    assert_eq!(endings.len(), 248);
    assert!(endings[..12].iter().all(|r| r.is_stalemate && r.count == 0));
    assert!(endings[12..].iter().all(|r| !r.mating.is_empty()));
    rows.extend(endings);
    let count = |f: fn(&OracleRow) -> bool| rows.iter().filter(|r| f(r)).count();
    // what the fixture covers: checks, mates, stalemates, checking and mating moves
    assert_eq!(
        (
            count(|r| r.is_check),
            count(|r| r.is_checkmate),
            count(|r| r.is_stalemate),
            count(|r| !r.checking.is_empty()),
            count(|r| !r.mating.is_empty()),
        ),
        (21, 3, 12, 372, 236)
    );
    let fens: Vec<&str> = rows.iter().map(|r| r.fen.as_str()).collect();
    let setups: Vec<Setup> = fens.iter().map(|f| setup(f)).collect();
    let (got, reports, in_check) = rt().block_on(async {
        let e = engine().await;
        (
            moves_by_position(&e, &setups).await,
            reports_of_positions(&e, &fens).await,
            side_to_move_in_check(&e, &fens).await,
        )
    });
    for (i, row) in rows.iter().enumerate() {
        let fen = &row.fen;
        assert_eq!(row.moves.len(), row.count, "{fen}: fixture");
        let have: Vec<&str> = got[i].iter().map(|m| m.uci.as_str()).collect();
        assert_eq!(have, row.moves, "legal moves of {fen}");
        let of = |f: fn(&Mv) -> bool| -> Vec<&str> {
            got[i]
                .iter()
                .filter(|m| f(m))
                .map(|m| m.uci.as_str())
                .collect()
        };
        assert_eq!(of(|m| m.is_check), row.checking, "is_check column of {fen}");
        assert_eq!(of(|m| m.is_mate), row.mating, "is_mate column of {fen}");
        // SAN suffixes agree with the columns
        for m in &got[i] {
            let suffix = if m.is_mate {
                "#"
            } else if m.is_check {
                "+"
            } else {
                ""
            };
            assert!(
                m.san.ends_with(suffix)
                    && !m.san[..m.san.len() - suffix.len()].ends_with(['+', '#']),
                "{fen}: {m:?}"
            );
        }
        assert_eq!(in_check[i], row.is_check, "side to move in check in {fen}");
        let status = reports[i]
            .final_status
            .map(sqlchess::chess::outcome::FinalStatus::as_str);
        assert_eq!(
            status == Some("checkmate"),
            row.is_checkmate,
            "{fen}: {status:?}"
        );
        assert_eq!(
            status == Some("stalemate"),
            row.is_stalemate,
            "{fen}: {status:?}"
        );
    }
}

#[test]
fn differential_against_shakmaty_random_playouts() {
    let positions = random_playout_positions(20240601, 12_000);
    assert_eq!(positions.len(), 12_000);
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
    // exact legal-move sets (python-chess 1.11.2 `board.legal_moves`)
    let cases: &[(&str, &str, &str)] = &[
        (
            "underpromotion: all four pieces",
            "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",
            "e1d1 e1d2 e1e2 e1f1 e1f2 e7e8b e7e8n e7e8q e7e8r",
        ),
        (
            "no castling out of a pawn check",
            "4k3/8/8/8/8/8/3p4/4K2R w K - 0 1",
            "e1d1 e1d2 e1e2 e1f1 e1f2",
        ),
        (
            "en passant that uncovers a rank attack on the king is illegal",
            "7k/8/8/K2pP2r/8/8/8/8 w - d6 0 1",
            "a5a4 a5a6 a5b4 a5b5 a5b6 e5e6",
        ),
        (
            "en passant without the rook is legal",
            "7k/8/8/K2pP3/8/8/8/8 w - d6 0 1",
            "a5a4 a5a6 a5b4 a5b5 a5b6 e5d6 e5e6",
        ),
        (
            "a pawn pinned on a diagonal may not capture en passant or push",
            "7b/8/8/3pP3/8/8/8/K6k w - d6 0 1",
            "a1a2 a1b1 a1b2",
        ),
        (
            "double check: only king moves",
            "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",
            "e1e2 e1f2",
        ),
        (
            "kings never stand adjacent",
            "8/8/8/3k4/8/3K4/8/8 w - - 0 1",
            "d3c2 d3c3 d3d2 d3e2 d3e3",
        ),
    ];
    rt().block_on(async {
        let e = engine().await;
        for (what, fen, want) in cases {
            let want: Vec<String> = want.split(' ').map(str::to_string).collect();
            assert_eq!(ucis(&e, fen).await, want, "{what}: {fen}");
        }
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
        assert_eq!(
            ucis(&e, &after).await,
            [
                "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "h1f1", "h1g1", "h1h2", "h1h3", "h1h4",
                "h1h5", "h1h6", "h1h7", "h1h8"
            ]
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
                Err(err) => assert_eq!(err.kind.as_str(), kind, "{fen}"),
                Ok(s) => {
                    let verdict = e.check_setups(&[s]).await.expect("setup checks");
                    let got = verdict[0]
                        .clone()
                        .unwrap_or_else(|| panic!("{fen} ({kind}) accepted"))
                        .kind
                        .as_str();
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
}

/// `fen_edge.txt`: 40 valid but unusual FENs with python-chess's verdicts. Each is accepted,
/// has python-chess's number of legal moves, and a move-less game set up from it ends with
/// python-chess's normalised `fen()` and its outcome (`-`: `fifty_moves` when the halfmove
/// clock is at least 100 and a move exists, else `ongoing`).
#[test]
fn edge_fens_match_python_chess() {
    let edge = std::fs::read_to_string(data("fen/fen_edge.txt")).expect("fen_edge");
    let rows: Vec<Vec<&str>> = edge
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 40);
    let fens: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    let setups: Vec<Setup> = fens.iter().map(|f| setup(f)).collect();
    let (verdicts, moves, reports) = rt().block_on(async {
        let e = engine().await;
        (
            e.check_setups(&setups).await.expect("checks"),
            moves_by_position(&e, &setups).await,
            reports_of_positions(&e, &fens).await,
        )
    });
    for (i, r) in rows.iter().enumerate() {
        let (fen, kind, valid, status, want_fen, count, outcome) =
            (r[0], r[2], r[3], r[4], r[5], r[6], r[7]);
        assert_eq!((valid, status), ("True", "VALID"), "{kind}: fixture");
        assert_eq!(verdicts[i], None, "{kind}: {fen}");
        assert_eq!(
            moves[i].len().to_string(),
            count,
            "{kind}: legal moves of {fen}"
        );
        let rep = &reports[i];
        assert_eq!(rep.error_kind, None, "{kind}: {rep:?}");
        assert_eq!(
            rep.final_fen.as_deref(),
            Some(want_fen),
            "{kind}: FEN of {fen}"
        );
        let halfmove: u32 = want_fen
            .split(' ')
            .nth(4)
            .expect("clock")
            .parse()
            .expect("clock");
        let want_status = match outcome {
            "-" if halfmove >= 100 && !moves[i].is_empty() => "fifty_moves",
            "-" => "ongoing",
            o => o,
        };
        assert_eq!(
            rep.final_status
                .map(sqlchess::chess::outcome::FinalStatus::as_str),
            Some(want_status),
            "{kind}: status of {fen}"
        );
    }
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
                r.error_kind.map(ErrorKind::as_str),
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
            r.final_status.map(FinalStatus::as_str),
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
            // UCI: replayed, but castling written as the king's move and the refusals
            // are the full stages'
            (
                "1. e2e4 e7e5 2. g1f3 b8c6 3. f1c4 g8f6 4. e1g1 f8c5 5. d2d4 e5d4 *",
                None,
            ),
            ("1. e2e5 *", Some(("illegal_move", 1))),
            ("1. e7e5 *", Some(("wrong_side", 1))),
            (
                "1. d2d4 e7e5 2. d4e5 f8b4 3. a2a3 *",
                Some(("illegal_move", 5)),
            ),
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
            let got = r.error_kind.map(ErrorKind::as_str).zip(r.first_illegal_ply);
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

/// Found by the differential games against shakmaty (game 2502 of seed 20261130): a
/// stalemate with insufficient material (K+B v K) is `insufficient_material`, as
/// python-chess 1.11.2's `outcome()` has it (it tests material before stalemate); the
/// Result tag must still be a draw.
#[test]
fn stalemate_with_insufficient_material_is_insufficient_material() {
    let pgn = "[Result \"1-0\"]\n[FEN \"8/8/8/Kbk5/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n\n*\n\n\
        [Result \"1/2-1/2\"]\n[FEN \"8/8/8/K1k5/8/3b4/8/8 b - - 0 1\"]\n[SetUp \"1\"]\n\n1... Bb5 1/2-1/2\n";
    let reports = rt().block_on(async { validate_text(&engine().await, pgn).await });
    let got: Vec<(Option<&str>, Option<&str>, bool)> = reports
        .iter()
        .map(|r| {
            (
                r.final_fen.as_deref(),
                r.final_status
                    .map(sqlchess::chess::outcome::FinalStatus::as_str),
                r.result_consistent,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                Some("8/8/8/Kbk5/8/8/8/8 w - - 0 1"),
                Some("insufficient_material"),
                false
            ),
            (
                Some("8/8/8/Kbk5/8/8/8/8 w - - 1 2"),
                Some("insufficient_material"),
                true
            ),
        ]
    );
}
