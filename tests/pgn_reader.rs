//! The PGN reader (`sqlchess::pgn`, ours: PGN Standard 1994, section 8) read back against
//! hand-written games and the malformed fixtures of `tests/data/pgn/malformed/`, each
//! with a 1-byte buffer too; with the feature `shared-data`, every PGN file of
//! `../shared/data` against the python-chess oracle's `games.csv`.

use sqlchess::pgn::*;
use std::io::{self, BufReader, Cursor, Read};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pgn");

fn read_with_capacity(bytes: &[u8], capacity: usize) -> Vec<RawGame> {
    PgnReader::new(BufReader::with_capacity(capacity, bytes))
        .collect::<Result<Vec<_>, _>>()
        .expect("no I/O error on a byte slice")
}

/// Reads `bytes` with a normal buffer and with a 1-byte buffer; both must agree.
fn read_bytes(bytes: &[u8]) -> Vec<RawGame> {
    let games = read_with_capacity(bytes, 8192);
    if bytes.len() <= 1 << 16 {
        assert_eq!(games, read_with_capacity(bytes, 1), "1-byte buffer differs");
    }
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g.index, i);
    }
    games
}

fn read_str(text: &str) -> Vec<RawGame> {
    read_bytes(text.as_bytes())
}

fn read_fixture(rel: &str) -> Vec<RawGame> {
    let path = format!("{DATA}/{rel}");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    read_bytes(&bytes)
}

fn moves(g: &RawGame) -> Vec<&str> {
    g.moves.iter().map(String::as_str).collect()
}

fn fault_kind(g: &RawGame) -> Option<PgnFaultKind> {
    g.fault.as_ref().map(|f| f.kind)
}

/// What one game of a fixture must look like.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// No fault, this many main-line tokens.
    Ok(usize),
    /// This fault, after this many main-line tokens.
    Fault(PgnFaultKind, u32),
    /// No fault; the token count is not checked (a legality error found elsewhere).
    NoFault,
}

use Expect::{Fault, NoFault, Ok as V};
use PgnFaultKind as K;

fn check(name: &str, games: &[RawGame], expected: &[Expect]) {
    assert_eq!(games.len(), expected.len(), "{name}: game count");
    for (g, e) in games.iter().zip(expected) {
        match *e {
            V(n) => {
                assert_eq!(g.fault, None, "{name} game {}", g.index);
                assert_eq!(g.moves.len(), n, "{name} game {}: plies", g.index);
            }
            Fault(kind, ply) => {
                let f = g
                    .fault
                    .as_ref()
                    .unwrap_or_else(|| panic!("{name} game {}: expected fault {kind}", g.index));
                assert_eq!((f.kind, f.ply), (kind, ply), "{name} game {}", g.index);
            }
            NoFault => assert_eq!(g.fault, None, "{name} game {}", g.index),
        }
    }
}

