//! A validation run as one self-contained HTML page (`sqlchess validate --html
//! report.html`): the games counted by final status and by error kind, and for the first
//! [`SHOWN_GAMES`] games with an illegal or unreadable move the board before it, the move
//! drawn on it, the token, the error and the game's tags.
//!
//! The move is drawn from what its token names (it is not a legal move): a UCI or
//! long-algebraic token as a red arrow from its square to its target; a SAN piece move as
//! red arrows to its target from each of the mover's pieces of its kind that fit the origin
//! it names and attack the target (stage `piece_attacks`: a pinned piece's move shows, a
//! piece that cannot get there does not), a SAN pawn move from the pawn of the file it
//! names (or the target's); a red circle on the target when no piece fits; castling as a
//! red circle on the king. Games that cannot be set up (a bad `FEN` tag) are listed with
//! the tag instead of a board, and inputs that could not be read are named.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use super::board::{self, BoardOptions, Defs, board_svg, in_check};
use super::page::escape;
use crate::chess::mark::{Mark, MarkColor};
use crate::chess::role::Role;
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use datafusion::arrow::datatypes::{Int32Type, UInt64Type};

use crate::engine::Engine;
use crate::error::Result;
use crate::session::read;
use crate::stages::Stage;
use crate::validate::GameReport;

/// How many games with an illegal move the page shows.
pub const SHOWN_GAMES: usize = 100;

/// The width and height of a board in the report, in pixels.
pub const REPORT_BOARD_SIZE: u32 = 240;

/// A game shown with its illegal move.
struct Shown {
    report: GameReport,
    token: Option<String>,
}

/// A report page being gathered: [`ReportPage::add`] every game's report, then
/// [`ReportPage::finish`].
#[derive(Default)]
pub struct ReportPage {
    games: u64,
    by_status: BTreeMap<String, u64>,
    by_kind: BTreeMap<String, u64>,
    /// Games with an error of their moves or set-up, shown or not.
    with_errors: u64,
    shown: Vec<Shown>,
    /// Inputs that could not be read (or not to their end): name and error.
    inputs_not_read: Vec<(String, String)>,
}

impl ReportPage {
    /// Counts a game; keeps it for the page when it has an error of its moves or set-up
    /// and fewer than [`SHOWN_GAMES`] are kept. `token`: the text of the move it stopped
    /// at, as the PGN has it.
    pub fn add(&mut self, report: &GameReport, token: Option<&str>) {
        self.games += 1;
        let status = report
            .final_status
            .map_or("no position", |s| s.as_str())
            .to_string();
        *self.by_status.entry(status).or_default() += 1;
        let kind = report
            .error_kind
            .map_or("none (legal game)", |k| k.as_str());
        *self.by_kind.entry(kind.to_string()).or_default() += 1;
        if report.first_illegal_ply.is_none() {
            return;
        }
        self.with_errors += 1;
        if self.shown.len() < SHOWN_GAMES {
            self.shown.push(Shown {
                report: report.clone(),
                token: token.map(str::to_string),
            });
        }
    }

    /// Names an input that could not be read, or not to its end (`message`: why).
    pub fn add_input_error(&mut self, input: &str, message: &str) {
        self.inputs_not_read
            .push((input.to_string(), message.to_string()));
    }

