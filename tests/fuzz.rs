//! Mutation fuzzing on stable Rust: FEN strings, SAN tokens and PGN text from the test data,
//! mutated with a seeded generator (bit flips, byte changes, deletions, truncation, splices
//! of other inputs, inserted brackets/braces/parentheses, NUL and non-UTF-8 bytes, huge
//! numbers, megabyte tokens), then run in-process in batches through the parsers and the
//! pipeline ([`Setup::from_fen`] + [`Engine::check_setups`] + [`Engine::legal_moves`];
//! `parse_san` + [`Engine::play_tokens`]; [`PgnReader`] + [`validate_games`]).
//!
//! Invariants: no panic; an accepted FEN writes a FEN that reads back as the same position;
//! one answer per position and per token; one report per game read, in order, with its ply
//! counts consistent; the binary exits with 0, 1 or 2 (never a panic or a signal) on about a
//! hundred mutated inputs.
//!
//! Counts: 10,000 executions of each kind by default; `SQLCHESS_FUZZ_EXECS=1000000 cargo test
//! --release --test tests -- fuzz:: --nocapture` for the opt-in run. `SQLCHESS_FUZZ_SEED` changes
//! the seed; a failure prints the input (escaped) that caused it.

use crate::common;

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::{Rng, data, engine, env_count, rt};
use sqlchess::Setup;
use sqlchess::chess::san::parse_san;
use sqlchess::pgn::PgnReader;
use sqlchess::validate::validate_games;

fn execs() -> usize {
    env_count("SQLCHESS_FUZZ_EXECS", 10_000)
}

fn seed() -> u64 {
    env_count("SQLCHESS_FUZZ_SEED", 20261130) as u64
}

/// Bytes worth inserting: delimiters of FEN, SAN and PGN, NUL, non-UTF-8 and line breaks.
const SPECIAL: &[&[u8]] = &[
    b"[",
    b"]",
    b"{",
    b"}",
    b"(",
    b")",
    b"<",
    b">",
    b";",
    b"%",
    b"\"",
    b"\\",
    b"$",
    b"*",
    b".",
    b"/",
    b"-",
    b"=",
    b"+",
    b"#",
    b"!",
    b"?",
    b"x",
    b"O-O",
    b"0-0-0",
    b"e.p.",
    b"1-0",
    b"1/2-1/2",
    b"\xc2\xbd-\xc2\xbd",
    b"--",
    b"Z0",
    b"\0",
    b"\xff",
    b"\x92",
    b"\xc3",
    b"\r",
    b"\n",
    b"\n\n",
    b"\t",
    b" ",
    b"\xef\xbb\xbf",
    b"[FEN \"",
    b"[SetUp \"1\"]",
    b"[Variant \"Chess960\"]",
    b"8/8/8/8/8/8/8/8",
    b"K",
    b"k",
    b"Q",
    b"p",
    b"w",
    b"b",
    b"KQkq",
];

/// Numbers beyond every integer type.
const HUGE: &[&[u8]] = &[
    b"99999999999999999999999999999",
    b"18446744073709551616",
    b"4294967296",
    b"-1",
    b"340282366920938463463374607431768211456",
    b"$256",
    b"$18446744073709551616",
];

