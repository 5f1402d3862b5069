//! The arguments of the PGN table functions (`read_pgn`, `read_plies`): one string literal,
//! a path, read into the inputs it names.

use std::path::Path;

use datafusion::catalog::TableFunctionArgs;
use datafusion::common::{DataFusionError, ScalarValue, plan_err};
use datafusion::logical_expr::Expr;

use crate::io::input::Input;

/// The one string literal argument of a table function `name`, described as `what` (e.g.
/// "a file, a directory or a glob") in the planning error for anything else.
pub(crate) fn string_argument(
    name: &str,
    what: &str,
    args: &TableFunctionArgs,
) -> datafusion::common::Result<String> {
    match args.exprs() {
        [Expr::Literal(ScalarValue::Utf8(Some(s)), _)]
        | [Expr::Literal(ScalarValue::Utf8View(Some(s)), _)]
        | [Expr::Literal(ScalarValue::LargeUtf8(Some(s)), _)] => Ok(s.clone()),
        other => plan_err!(
            "{name}: expects one string literal ({what}), got {} argument(s): {}",
            other.len(),
            other
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The inputs a path argument names: a glob pattern (`*`, `?` or `[` in it) expands to the
/// matching paths (sorted), each then a file or a directory.
/// Errors name the table function, `name`.
pub(crate) fn inputs_of(name: &str, path: &str) -> datafusion::common::Result<Vec<Input>> {
    let ext = |e: crate::Error| DataFusionError::Plan(format!("{name}: {e}"));
    if path == "-" {
        return plan_err!("{name}: standard input (-) is not a table; give a file");
    }
    let paths = crate::io::input::glob_paths(Path::new(path)).map_err(ext)?;
    let inputs = crate::io::input::expand(&paths).map_err(ext)?;
    if inputs.is_empty() {
        return plan_err!(
            "{name}: no PGN files in {path:?} (directories are searched for *.pgn, *.pgn.zst, \
             *.pgn.gz and *.pgn.bz2)"
        );
    }
    Ok(inputs)
}