/// Expected reading of every file of `shared/data/bad/malformed/` (games in file order).
/// The valid games' ply counts are `valid_game_plies` of `malformed.csv`.
fn malformed_table() -> Vec<(&'static str, Vec<Expect>)> {
    vec![
        (
            "unterminated_comment_at_end",
            vec![V(24), V(56), Fault(K::UnterminatedComment, 31)],
        ),
        (
            "unterminated_comment_swallows_games",
            vec![V(54), Fault(K::UnterminatedComment, 21)],
        ),
        (
            "unclosed_variation",
            vec![V(63), Fault(K::UnclosedVariation, 34), V(66)],
        ),
        (
            "unmatched_close_paren",
            vec![V(68), Fault(K::UnmatchedCloseParen, 27), V(58)],
        ),
        (
            "tag_missing_close_bracket",
            vec![V(36), Fault(K::BadTag, 0), V(32)],
        ),
        (
            "tag_unterminated_string",
            vec![V(51), Fault(K::BadTag, 0), V(62)],
        ),
        ("two_tags_on_one_line", vec![V(63), V(67), V(68)]),
        ("nonutf8_tag_value", vec![V(59), V(47), V(49)]),
        ("nonutf8_comment", vec![V(70), V(68), V(57)]),
        ("nonsense_5000_plies", vec![V(55), V(5000), V(66)]),
        ("nonsense_after_legal_prefix", vec![V(42), V(5000), V(67)]),
        ("empty", vec![]),
        ("whitespace_only", vec![]),
        ("headers_only", vec![V(0)]),
        ("headers_only_then_game", vec![V(65), V(0), V(67)]),
        (
            "binary_between_games",
            vec![V(29), Fault(K::BinaryData, 0), V(57)],
        ),
        ("fen_bad_rank_length", vec![V(50), NoFault, V(68)]),
        ("fen_too_many_ranks", vec![V(49), NoFault, V(62)]),
        ("fen_two_white_kings", vec![V(66), NoFault, V(69)]),
        ("fen_pawn_on_first_rank", vec![V(56), NoFault, V(48)]),
        ("fen_side_to_move_x", vec![V(67), NoFault, V(69)]),
        ("fen_castling_without_rook", vec![V(66), NoFault, V(65)]),
        ("fen_side_not_to_move_in_check", vec![V(63), NoFault, V(65)]),
        ("fen_no_black_king", vec![V(70), NoFault, V(59)]),
        ("fen_invalid_ep_square", vec![V(57), NoFault, V(64)]),
        ("fen_empty_value", vec![V(40), NoFault, V(68)]),
        ("fen_without_setup_tag", vec![V(52), V(22), V(43)]),
        ("setup_without_fen", vec![V(48), V(53), V(70)]),
        ("bom_crlf", vec![V(67), V(63), V(27)]),
        ("cr_only_line_endings", vec![V(63), V(36), V(46)]),
        ("no_blank_line_between_games", vec![V(54), V(63), V(45)]),
        (
            "close_paren_after_illegal_move",
            vec![V(58), Fault(K::UnmatchedCloseParen, 33), V(60)],
        ),
        ("missing_result", vec![V(58), V(53), V(56)]),
        // 'Qd' (cut at end of file) is reported as ply 19; the syntax error is the caller's.
        ("truncated_mid_token", vec![V(37), V(19)]),
        ("truncated_mid_tag", vec![V(54), Fault(K::TruncatedTag, 0)]),
        (
            "nested_braces",
            vec![V(69), Fault(K::StrayCloseBrace, 28), V(65)],
        ),
        (
            "variation_before_first_move",
            vec![V(46), Fault(K::VariationBeforeFirstMove, 0), V(67)],
        ),
        ("move_number_overflow", vec![V(56), V(44), V(61)]),
        ("nag_out_of_range", vec![V(55), V(58), V(59)]),
        ("escape_and_line_comments", vec![V(63), V(39), V(27)]),
        // > 50 KB, read from shared/data in `shared_pgn_ply_counts` and generated below.
        ("deep_variations_10000", vec![V(67), V(63), V(65)]),
        (
            "deep_variations_unclosed",
            vec![V(59), Fault(K::UnclosedVariation, 1), V(61)],
        ),
        ("long_comment_1mb", vec![V(35), V(55), V(27)]),
        ("long_line_variations_1mb", vec![V(62), V(65), V(60)]),
        ("long_tag_1mb", vec![V(63), V(70), V(62)]),
        ("long_token_1mb", vec![V(54), V(57), V(68)]),
    ]
}

#[test]
fn malformed_fixtures() {
    let table = malformed_table();
    let dir = format!("{DATA}/malformed");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("tests/data/pgn/malformed") {
        let path = entry.expect("dir entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_none_or(|e| e != "pgn") {
            continue;
        }
        let (_, expected) = table
            .iter()
            .find(|(name, _)| *name == stem)
            .unwrap_or_else(|| panic!("{stem}.pgn has no expectation"));
        check(
            stem,
            &read_fixture(&format!("malformed/{stem}.pgn")),
            expected,
        );
        seen += 1;
    }
    assert_eq!(seen, 40, "all small malformed fixtures checked");
}