/// One mutation of `input`, using `others` for splices.
fn mutate(input: &[u8], others: &[Vec<u8>], rng: &mut Rng) -> Vec<u8> {
    let mut v = input.to_vec();
    // one mutation half the time (most inputs stay close to valid), else up to four
    let rounds = if rng.chance(1, 2) {
        1
    } else {
        1 + rng.below(4)
    };
    for _ in 0..rounds {
        let at = |rng: &mut Rng, v: &Vec<u8>| rng.below(v.len() + 1);
        match rng.below(12) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = rng.next_u64() as u8;
            }
            2 if !v.is_empty() => {
                let i = rng.below(v.len());
                let n = 1 + rng.below(16.min(v.len() - i));
                v.drain(i..i + n);
            }
            3 => {
                let i = at(rng, &v);
                v.truncate(i);
            }
            4 | 5 => {
                let i = at(rng, &v);
                let s = SPECIAL[rng.below(SPECIAL.len())];
                v.splice(i..i, s.iter().copied());
            }
            6 => {
                let i = at(rng, &v);
                let s = HUGE[rng.below(HUGE.len())];
                v.splice(i..i, s.iter().copied());
            }
            7 if !others.is_empty() => {
                // splice: a piece of another input
                let o = &others[rng.below(others.len())];
                if !o.is_empty() {
                    let a = rng.below(o.len());
                    let b = a + rng.below(o.len() - a + 1);
                    let i = at(rng, &v);
                    v.splice(i..i, o[a..b].iter().copied());
                }
            }
            8 if !v.is_empty() => {
                // a piece of this input repeated
                let a = rng.below(v.len());
                let b = (a + 1 + rng.below(32)).min(v.len());
                let piece = v[a..b].to_vec();
                let i = at(rng, &v);
                for _ in 0..1 + rng.below(4) {
                    v.splice(i..i, piece.iter().copied());
                }
            }
            9 if rng.chance(1, 50) => {
                // a megabyte token
                let i = at(rng, &v);
                let unit: &[u8] = [&b"a"[..], b"9", b"e4", b"{", b"(", b"Nf3"][rng.below(6)];
                let big: Vec<u8> = unit.iter().copied().cycle().take(1 << 20).collect();
                v.splice(i..i, big);
            }
            10 if !v.is_empty() => {
                // a random byte inserted
                let i = at(rng, &v);
                v.insert(i, rng.next_u64() as u8);
            }
            _ => {
                // swap two pieces of the input
                if v.len() > 2 {
                    let a = rng.below(v.len() - 1);
                    let b = a + 1 + rng.below(v.len() - a - 1);
                    v.swap(a, b);
                }
            }
        }
    }
    v
}

/// The input shown in a failure message (escaped, at most 300 bytes).
fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
    format!("{s:?}{}", if bytes.len() > 300 { " ..." } else { "" })
}

/// The FENs of the test data: valid ones, edge cases and the bad ones.
fn fen_corpus() -> Vec<Vec<u8>> {
    let mut out = vec![];
    for file in ["fen/fen_edge.txt", "fen/fen_bad.txt"] {
        let text = std::fs::read_to_string(data(file)).expect("fen file");
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            out.push(
                line.split('\t')
                    .next()
                    .unwrap_or_default()
                    .as_bytes()
                    .to_vec(),
            );
        }
    }
    let mut rdr = csv::Reader::from_path(data("oracle_positions.csv")).expect("csv");
    for r in rdr.records().take(100) {
        out.push(r.expect("row")[0].as_bytes().to_vec());
    }
    out
}

#[test]
fn fuzz_fen() {
    let n = execs();
    let corpus = fen_corpus();
    let mut rng = Rng(seed());
    let t0 = Instant::now();
    let (mut accepted, mut refused_by_engine, mut moves) = (0usize, 0usize, 0usize);
    let runtime = rt();
    let e = runtime.block_on(engine());
    let mut done = 0;
    while done < n {
        let size = (n - done).min(10_000);
        let mut setups = vec![];
        for _ in 0..size {
            let input = mutate(&corpus[rng.below(corpus.len())], &corpus, &mut rng);
            let text = String::from_utf8_lossy(&input).into_owned();
            let parsed = catch_unwind(|| Setup::from_fen(&text))
                .unwrap_or_else(|_| panic!("from_fen panicked on {}", show(&input)));
            if let Ok(s) = parsed {
                let again = Setup::from_fen(&s.to_fen()).unwrap_or_else(|err| {
                    panic!("{}: its FEN {} fails: {err}", show(&input), s.to_fen())
                });
                assert_eq!(again.to_fen(), s.to_fen(), "{}", show(&input));
                setups.push(s);
            }
        }
        accepted += setups.len();
        let (verdicts, batches) = runtime.block_on(async {
            let verdicts = e.check_setups(&setups).await.expect("setup checks");
            let good: Vec<Setup> = setups
                .iter()
                .zip(&verdicts)
                .filter(|(_, v)| v.is_none())
                .map(|(s, _)| *s)
                .collect();
            (verdicts, e.legal_moves(&good).await.expect("legal moves"))
        });
        assert_eq!(verdicts.len(), setups.len(), "one verdict per position");
        refused_by_engine += verdicts.iter().filter(|v| v.is_some()).count();
        moves += batches.iter().map(|b| b.num_rows()).sum::<usize>();
        done += size;
    }
    eprintln!(
        "fuzz FEN: {done} executions, {accepted} accepted by from_fen, {refused_by_engine} of those \
         refused by check_setups, {moves} legal moves, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(
        accepted > 0 && accepted < done,
        "both outcomes reached: {accepted} of {done}"
    );
}