    /// The page. The boards' check markers come from stage `checkers`, the pieces a move's
    /// token can stand for from stage `piece_attacks`, both on `engine`.
    ///
    /// Errors: pipeline failures.
    pub async fn finish(self, engine: &Engine) -> Result<String> {
        // a board for the games stopped at a move (set-up errors have none)
        let setups: Vec<Option<Setup>> = self
            .shown
            .iter()
            .map(|s| {
                let at_move = s.report.first_illegal_ply.is_some_and(|p| p > 0);
                at_move
                    .then_some(s.report.final_fen.as_deref())
                    .flatten()
                    .and_then(|f| Setup::from_fen_auto(f).ok())
            })
            .collect();
        let good: Vec<Setup> = setups.iter().flatten().copied().collect();
        let attacks = attacks(engine, &good).await?;
        let checks = in_check(engine, &good).await?;
        let mut page = String::new();
        let _ = write!(
            page,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>sqlchess validation report</title><style>{STYLE}</style></head><body>\n\
             {}\n<h1>Validation report</h1>\n<p>{} games</p>\n",
            board::page_defs(),
            self.games
        );
        for (title, counts) in [
            ("Games by final status", &self.by_status),
            ("Games by error kind", &self.by_kind),
        ] {
            let _ = write!(page, "<h2>{title}</h2>\n<table>");
            for (name, n) in counts {
                let _ = write!(page, "<tr><td>{}</td><td>{n}</td></tr>", escape(name));
            }
            page.push_str("</table>\n");
        }
        if !self.inputs_not_read.is_empty() {
            page.push_str("<h2>Inputs not read (or not to their end)</h2>\n<table>");
            for (input, message) in &self.inputs_not_read {
                let _ = write!(
                    page,
                    "<tr><td>{}</td><td>{}</td></tr>",
                    escape(input),
                    escape(message)
                );
            }
            page.push_str("</table>\n");
        }
        let (all, shown) = (self.with_errors, self.shown.len());
        let plural = if all == 1 { "" } else { "s" };
        let _ = writeln!(
            page,
            "<h2>Games with an illegal move or set-up</h2>\n<p>{}</p>",
            if (shown as u64) < all {
                format!("{all} game{plural}; the first {shown} are shown")
            } else {
                format!("{all} game{plural}")
            }
        );
        let mut next = 0;
        for (shown, setup) in self.shown.iter().zip(&setups) {
            let r = &shown.report;
            page.push_str("<div class=\"game\">");
            if let Some(setup) = setup {
                let reaches = |from: u8, to: u8| attacks[next].contains(&(from, to));
                let options = BoardOptions {
                    size: REPORT_BOARD_SIZE,
                    flipped: false,
                    marks: shown
                        .token
                        .as_deref()
                        .map(|t| attempted(setup, t, reaches))
                        .unwrap_or_default(),
                    ..BoardOptions::default()
                };
                page.push_str(&board_svg(setup, &options, checks[next], Defs::Page));
                next += 1;
            } else if let Some(fen) = &r.start_fen {
                let _ = write!(
                    page,
                    "<div class=\"fen\">FEN tag: <code>{}</code></div>",
                    escape(fen)
                );
            }
            let _ = writeln!(
                page,
                "<div class=\"facts\"><b>{} #{}</b>, ply {}: <code>{}</code><br>{}: {}<br>\
                 {} – {}, {}, {}, {}</div></div>",
                escape(&r.file),
                r.game_index,
                r.first_illegal_ply.unwrap_or(0),
                escape(shown.token.as_deref().unwrap_or("?")),
                r.error_kind.map_or("", |k| k.as_str()),
                escape(r.error_message.as_deref().unwrap_or("")),
                escape(&r.white),
                escape(&r.black),
                escape(&r.event),
                escape(&r.date),
                escape(&r.result),
            );
        }
        page.push_str("</body></html>\n");
        Ok(page)
    }
}

/// The page's style sheet.
const STYLE: &str = "body{font-family:sans-serif;margin:16px;background:#fff;color:#222}\
    table{border-collapse:collapse}td{border:1px solid #ccc;padding:3px 8px}\
    .game{display:flex;gap:12px;margin:12px 0;align-items:flex-start}\
    .facts{font-size:14px;max-width:640px}";