#[test]
fn malformed_details() {
    let g = read_fixture("malformed/two_tags_on_one_line.pgn");
    assert_eq!(g[1].tag("Event"), Some("62nd ch-RUS HL w"));
    assert_eq!(g[1].tag("Site"), Some("Tyumen RUS"));

    let g = read_fixture("malformed/tag_missing_close_bracket.pgn");
    let f = g[1].fault.as_ref().expect("fault");
    assert!(f.message.contains("Site"), "{f}");
    assert_eq!(g[1].tag("Site"), Some("Minneapolis USA"), "value kept");

    let g = read_fixture("malformed/tag_unterminated_string.pgn");
    assert!(
        g[1].fault
            .as_ref()
            .is_some_and(|f| f.message.contains("White"))
    );
    assert_eq!(g[1].tag("White"), None, "broken tag dropped");
    assert_eq!(g[1].tag("Black"), Some("Makhmutov,R"));

    let g = read_fixture("malformed/nonutf8_tag_value.pgn");
    assert_eq!(
        [g[0].encoding, g[1].encoding, g[2].encoding],
        [Encoding::Utf8, Encoding::Windows1252, Encoding::Utf8]
    );
    assert!(
        g[1].tags
            .iter()
            .any(|(_, v)| v.contains('ü') || v.contains('ö'))
    );

    let g = read_fixture("malformed/nonutf8_comment.pgn");
    assert_eq!(g[1].encoding, Encoding::Windows1252);

    let g = read_fixture("malformed/bom_crlf.pgn");
    assert_eq!(g[0].tags[0].0, "Event");
    assert!(g.iter().all(|g| g.moves.iter().all(|m| !m.contains('\r'))));

    let g = read_fixture("malformed/headers_only_then_game.pgn");
    assert_eq!(g[1].tag("White"), Some("Maroczy, Geza"));
    assert_eq!(g[1].result, None);
    assert_eq!(g[2].tag("White"), Some("Karjakin,Sergey"));
    assert_eq!(g[2].tag("Event"), Some("2nd Norway Blitz 2014"));

    let g = read_fixture("malformed/headers_only.pgn");
    assert_eq!((g[0].tags.len(), g[0].result.as_deref()), (17, None));

    let g = read_fixture("malformed/nested_braces.pgn");
    assert_eq!(g[1].moves[27], "tail");
    assert_eq!(g[1].moves[28], "O-O-O");

    let g = read_fixture("malformed/close_paren_after_illegal_move.pgn");
    assert_eq!(g[1].moves[32], "Ba1");

    let g = read_fixture("malformed/truncated_mid_token.pgn");
    assert_eq!(g[1].moves.last().map(String::as_str), Some("Qd"));

    let g = read_fixture("malformed/variation_before_first_move.pgn");
    assert_eq!(moves(&g[1])[..2], ["c4", "g6"]);

    let g = read_fixture("malformed/missing_result.pgn");
    assert_eq!(g[1].result, None);
    assert!(g[0].result.is_some());

    let g = read_fixture("malformed/no_blank_line_between_games.pgn");
    assert!(g.iter().all(|g| g.tag("Event").is_some()));

    let g = read_fixture("malformed/unterminated_comment_swallows_games.pgn");
    assert_eq!(
        g[1].fault.as_ref().map(|f| f.to_string()).as_deref(),
        Some("unterminated comment after 21 plies: end of input inside a { comment")
    );
}

#[test]
fn binary_blob_never_yields_a_clean_game() {
    let games = read_fixture("malformed/binary_blob.bin");
    assert!(!games.is_empty());
    for g in &games {
        assert!(g.fault.is_some() || g.moves.is_empty(), "game {}", g.index);
        assert_eq!(g.encoding, Encoding::Windows1252);
    }
}

#[test]
fn sample_pgn_plies() {
    // `plies` of the rows of shared/data/oracle/games.csv whose file is sample.pgn.
    const PLIES: [usize; 20] = [
        24, 21, 33, 37, 117, 142, 83, 29, 115, 35, 107, 199, 261, 56, 70, 21, 74, 91, 90, 71,
    ];
    let games = read_fixture("sample.pgn");
    let plies: Vec<usize> = games.iter().map(|g| g.moves.len()).collect();
    assert_eq!(plies, PLIES);
    assert!(
        games
            .iter()
            .all(|g| g.fault.is_none() && g.result.is_some())
    );
    assert_eq!(games[14].tag("Variant"), Some("fischerandom"));
}

/// Three short games around a middle part, as the malformed fixtures are built.
fn around(middle: &str) -> String {
    format!("[Event \"a\"]\n\n1. e4 e5 2. Nf3 1-0\n\n{middle}\n\n[Event \"c\"]\n\n1. d4 d5 *\n")
}