/// SAN tokens: every token of the sample games and the notations the lexer knows.
fn san_corpus() -> Vec<Vec<u8>> {
    let text = std::fs::read(data("pgn/sample.pgn")).expect("sample");
    let mut out: Vec<Vec<u8>> = PgnReader::new(&text[..])
        .flat_map(|g| g.expect("read").moves)
        .map(String::into_bytes)
        .collect();
    out.sort();
    out.dedup();
    for t in [
        "O-O", "O-O-O", "0-0", "0-0-0", "O-O+", "e8=Q#", "exd6", "exd6e.p.", "bxa8=N", "Nbd7",
        "R1a3", "Qh4xe1", "e2e4", "e7e8q", "e1g1", "--", "Z0", "@@@@", "Kxe2!?", "P@e4",
    ] {
        out.push(t.as_bytes().to_vec());
    }
    out
}

#[test]
fn fuzz_san_tokens() {
    let n = execs();
    let corpus = san_corpus();
    let starts: Vec<Setup> = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ]
    .iter()
    .map(|f| Setup::from_fen(f).expect("fen"))
    .collect();
    let mut rng = Rng(seed() ^ 1);
    let t0 = Instant::now();
    let (mut lexed, mut played) = (0usize, 0usize);
    let runtime = rt();
    let e = runtime.block_on(engine());
    let mut done = 0;
    while done < n {
        let size = (n - done).min(10_000);
        let mut tokens = vec![];
        let mut setups = vec![];
        for _ in 0..size {
            let input = mutate(&corpus[rng.below(corpus.len())], &corpus, &mut rng);
            let text = String::from_utf8_lossy(&input).into_owned();
            let lex = catch_unwind(|| parse_san(&text).is_ok())
                .unwrap_or_else(|_| panic!("parse_san panicked on {}", show(&input)));
            lexed += usize::from(lex);
            tokens.push(text);
            setups.push(starts[rng.below(starts.len())]);
        }
        let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let out = runtime
            .block_on(e.play_tokens(&setups, &refs))
            .unwrap_or_else(|err| panic!("play_tokens failed: {err}"));
        assert_eq!(out.len(), tokens.len(), "one answer per token");
        played += out.iter().filter(|r| r.is_ok()).count();
        done += size;
    }
    eprintln!(
        "fuzz SAN: {done} executions, {lexed} lexed as moves, {played} legal, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(played > 0 && lexed < done, "both outcomes reached");
}

/// PGN documents: each game of the sample (cut after 40 moves, as mutations of a long game
/// mostly differ in where it breaks), the malformed files and a few edge games.
fn pgn_corpus() -> Vec<Vec<u8>> {
    let text = std::fs::read_to_string(data("pgn/sample.pgn")).expect("sample");
    let mut out: Vec<Vec<u8>> = vec![];
    for chunk in text.split("\n\n[").map(|c| {
        if c.starts_with('[') {
            c.to_string()
        } else {
            format!("[{c}")
        }
    }) {
        let cut: String = chunk.split_inclusive(' ').take(120).collect();
        out.push(cut.into_bytes());
    }
    let dir = data("pgn/malformed");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("malformed")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).expect("read");
        if bytes.len() <= 16 << 10 {
            out.push(bytes);
        }
    }
    for g in [
        "[Event \"ep\"]\n\n1. e4 Nf6 2. e5 d5 3. exd6 e.p. e6 4. dxc7 Qd7 5. cxb8=Q Rxb8 *\n",
        "[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n[SetUp \"1\"]\n\n1. O-O O-O-O 2. Kh2 *\n",
        "[Event \"null\"]\n\n1. e4 -- 2. Nf3 Z0 3. e1e2 { comment } (1... e5 2. Nf3) $1 ½-½\n",
    ] {
        out.push(g.as_bytes().to_vec());
    }
    out
}

