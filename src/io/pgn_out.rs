//! Games written out as PGN: the `pgn` column of query results (`read_pgn`'s games as
//! they stand in their files) written one game after another, as pgn-extract writes its
//! output: each game's text ending with a line break, one blank line between two games.
//! The one writer of `sqlchess sql --format pgn` and of `COPY … TO 'x.pgn'`
//! (`crate::sql`'s PGN file format).

use std::io::Write;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Schema};

use crate::error::{Error, Result};

/// The column whose values are written: `read_pgn`'s `pgn` (each row one game's text).
pub const PGN_COLUMN: &str = "pgn";

/// The index of the [`PGN_COLUMN`] in `schema` (the first column of that name).
///
/// Errors: [`Error::Usage`] naming the missing column and the columns there are, or the
/// column's type when it is not text (Utf8, LargeUtf8 or Utf8View); `what` names the
/// output (e.g. `--format pgn`, `COPY … TO 'x.pgn'`).
pub fn pgn_column(schema: &Schema, what: &str) -> Result<usize> {
    let Some((i, field)) = schema
        .fields()
        .iter()
        .enumerate()
        .find(|(_, f)| f.name() == PGN_COLUMN)
    else {
        let columns: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        return Err(Error::Usage(format!(
            "{what}: the query has no column {PGN_COLUMN} (its columns: {}); PGN output writes \
             read_pgn's column pgn, e.g. SELECT pgn FROM read_pgn('games.pgn') WHERE …",
            if columns.is_empty() {
                "none".to_owned()
            } else {
                columns.join(", ")
            }
        )));
    };
    match field.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(i),
        other => Err(Error::Usage(format!(
            "{what}: column {PGN_COLUMN} is {other}, not text (Utf8): PGN output writes \
             read_pgn's column pgn"
        ))),
    }
}

/// Writes games to a byte sink batch by batch: each non-NULL, non-empty value of the
/// [`PGN_COLUMN`] as it is, followed by a line break, with one blank line (`\n`) before
/// every game but the first. Line breaks inside a game (CRLF in the file read) are kept.
pub struct PgnWriter<W: Write> {
    out: W,
    /// Names the output in errors.
    name: String,
    games: u64,
}

impl<W: Write> PgnWriter<W> {
    /// A writer of games to `out`; `name` names it in errors (a path, `<stdout>`).
    pub fn new(out: W, name: &str) -> Self {
        PgnWriter {
            out,
            name: name.to_owned(),
            games: 0,
        }
    }

    /// Writes the games of one batch (its [`PGN_COLUMN`]); returns how many were written
    /// (NULLs and empty strings are skipped).
    ///
    /// Errors: [`Error::Usage`] when the batch has no text column `pgn` ([`pgn_column`]);
    /// [`Error::Io`] naming the output when writing fails.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<u64> {
        let i = pgn_column(batch.schema_ref(), &self.name)?;
        let column = batch.column(i);
        let texts: Box<dyn Iterator<Item = Option<&str>>> = match column.data_type() {
            DataType::Utf8 => Box::new(column.as_string::<i32>().iter()),
            DataType::LargeUtf8 => Box::new(column.as_string::<i64>().iter()),
            _ => Box::new(column.as_string_view().iter()),
        };
        let before = self.games;
        for text in texts.flatten().filter(|t| !t.is_empty()) {
            let separator: &[u8] = if self.games == 0 { b"" } else { b"\n" };
            self.out
                .write_all(separator)
                .and_then(|()| self.out.write_all(text.as_bytes()))
                .and_then(|()| self.out.write_all(b"\n"))
                .map_err(|source| Error::Io {
                    path: self.name.clone(),
                    source,
                })?;
            self.games += 1;
        }
        Ok(self.games - before)
    }

    /// Games written so far.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The sink, to take what was written (a buffer) or to flush it.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Flushes the sink and returns it. Errors: [`Error::Io`] naming the output.
    pub fn finish(mut self) -> Result<W> {
        self.out.flush().map_err(|source| Error::Io {
            path: self.name.clone(),
            source,
        })?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::{Int32Array, StringArray};
    use datafusion::arrow::datatypes::Field;

    use super::*;

    fn batch(name: &str, values: Vec<Option<&str>>) -> RecordBatch {
        RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new(name, DataType::Utf8, true)])),
            vec![Arc::new(StringArray::from(values))],
        )
        .unwrap()
    }

    #[test]
    fn games_separated_by_one_blank_line_nulls_skipped() {
        let mut w = PgnWriter::new(Vec::new(), "test");
        let first = batch("pgn", vec![None, Some("[A \"1\"]\n\n1. e4 *"), Some("")]);
        assert_eq!(w.write(&first).unwrap(), 1);
        let second = batch("pgn", vec![Some("1. d4 *"), None, Some("1. c4\r\n1-0")]);
        assert_eq!(w.write(&second).unwrap(), 2);
        assert_eq!(w.games(), 3);
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(out, "[A \"1\"]\n\n1. e4 *\n\n1. d4 *\n\n1. c4\r\n1-0\n");
    }

    #[test]
    fn no_pgn_column_is_an_error_naming_it() {
        let mut w = PgnWriter::new(Vec::new(), "out.pgn");
        let e = w.write(&batch("moves", vec![Some("1. e4 *")])).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("out.pgn: the query has no column pgn"),
            "{text}"
        );
        assert!(text.contains("its columns: moves"), "{text}");
        let ints = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("pgn", DataType::Int32, false)])),
            vec![Arc::new(Int32Array::from(vec![1]))],
        )
        .unwrap();
        let text = w.write(&ints).unwrap_err().to_string();
        assert!(text.contains("column pgn is Int32, not text"), "{text}");
        assert_eq!(w.games(), 0);
    }
}