#[test]
fn huge_comment_token_and_tag() {
    let mib = 1 << 20;
    let games = read_str(&around(&format!(
        "[Event \"b\"]\n\n1. e4 {{{}}} e5 2. Nf3 0-1",
        "x{(;[".repeat(mib / 5)
    )));
    check("1 MiB comment", &games, &[V(3), V(3), V(2)]);

    let games = read_str(&around(&format!(
        "[Event \"b\"]\n\n1. e4 e5 2. {} Nc6 0-1",
        "Q".repeat(mib)
    )));
    check("1 MiB token", &games, &[V(3), V(4), V(2)]);
    assert_eq!(games[1].moves[2].len(), mib);

    let games = read_str(&around(&format!(
        "[Event \"b\"]\n[Annotator \"{}\"]\n\n1. e4 0-1",
        "\\\"v".repeat(mib / 3)
    )));
    check("1 MiB tag", &games, &[V(3), V(1), V(2)]);
    assert_eq!(games[1].tag("Annotator").map(str::len), Some(2 * (mib / 3)));
}

#[test]
fn deep_and_wide_variations() {
    let depth = 10_000;
    let closed = format!(
        "[Event \"b\"]\n\n1. Nf3 {} {} 1... d5 2. c4 1/2-1/2",
        "( 1. e4 ".repeat(depth),
        ")".repeat(depth)
    );
    check(
        "10,000 deep",
        &read_str(&around(&closed)),
        &[V(3), V(3), V(2)],
    );

    let open = format!(
        "[Event \"b\"]\n\n1. Nf3 {} 1-0",
        "( 1. e4 e5 ".repeat(depth)
    );
    let games = read_str(&around(&open));
    check(
        "10,000 deep unclosed",
        &games,
        &[V(3), Fault(K::UnclosedVariation, 1), V(2)],
    );
    assert_eq!(games[1].result, None, "1-0 inside the variation is skipped");

    let wide = format!(
        "[Event \"b\"]\n\n1. e4 {}1... e5 *",
        "(1. d4) ".repeat(128_536)
    );
    assert!(wide.len() > 1_000_000);
    check(
        "128,536 siblings",
        &read_str(&around(&wide)),
        &[V(3), V(2), V(2)],
    );
}

#[test]
fn tags_escapes_and_several_per_line() {
    let g = read_str("[A \"x\\\"y\\\\z\"] [B \"\"][C \"a\\b\"]\n\n1. e4 *");
    assert_eq!(g.len(), 1);
    assert_eq!(
        g[0].tags,
        [
            ("A".to_owned(), "x\"y\\z".to_owned()),
            ("B".to_owned(), String::new()),
            ("C".to_owned(), "a\\b".to_owned())
        ]
    );
    assert_eq!(g[0].tag("B"), Some(""));
    assert_eq!(g[0].tag("D"), None);
    assert_eq!(g[0].result.as_deref(), Some("*"));
}

#[test]
fn movetext_tokens() {
    let g = read_str(
        "1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! 4. Ba4 ! Nf6 ?? 5.O-O 5...Be7 6 Re1 \
         6. ... b5 99999999999999999999999999. Bb3 $1 d6 $184467440737095516160 \
         7.c3$14 O-O+ 8. h3# -- Z0 0000 @@@@ Sf3 Qz9 0-0-0-0 e9 e8=Q+ 1/2-1/2",
    );
    assert_eq!(
        moves(&g[0]),
        [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3",
            "d6", "c3", "O-O+", "h3#", "--", "Z0", "0000", "@@@@", "Sf3", "Qz9", "0-0-0-0", "e9",
            "e8=Q+"
        ]
    );
    assert_eq!(g[0].result.as_deref(), Some("1/2-1/2"));
}

#[test]
fn comments_escapes_and_variations() {
    let g = read_str(
        "% escape line [Event \"no\"] {\n[Event \"x\"]\n; line comment {\n\
         1. e4 {a comment ( [ ;\n over lines} e5 ; rest ( {\n\
         % escape ( {\n2. Nf3 (2. Nc3 {c} (2. f4 exf4) Nc6 1-0) 2... Nc6 % not an escape *",
    );
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].tags.len(), 1);
    assert_eq!(
        moves(&g[0]),
        ["e4", "e5", "Nf3", "Nc6", "%", "not", "an", "escape"]
    );
    assert_eq!(g[0].result.as_deref(), Some("*"));
    assert_eq!(g[0].fault, None);
}