#[test]
fn fuzz_pgn() {
    let n = execs();
    let corpus = pgn_corpus();
    let mut rng = Rng(seed() ^ 2);
    let t0 = Instant::now();
    let (mut games_read, mut plies, mut errors) = (0usize, 0u64, 0usize);
    let runtime = rt();
    let e = runtime.block_on(engine());
    let mut done = 0;
    while done < n {
        let size = (n - done).min(2_000);
        let mut games = vec![];
        let mut per_input = vec![];
        for _ in 0..size {
            let input = mutate(&corpus[rng.below(corpus.len())], &corpus, &mut rng);
            let read = catch_unwind(AssertUnwindSafe(|| {
                PgnReader::new(&input[..])
                    .map(|g| g.expect("reading from memory cannot fail"))
                    .collect::<Vec<_>>()
            }))
            .unwrap_or_else(|_| panic!("PgnReader panicked on {}", show(&input)));
            for (i, g) in read.iter().enumerate() {
                assert_eq!(g.index, i, "game indexes count from 0 in {}", show(&input));
            }
            per_input.push(read.len());
            games.extend(read.into_iter().map(|g| ("fuzz.pgn", g)));
        }
        let reports = runtime
            .block_on(validate_games(&e, &games))
            .unwrap_or_else(|err| panic!("validate_games failed: {err}"));
        assert_eq!(reports.len(), games.len(), "one report per game read");
        for ((_, g), r) in games.iter().zip(&reports) {
            assert_eq!(r.game_index, g.index as u64, "reports in input order");
            assert!(r.plies as usize <= g.moves.len(), "{r:?}");
            match (r.first_illegal_ply, &r.error_kind) {
                (None, None) => assert_eq!(r.plies as usize, g.moves.len(), "{r:?}"),
                (Some(0), Some(_)) => assert_eq!(r.plies, 0, "{r:?}"),
                (Some(p), Some(_)) => assert_eq!(p, r.plies + 1, "{r:?}"),
                _ => panic!("first_illegal_ply and error_kind disagree: {r:?}"),
            }
            assert_eq!(
                r.final_fen.is_some(),
                r.first_illegal_ply != Some(0),
                "{r:?}"
            );
        }
        games_read += games.len();
        plies += reports.iter().map(|r| u64::from(r.plies)).sum::<u64>();
        errors += reports.iter().filter(|r| r.error_kind.is_some()).count();
        assert_eq!(per_input.iter().sum::<usize>(), games.len());
        done += size;
    }
    eprintln!(
        "fuzz PGN: {done} executions, {games_read} games read, {plies} plies, {errors} with an error, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(errors > 0 && errors < games_read, "both outcomes reached");
}

/// About a hundred runs of the binary on mutated inputs: `validate -` (PGN on stdin, CSV
/// report on stdout: one row per game read), `moves FEN` and `perft FEN 2`. Exit status 0, 1
/// or 2 only, never a panic message.
#[test]
fn fuzz_cli_exit_status() {
    let pgns = pgn_corpus();
    let fens = fen_corpus();
    let mut rng = Rng(seed() ^ 3);
    let mut statuses = [0usize; 3];
    let mut by_command: std::collections::BTreeMap<String, [usize; 3]> = Default::default();
    for run in 0..100 {
        let (args, stdin): (Vec<String>, Vec<u8>) = match run % 5 {
            0..=2 => {
                let mut input = mutate(&pgns[rng.below(pgns.len())], &pgns, &mut rng);
                input.truncate(64 << 10);
                (
                    ["validate", "-", "--format", "csv", "--threads", "1"]
                        .map(String::from)
                        .to_vec(),
                    input,
                )
            }
            kind => {
                let fen = mutate(&fens[rng.below(fens.len())], &fens, &mut rng);
                let fen: String = String::from_utf8_lossy(&fen)
                    .chars()
                    .filter(|c| *c != '\0')
                    .take(4096)
                    .collect();
                let args = if kind == 3 {
                    vec!["moves".into(), fen]
                } else {
                    vec!["perft".into(), fen, "2".into()]
                };
                (args, vec![])
            }
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut pipe = child.stdin.take().expect("stdin");
        let input = stdin.clone();
        let writer = std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
        let out = child.wait_with_output().expect("run");
        writer.join().expect("writer");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = format!(
            "run {run}: {args:?} on {}: {:?}\n{stderr}",
            show(&stdin),
            out.status
        );
        let code = out
            .status
            .code()
            .unwrap_or_else(|| panic!("killed by a signal: {what}"));
        assert!((0..=2).contains(&code), "exit status {code}: {what}");
        assert!(!stderr.contains("panicked"), "{what}");
        statuses[code as usize] += 1;
        by_command.entry(args[0].clone()).or_default()[code as usize] += 1;
        if args[0] == "validate" && code != 2 {
            let games = PgnReader::new(&stdin[..]).count();
            let rows = csv::Reader::from_reader(&out.stdout[..]).records().count();
            assert_eq!(rows, games, "one report row per game read: {what}");
        }
    }
    eprintln!("fuzz CLI: 100 runs, exit status 0/1/2: {statuses:?}, by command {by_command:?}");
    assert_eq!(statuses.iter().sum::<usize>(), 100);
}