/// The (from, to) squares each piece attacks in each of `setups` (stage `piece_attacks`,
/// after `placed` and `boards`; FIDE art. 3.2–3.6: the squares a piece could move to, its
/// own pieces' included), by position.
///
/// Errors: pipeline failures, a stage's columns not as documented.
async fn attacks(engine: &Engine, setups: &[Setup]) -> Result<Vec<HashSet<(u8, u8)>>> {
    let mut out = vec![HashSet::new(); setups.len()];
    if setups.is_empty() {
        return Ok(out);
    }
    engine.load(setups).await?;
    let p = engine.pipeline();
    p.run_stages(&[Stage::Placed, Stage::Boards]).await?;
    for batch in p.run(Stage::PieceAttacks).await? {
        let ids = read::primitive::<UInt64Type>(&batch, "position_id")?;
        let from = read::primitive::<Int32Type>(&batch, "square")?;
        let to = read::primitive::<Int32Type>(&batch, "target_sq")?;
        for r in 0..batch.num_rows() {
            let set = usize::try_from(ids.value(r))
                .ok()
                .and_then(|i| out.get_mut(i));
            if let (Some(set), Ok(f), Ok(t)) =
                (set, u8::try_from(from.value(r)), u8::try_from(to.value(r)))
            {
                set.insert((f, t));
            }
        }
    }
    Ok(out)
}

/// What a move's token names on the board, drawn in red (see the module docs); `reaches`:
/// whether the piece on the first square attacks the second.
fn attempted(setup: &Setup, token: &str, reaches: impl Fn(u8, u8) -> bool) -> Vec<Mark> {
    let red = MarkColor::Red;
    let Ok((san, _)) = parse_san(token) else {
        return vec![];
    };
    let mover = setup.side_to_move;
    let own = |sq: u8, role: Role| {
        setup
            .piece_at(sq)
            .is_some_and(|p| p.color == mover && p.role == role)
    };
    match san {
        SanToken::FromTo { from, to, .. } => vec![Mark::Arrow(red, from, to)],
        SanToken::Normal {
            role,
            from_file,
            from_rank,
            to,
            ..
        } => {
            let file = from_file.or((role == Role::Pawn).then_some(to % 8));
            let arrows: Vec<Mark> = (0..64u8)
                .filter(|&sq| sq != to && own(sq, role))
                .filter(|sq| file.is_none_or(|f| sq % 8 == f))
                .filter(|sq| from_rank.is_none_or(|r| sq / 8 == r))
                .filter(|&sq| role == Role::Pawn || reaches(sq, to))
                .map(|from| Mark::Arrow(red, from, to))
                .collect();
            if arrows.is_empty() {
                vec![Mark::Circle(red, to)]
            } else {
                arrows
            }
        }
        SanToken::Castle { .. } => (0..64u8)
            .filter(|&sq| own(sq, Role::King))
            .map(|sq| Mark::Circle(red, sq))
            .collect(),
        SanToken::Null => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marks of `token`, the pieces on `reaching` attacking any square.
    fn marks(fen: &str, token: &str, reaching: &[&str]) -> Vec<String> {
        let setup = Setup::from_fen(fen).unwrap();
        let squares: Vec<u8> = reaching
            .iter()
            .map(|s| crate::chess::square::parse_square(s).unwrap())
            .collect();
        attempted(&setup, token, |from, _| squares.contains(&from))
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn the_token_drawn() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        // knights that do not reach d4: a circle on it; one that does: its arrow
        assert_eq!(marks(start, "Nd4", &[]), ["Rd4"]);
        assert_eq!(marks(start, "Nd4", &["g1"]), ["Rg1d4"]);
        assert_eq!(marks(start, "Nbd4", &["b1", "g1"]), ["Rb1d4"]);
        // pawns by the file the token names, attacks or not
        assert_eq!(marks(start, "e5", &[]), ["Re2e5"]);
        assert_eq!(marks(start, "dxe3", &[]), ["Rd2e3"]);
        assert_eq!(marks(start, "Qh5", &["d1"]), ["Rd1h5"]);
        assert_eq!(marks(start, "e2e5", &[]), ["Re2e5"]);
        assert_eq!(marks(start, "O-O", &[]), ["Re1"]);
        assert_eq!(marks(start, "Kxz9", &[]), Vec::<String>::new());
        let black = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(marks(black, "Bb4", &["f8"]), ["Rf8b4"]);
        assert_eq!(marks(black, "Qa3", &[]), ["Ra3"]);
        let no_rook = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(marks(no_rook, "Ra1", &["e1"]), ["Ra1"]);
    }
}