#[test]
fn game_boundaries() {
    // Games without tags, ended by their markers.
    let g = read_str("1. e4 e5 1-0 1. d4 0-1\n1. c4 *");
    assert_eq!(
        g.iter().map(|g| g.moves.len()).collect::<Vec<_>>(),
        [2, 1, 1]
    );
    // A tag section ends a game without marker, even mid-line; and at any depth.
    let g = read_str("1. e4 e5 [Event \"2\"] 1. d4 (1. c4 [Event \"3\"]\n1. Nf3");
    assert_eq!(
        g.iter().map(|g| g.moves.len()).collect::<Vec<_>>(),
        [2, 1, 1]
    );
    assert_eq!(fault_kind(&g[1]), Some(K::UnclosedVariation));
    assert_eq!(g[2].tag("Event"), Some("3"));
    // An empty line inside the tag section is tolerated...
    let g = read_str("[Event \"a\"]\n\n[Site \"b\"]\n\n1. e4 *");
    assert_eq!((g.len(), g[0].tags.len()), (1, 2));
    // ...unless a tag repeats: then the first game has headers only.
    let g = read_str("[Event \"a\"]\n[Site \"b\"]\n\n[Event \"c\"]\n\n1. e4 *");
    assert_eq!(g.len(), 2);
    assert_eq!((g[0].tags.len(), g[0].moves.len()), (2, 0));
    assert_eq!((g[1].tag("Event"), g[1].moves.len()), (Some("c"), 1));
    // Without the empty line a repeated tag stays in the same section.
    let g = read_str("[Event \"a\"]\n[Event \"c\"]\n\n1. e4 *");
    assert_eq!((g.len(), g[0].tags.len()), (1, 2));
    // Header-only game with a marker.
    let g = read_str("\u{feff}[Event \"a\"]\n\n *\n\n[Event \"b\"]\n\n *\n");
    assert_eq!(g.len(), 2);
    assert!(
        g.iter()
            .all(|g| g.moves.is_empty() && g.result.as_deref() == Some("*"))
    );
    assert_eq!(g[0].tags[0].0, "Event");
    // Nothing but whitespace, comments and escapes: no game.
    assert!(read_str("").is_empty());
    assert!(read_str(" \n\r\n\t\r").is_empty());
    assert!(read_str("\u{feff}\n% x\n; y\n{ z }\n").is_empty());
    assert!(read_bytes(b"\xef\xbb").len() == 1, "a partial BOM is text");
    // Concatenated files: a BOM before a later game's tags is skipped.
    let g = read_str("\u{feff}[Event \"a\"]\n1. e4 *\n\u{feff}[Event \"b\"]\n1. d4 *\n");
    assert_eq!(g.len(), 2);
    assert_eq!(g[1].tag("Event"), Some("b"));
    assert_eq!(g[1].encoding, Encoding::Utf8);
}

#[test]
fn line_endings() {
    let text = "[Event \"1\"]\r\r1. e4\re5 *\r[Event \"2\"]\r\n\r\n1. d4\r\n% esc ( {\r\nd5 *\n";
    let g = read_str(text);
    assert_eq!(g.len(), 2);
    assert_eq!(moves(&g[0]), ["e4", "e5"]);
    assert_eq!(moves(&g[1]), ["d4", "d5"]);
}

