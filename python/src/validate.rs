//! `sqlchess.validate(paths)`: the games of PGN files validated a batch at a time on a
//! thread of their own, each batch's rows (`sqlchess validate`'s report) handed to Python
//! as soon as they are made.

use std::path::PathBuf;

use datafusion::arrow::array::RecordBatch;
use pyo3::prelude::*;
use sqlchess::PipelineConfig;
use sqlchess::io::input::{ByteCounter, Input, expand, glob_paths};
use sqlchess::io::report::{report_schema, reports_to_batch};
use sqlchess::pgn::{PgnError, PgnReader, RawGame};
use sqlchess::validate::{ValidateOptions, Validator};
use tokio::sync::mpsc::Sender;

use crate::error::Failure;
use crate::runtime;
use crate::stream::{BatchStream, Item, channel};

/// The report stream of `paths` (files, directories, globs as for `sqlchess validate`; none:
/// the bundled sample), `batch_size` games a batch, on `threads` pipelines.
///
/// Errors (raised now): a path that does not exist, a glob that matches nothing, no PGN file
/// found, a pipeline that does not plan. Errors (raised by the stream): an input that cannot
/// be read.
pub(crate) fn stream(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    batch_size: usize,
    threads: usize,
) -> PyResult<BatchStream> {
    let inputs = if paths.is_empty() {
        vec![Input::sample()]
    } else {
        let mut found = vec![];
        for path in &paths {
            found.extend(glob_paths(path).map_err(Failure::from)?);
        }
        let inputs = expand(&found).map_err(Failure::from)?;
        if inputs.is_empty() {
            let given: Vec<_> = paths.iter().map(|p| p.display().to_string()).collect();
            return Err(Failure::new(
                "Usage",
                format!(
                    "no PGN files in {given:?} (directories are searched for *.pgn, *.pgn.zst, \
                     *.pgn.gz and *.pgn.bz2)"
                ),
            )
            .into());
        }
        inputs
    };
    let threads = threads.max(1);
    let config = PipelineConfig {
        target_partitions: threads,
        ..PipelineConfig::default()
    };
    let validator = runtime::run(py, Validator::new(threads, config))?.map_err(Failure::from)?;
    let (tx, rx) = channel();
    let batch_size = batch_size.max(1);
    std::thread::Builder::new()
        .name("sqlchess-validate".into())
        .spawn(move || produce(&validator, inputs, batch_size, &tx))
        .map_err(|e| Failure::new("Io", format!("cannot start the validating thread: {e}")))?;
    Ok(BatchStream::new(report_schema(), rx))
}

/// Reads `inputs` and sends a report batch per `batch_size` games, until the inputs end,
/// an error (sent last) or the reader is gone.
fn produce(validator: &Validator, inputs: Vec<Input>, batch_size: usize, tx: &Sender<Item>) {
    let counter = ByteCounter::new();
    let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
    let mut games: Vec<(usize, RawGame)> = Vec::with_capacity(batch_size.min(65_536));
    for (n, input) in inputs.iter().enumerate() {
        let reader = match input.open(&counter) {
            Ok(r) => r,
            Err(e) => {
                let _ = tx.blocking_send(Err(e.into()));
                return;
            }
        };
        for game in PgnReader::new(reader) {
            match game {
                Ok(g) => games.push((n, g)),
                Err(PgnError::Io(source)) => {
                    let e = sqlchess::Error::Io {
                        path: input.name.clone(),
                        source,
                    };
                    let _ = tx.blocking_send(Err(e.into()));
                    return;
                }
            }
            if games.len() >= batch_size && !send(tx, validate(validator, &names, &mut games)) {
                return;
            }
        }
    }
    if !games.is_empty() {
        send(tx, validate(validator, &names, &mut games));
    }
}

/// The report batch of `games` (emptied), each named by its input in `names`.
fn validate(
    validator: &Validator,
    names: &[String],
    games: &mut Vec<(usize, RawGame)>,
) -> sqlchess::Result<RecordBatch> {
    let named: Vec<(&str, RawGame)> = games
        .drain(..)
        .map(|(n, g)| (names.get(n).map_or("", String::as_str), g))
        .collect();
    let v = validator.validate(&named, ValidateOptions::with_plies(false))?;
    reports_to_batch(&v.reports)
}

/// Sends `batch`; whether the stream goes on (sent, not an error).
fn send(tx: &Sender<Item>, batch: sqlchess::Result<RecordBatch>) -> bool {
    let go_on = batch.is_ok();
    tx.blocking_send(batch.map_err(Failure::from)).is_ok() && go_on
}
