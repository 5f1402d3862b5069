//! `board_svg(fen [, options])`: a board diagram per row ([`crate::picture::board`]), the
//! check marker from stage `checkers`.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, StringArray};

use datafusion::common::{ScalarValue, plan_err};
use datafusion::logical_expr::ReturnFieldArgs;

use super::{distinct, good_positions, literal_texts, shown};
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::picture::board::{BoardOptions, Defs, board_svg, in_check};

/// The SVG of each row's board drawn with its options (`options` NULL or absent: the
/// default); NULL for a NULL FEN or one breaking the FEN rules ([`Setup::from_fen_auto`]).
/// Each distinct FEN is loaded once, each distinct options text parsed once.
///
/// Errors: [`crate::Error::Picture`] quoting the options of a row that do not parse
/// ([`BoardOptions::parse`]); pipeline failures.
pub(super) async fn board_svgs(
    engine: &Engine,
    fens: &StringArray,
    options: Option<&StringArray>,
) -> crate::Result<ArrayRef> {
    let (rows, unique) = distinct(fens);
    let (rank, good) = good_positions(unique.iter().map(|f| Setup::from_fen_auto(f).ok()));
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
                                "board_svg: argument 2, the options {} of a row: {e}",
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

/// Checks literal arguments when planned: a FEN must keep the FEN rules (the board is drawn
/// whatever the attack rules say of it, as in a column and by `sqlchess board`), options
/// must parse. Errors: a plan error naming the argument and what is wrong.
pub(super) fn check_literals(args: &ReturnFieldArgs) -> datafusion::common::Result<()> {
    let literal = |i: usize| match args.scalar_arguments.get(i) {
        Some(Some(
            v @ (ScalarValue::Utf8(_) | ScalarValue::Utf8View(_) | ScalarValue::LargeUtf8(_)),
        )) => literal_texts(v).pop(),
        _ => None,
    };
    if let Some(fen) = literal(0)
        && let Err(e) = Setup::from_fen_auto(&fen)
    {
        return plan_err!(
            "board_svg(fen [, options]): argument 1, the FEN {}, is not a valid position: field {e}",
            shown(&fen)
        );
    }
    if let Some(text) = literal(1)
        && let Err(e) = BoardOptions::parse(&text)
    {
        return plan_err!("board_svg: argument 2, the options {}: {e}", shown(&text));
    }
    Ok(())
}