#[test]
fn structural_faults() {
    let one = |text: &str| {
        let g = read_str(text);
        assert_eq!(g.len(), 1, "{text:?}");
        g.into_iter()
            .next()
            .map(|g| (fault_kind(&g), g.fault.map(|f| f.ply), g.moves.len()))
    };
    let f = |k, p, n| Some((Some(k), Some(p), n));
    assert_eq!(
        one("1. e4 e5 { never closed 2. Nf3 *"),
        f(K::UnterminatedComment, 2, 2)
    );
    assert_eq!(one("1. e4 ) e5 *"), f(K::UnmatchedCloseParen, 1, 2));
    assert_eq!(one("(1. d4) 1. e4 *"), f(K::VariationBeforeFirstMove, 0, 1));
    assert_eq!(one("1. e4 } e5 *"), f(K::StrayCloseBrace, 1, 2));
    assert_eq!(one("1. e4 ] e5 *"), f(K::StrayCloseBracket, 1, 2));
    assert_eq!(one("1. e4 e5 \x00\x01 2. Nf3 *"), f(K::BinaryData, 2, 2));
    assert_eq!(one("1. e4 (1. d4 (1. c4) *"), f(K::UnclosedVariation, 1, 1));
    assert_eq!(one("[Event \"x\"\n1. e4 *"), f(K::BadTag, 0, 1));
    assert_eq!(one("[Event x]\n1. e4 *"), f(K::BadTag, 0, 1));
    assert_eq!(one("[ \"x\"]\n1. e4 *"), f(K::BadTag, 0, 1));
    assert_eq!(one("[Event \"x]\n1. e4 *"), f(K::BadTag, 0, 1));
    assert_eq!(one("[Event \"x"), f(K::TruncatedTag, 0, 0));
    assert_eq!(one("[Event \"x\""), f(K::TruncatedTag, 0, 0));
    assert_eq!(one("[Event"), f(K::TruncatedTag, 0, 0));
    assert_eq!(one("1. e4 {"), f(K::UnterminatedComment, 1, 1));
    // Only the first fault is kept.
    assert_eq!(one("1. e4 ) } ] e5 (*"), f(K::UnmatchedCloseParen, 1, 2));
    for kind in [
        K::UnterminatedComment,
        K::UnclosedVariation,
        K::UnmatchedCloseParen,
        K::VariationBeforeFirstMove,
        K::BadTag,
        K::TruncatedTag,
        K::BinaryData,
        K::StrayCloseBrace,
        K::StrayCloseBracket,
    ] {
        let name = kind.as_str();
        assert!(
            name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{name}"
        );
        assert!(!kind.to_string().is_empty());
    }
}

#[test]
fn encodings() {
    let g = read_bytes(b"[White \"M\xfcller\"]\n\n1. e4 *\n\n[White \"M\xc3\xbcller\"]\n\n1. e4 *");
    assert_eq!(g[0].tag("White"), Some("Müller"));
    assert_eq!(g[0].encoding, Encoding::Windows1252);
    assert_eq!(g[1].tag("White"), Some("Müller"));
    assert_eq!(g[1].encoding, Encoding::Utf8);
    // A truncated or overlong sequence is not UTF-8.
    for bad in [
        &b"{\xc3} 1. e4 *"[..],
        b"{\xc0\xaf} 1. e4 *",
        b"{\xed\xa0\x80} 1. e4 *",
    ] {
        assert_eq!(
            read_bytes(bad)[0].encoding,
            Encoding::Windows1252,
            "{bad:?}"
        );
    }
    assert_eq!(
        read_bytes("{\u{1F600}} 1. e4 *".as_bytes())[0].encoding,
        Encoding::Utf8
    );
    assert_eq!(Encoding::Windows1252.as_str(), "windows-1252");
    // Windows-1252, not Latin-1: 0x92 is a right single quotation mark, 0x80 the euro sign
    let g = read_bytes(b"[Event \"Players\x92 Cup\"]\n[Site \"\x80 \xe9\"]\n\n1. e4 *");
    assert_eq!(g[0].tag("Event"), Some("Players\u{2019} Cup"));
    assert_eq!(g[0].tag("Site"), Some("\u{20ac} \u{e9}"));
    assert_eq!(g[0].encoding, Encoding::Windows1252);
}

