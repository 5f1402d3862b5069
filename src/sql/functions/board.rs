//! `board_svg(fen [, options])`: a board diagram per row ([`crate::picture::board`]), the
//! check marker from stage `checkers`.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, StringArray};

use super::{distinct, shown};
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::picture::board::{BoardOptions, Defs, board_svg, in_check};

/// The SVG of each row's board drawn with its options (`options` NULL or absent: the
/// default); NULL for a NULL FEN or one breaking the FEN rules ([`Setup::from_fen_auto`]).
/// Each distinct FEN is loaded once, each distinct options text parsed once.
///
/// Errors: [`crate::Error::Picture`] naming the row (1-based in the batch) and the options
/// for options that do not parse ([`BoardOptions::parse`]); pipeline failures.
pub(super) async fn board_svgs(
    engine: &Engine,
    fens: &StringArray,
    options: Option<&StringArray>,
) -> crate::Result<ArrayRef> {
    let (rows, unique) = distinct(fens);
    let mut rank: Vec<Option<usize>> = vec![None; unique.len()];
    let mut good: Vec<Setup> = vec![];
    for (i, fen) in unique.iter().enumerate() {
        if let Ok(s) = Setup::from_fen_auto(fen) {
            rank[i] = Some(good.len());
            good.push(s);
        }
    }
    let checks = in_check(engine, &good).await?;
    let mut parsed: HashMap<&str, BoardOptions> = HashMap::new();
    let default = BoardOptions::default();
    let mut out: Vec<Option<String>> = Vec::with_capacity(rows.len());
    for (row, fen) in rows.iter().enumerate() {
        let Some(p) = fen.and_then(|i| rank[i]) else {
            out.push(None);
            continue;
        };
        let text = options.and_then(|o| o.is_valid(row).then(|| o.value(row)));
        let options = match text {
            None => &default,
            Some(t) => {
                if !parsed.contains_key(t) {
                    match BoardOptions::parse(t) {
                        Ok(o) => parsed.insert(t, o),
                        Err(e) => {
                            return Err(crate::Error::Picture(format!(
                                "board_svg: row {}, argument 2, the options {}: {e}",
                                row + 1,
                                shown(t)
                            )));
                        }
                    };
                }
                &parsed[t]
            }
        };
        out.push(Some(board_svg(&good[p], options, checks[p], Defs::Own)));
    }
    Ok(Arc::new(StringArray::from(out)))
}