#[test]
fn half_point_marker_ends_the_game() {
    for text in [
        "1. e4 e5 \u{bd}-\u{bd}\n\n1. d4 *".as_bytes(),
        b"1. e4 e5 \xbd-\xbd\n\n1. d4 *",
    ] {
        let g = read_bytes(text);
        assert_eq!(g.len(), 2, "{text:?}");
        assert_eq!(moves(&g[0]), ["e4", "e5"]);
        assert_eq!(g[0].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(moves(&g[1]), ["d4"]);
        assert_eq!(g[1].result.as_deref(), Some("*"));
    }
    // inside a variation it is skipped, like any marker
    let g = read_str("1. e4 (1. d4 \u{bd}-\u{bd}) e5 1-0");
    assert_eq!(moves(&g[0]), ["e4", "e5"]);
    assert_eq!(g[0].result.as_deref(), Some("1-0"));
}

#[test]
fn en_passant_mark_token_joins_its_move() {
    let g = read_str("1. e4 Nf6 2. e5 d5 3. exd6 e.p. Nc6 4. e.p. *");
    assert_eq!(
        moves(&g[0]),
        ["e4", "Nf6", "e5", "d5", "exd6e.p.", "Nc6e.p."]
    );
    let g = read_str("e.p. 1. e4 *");
    assert_eq!(moves(&g[0]), ["e.p.", "e4"]);
    // a mark inside a variation stays there
    let g = read_str("1. e4 (1. d4 e.p.) e5 *");
    assert_eq!(moves(&g[0]), ["e4", "e5"]);
}

#[test]
fn arbitrary_bytes_never_panic() {
    // Deterministic pseudo-random inputs rich in PGN syntax and invalid bytes.
    let alphabet: &[u8] =
        b"[]{}()\"\\;%$!?.-*/ \n\r\t0123456789abcdefghNBRQKOx+#=Z@\x00\x7f\xc3\xff";
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..300 {
        let len = (next() % 400) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        let games = read_bytes(&bytes);
        assert!(games.len() <= bytes.len());
    }
}

#[test]
fn io_error_is_reported_once() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("disk on fire"))
        }
    }
    let mut reader = PgnReader::new(BufReader::new(Failing));
    assert!(matches!(reader.next(), Some(Err(PgnError::Io(_)))));
    assert!(reader.next().is_none());

    // A reader that fails after some valid input.
    let input = Cursor::new(b"1. e4 *\n\n1. d4".to_vec()).chain(Failing);
    let results: Vec<_> = PgnReader::new(BufReader::new(input)).collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok() && results[1].is_err());
}

/// Minimal CSV reader (quoted fields, doubled quotes, line breaks inside quotes).
#[cfg(feature = "shared-data")]
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, '\r') => {}
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// Every `*.pgn` of `shared/data` (`pgn/**` and `sample.pgn`) against the oracle's
/// `games.csv`: game count per file and main-line plies per game (all its games are fully
/// legal); plus the large malformed fixtures and `malformed.pgn`. The data directory is
/// `$SQLCHESS_SHARED_DATA`, by default `../shared/data` next to the crate.
#[cfg(feature = "shared-data")]
#[test]
fn shared_pgn_ply_counts() {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    let root = std::env::var("SQLCHESS_SHARED_DATA")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data").to_owned());
    let root = Path::new(&root);
    let read_path = |path: &Path| -> Vec<RawGame> {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        PgnReader::new(BufReader::new(file))
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("{path:?}: {e}"))
    };

    let csv = std::fs::read_to_string(root.join("oracle/games.csv")).expect("games.csv");
    let rows = parse_csv(&csv);
    let header = &rows[0];
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (file, index, plies, illegal) = (
        col("file"),
        col("game_index"),
        col("plies"),
        col("first_illegal_ply"),
    );
    let mut expected: BTreeMap<String, Vec<(usize, Option<usize>)>> = BTreeMap::new();
    for row in &rows[1..] {
        let n: usize = row[plies].parse().expect("plies");
        let legal = row[illegal].is_empty();
        let i: usize = row[index].parse().expect("game_index");
        expected
            .entry(row[file].clone())
            .or_default()
            .push((i, legal.then_some(n)));
    }

    let mut files = vec![PathBuf::from("sample.pgn")];
    let mut dirs = vec![root.join("pgn")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "pgn") {
                files.push(path.strip_prefix(root).expect("under root").to_path_buf());
            }
        }
    }
    assert_eq!(files.len(), expected.len(), "every file of games.csv found");
    let mut total = 0;
    for rel in &files {
        let name = rel.to_str().expect("utf-8 path").replace('\\', "/");
        let games = read_path(&root.join(rel));
        let want = expected
            .get(&name)
            .unwrap_or_else(|| panic!("{name} not in games.csv"));
        assert_eq!(games.len(), want.len(), "{name}: game count");
        for (g, &(i, n)) in games.iter().zip(want) {
            assert_eq!(g.index, i, "{name}");
            assert_eq!(g.fault, None, "{name} game {i}");
            if let Some(n) = n {
                assert_eq!(g.moves.len(), n, "{name} game {i}: plies");
            }
        }
        total += games.len();
    }
    assert_eq!(total, rows.len() - 1);

    // The malformed fixtures too large to copy into tests/data.
    let bad = root.join("bad");
    for (name, expect) in malformed_table() {
        let games = read_path(&bad.join(format!("malformed/{name}.pgn")));
        check(name, &games, &expect);
    }
    let games = read_path(&bad.join("malformed/long_token_1mb.pgn"));
    assert!(games[1].moves[27].len() >= 1 << 20);

    // malformed.pgn is the concatenation of parts: it reads as the parts do, one after
    // the other.
    let rows = parse_csv(&std::fs::read_to_string(bad.join("malformed.csv")).expect("csv"));
    let fault_col = rows[0]
        .iter()
        .position(|h| h == "fault")
        .expect("fault column");
    let row = rows
        .iter()
        .find(|r| r[0] == "malformed.pgn")
        .expect("malformed.pgn row");
    let parts: Vec<&str> = row[fault_col]
        .trim_start_matches("concatenation of ")
        .split(", ")
        .map(|p| p.trim_start_matches("malformed/"))
        .collect();
    assert_eq!(parts.len(), 29);
    let summary = |g: &RawGame| (g.moves.clone(), g.fault.as_ref().map(|f| (f.kind, f.ply)));
    let mut from_parts = Vec::new();
    for part in parts {
        from_parts.extend(
            read_path(&bad.join("malformed").join(part))
                .iter()
                .map(summary),
        );
    }
    let whole: Vec<_> = read_path(&bad.join("malformed.pgn"))
        .iter()
        .map(summary)
        .collect();
    assert_eq!(whole, from_parts);
}

#[test]
fn notes_after_main_line_moves() {
    let text = "[Event \"x\"]\n\n{before} 1. e4 {[%clk 0:03:00]} $1 e5!? {a} {b} \
                (1... c5 {variation} $2) 2. Nf3 $300 $14 *\n";
    let g = PgnReader::with_notes(text.as_bytes())
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(g.moves, ["e4", "e5", "Nf3"]);
    assert_eq!(
        g.notes,
        [
            PlyNotes {
                comment: Some("[%clk 0:03:00]".into()),
                nags: vec![1]
            },
            PlyNotes {
                comment: Some("a b".into()),
                nags: vec![5]
            },
            PlyNotes {
                comment: None,
                nags: vec![14]
            },
        ]
    );
    // without notes: none kept
    let g = PgnReader::new(text.as_bytes()).next().unwrap().unwrap();
    assert!(g.notes.is_empty());
}

/// The text of every game read with [`PgnReader::with_text`], with a normal and a 1-byte
/// buffer (both must agree).
fn texts(bytes: &[u8]) -> Vec<String> {
    let read = |capacity| -> Vec<String> {
        PgnReader::with_text(BufReader::with_capacity(capacity, bytes))
            .map(|g| g.expect("no I/O error").text.expect("text kept"))
            .collect()
    };
    let texts = read(8192);
    assert_eq!(texts, read(1), "1-byte buffer differs");
    texts
}

#[test]
fn game_text_from_first_tag_through_result() {
    let text = "\u{feff}; a comment line\n% an escape line\n\n[Event \"a\"]\r\n[Result \"1-0\"]\r\n\r\n\
                1. e4 {c} (1. d4) e5 2. Qh5 1-0 \n\n\n[Event \"b\"]\n1. d4 *\n\
                [Event \"c\"]\n1. c4\n\n  \n";
    assert_eq!(
        texts(text.as_bytes()),
        [
            "[Event \"a\"]\r\n[Result \"1-0\"]\r\n\r\n1. e4 {c} (1. d4) e5 2. Qh5 1-0",
            "[Event \"b\"]\n1. d4 *",
            "[Event \"c\"]\n1. c4",
        ]
    );
    // without with_text: none kept
    let g = PgnReader::new(text.as_bytes()).next().unwrap().unwrap();
    assert_eq!(g.text, None);
}

#[test]
fn game_text_of_a_header_only_game_and_windows_1252() {
    // the repeated tag after an empty line starts the next game: its bytes are that game's
    let text = b"[Event \"a\"]\n\n[Event \"b\"]\n[White \"Ren\xe9\"]\n\n1. e4 *\n";
    let games: Vec<RawGame> = PgnReader::with_text(&text[..])
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].text.as_deref(), Some("[Event \"a\"]"));
    assert_eq!(games[1].encoding, Encoding::Windows1252);
    assert_eq!(
        games[1].text.as_deref(),
        Some("[Event \"b\"]\n[White \"René\"]\n\n1. e4 *")
    );
    assert_eq!(texts(text).len(), 2);
}
