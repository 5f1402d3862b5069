//! The nodes of one perft level before transpositions are merged (rows of `perft_bucket`),
//! hash-partitioned by position key into buckets, each kept in memory or spilled to an Arrow
//! IPC file.
//!
//! Rows with equal keys always land in the same bucket, so `perft_merge` run on each bucket
//! alone merges the whole level. A level keeps its rows in memory (reserved in the memory
//! pool under its own name) until they pass its spill threshold or the pool refuses them;
//! from then on every bucket is an IPC stream file in a temporary folder, removed when the
//! level is dropped. No rule is decided here: only rows are moved.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::PathBuf;

use datafusion::arrow::array::{
    Array, BooleanArray, Int32Array, RecordBatch, UInt32Array, UInt64Array,
};
use datafusion::arrow::compute::{concat_batches, take_record_batch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;

use crate::error::{Error, Result};
use crate::session::conform;
use crate::session::memory::TableMemory;
use crate::stages::tables;

/// One level's buckets.
pub(crate) struct Level {
    /// Name of its reservation in the memory pool.
    name: &'static str,
    schema: SchemaRef,
    buckets: Vec<Bucket>,
    /// The temporary folder of the spilled buckets, made on the first spill.
    dir: Option<tempfile::TempDir>,
    /// Bytes of the rows held in memory, and the most it holds before spilling.
    in_memory: u64,
    spill_at: u64,
    /// Rows pushed.
    rows: u64,
}

#[derive(Default)]
struct Bucket {
    batches: Vec<RecordBatch>,
    file: Option<(PathBuf, StreamWriter<BufWriter<File>>)>,
    /// Spilled and closed: read back from here.
    closed: Option<PathBuf>,
    rows: u64,
}

impl Level {
    /// An empty level of `buckets` buckets (at least 1) that spills once its rows in memory
    /// pass `spill_at` bytes.
    pub(crate) fn new(name: &'static str, buckets: usize, spill_at: u64) -> Level {
        Level {
            name,
            schema: tables::perft_bucket_schema(),
            buckets: (0..buckets.max(1)).map(|_| Bucket::default()).collect(),
            dir: None,
            in_memory: 0,
            spill_at,
            rows: 0,
        }
    }

    /// Number of buckets.
    pub(crate) fn buckets(&self) -> usize {
        self.buckets.len()
    }

    /// Rows pushed so far.
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    /// Whether the level went to disk.
    pub(crate) fn spilled(&self) -> bool {
        self.dir.is_some()
    }

    /// Rows of bucket `i` (0 when there is none).
    pub(crate) fn bucket_rows(&self, i: usize) -> u64 {
        self.buckets.get(i).map_or(0, |b| b.rows)
    }

    /// Adds rows with the columns of `perft_bucket` (by name), each to the bucket of its key.
    ///
    /// Errors: [`Error::Schema`] (columns), [`Error::Io`] and [`Error::Arrow`] (spill files).
    pub(crate) fn push(&mut self, batch: RecordBatch, memory: &TableMemory) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let batch = conform(self.name, batch, &self.schema)?;
        self.rows += batch.num_rows() as u64;
        let n = self.buckets.len();
        // the rows grouped by bucket (a counting sort of the row indices), one `take` each
        let of: Vec<u32> = bucket_of_rows(&batch, n)?;
        let mut starts = vec![0usize; n + 1];
        for &b in &of {
            starts[b as usize + 1] += 1;
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; of.len()];
        for (row, &b) in of.iter().enumerate() {
            order[next[b as usize]] = row as u32;
            next[b as usize] += 1;
        }
        for i in 0..n {
            let rows = &order[starts[i]..starts[i + 1]];
            if rows.is_empty() {
                continue;
            }
            let part = take_record_batch(&batch, &UInt32Array::from(rows.to_vec()))?;
            self.buckets[i].rows += rows.len() as u64;
            if self.spilled() {
                self.write(i, &part)?;
            } else {
                self.in_memory += part.get_array_memory_size() as u64;
                self.buckets[i].batches.push(part);
            }
        }
        if !self.spilled()
            && (self.in_memory > self.spill_at
                || memory.account_bytes(self.name, self.in_memory).is_err())
        {
            self.spill()?;
            memory.account_bytes(self.name, 0)?;
        }
        Ok(())
    }

    /// Moves every bucket's rows to its file.
    fn spill(&mut self) -> Result<()> {
        let dir = tempfile::Builder::new()
            .prefix("sqlchess-perft-")
            .tempdir()
            .map_err(|source| Error::Io {
                path: std::env::temp_dir().display().to_string(),
                source,
            })?;
        self.dir = Some(dir);
        for i in 0..self.buckets.len() {
            let batches = std::mem::take(&mut self.buckets[i].batches);
            for b in batches {
                self.write(i, &b)?;
            }
        }
        self.in_memory = 0;
        Ok(())
    }

    /// Appends rows to bucket `i`'s file (made on its first rows).
    fn write(&mut self, i: usize, batch: &RecordBatch) -> Result<()> {
        let bucket = &mut self.buckets[i];
        if bucket.file.is_none() {
            let dir = self
                .dir
                .as_ref()
                .ok_or_else(|| Error::Internal("perft level spilled without a folder".into()))?;
            let path = dir.path().join(format!("bucket-{i}.arrows"));
            let file = File::create(&path).map_err(|source| io_error(&path, source))?;
            let writer = StreamWriter::try_new(BufWriter::new(file), &self.schema)?;
            bucket.file = Some((path, writer));
        }
        if let Some((_, w)) = bucket.file.as_mut() {
            w.write(batch)?;
        }
        Ok(())
    }

    /// Closes the spill files: the level is complete and can be read.
    pub(crate) fn finish(&mut self) -> Result<()> {
        for b in &mut self.buckets {
            if let Some((path, mut w)) = b.file.take() {
                w.finish()?;
                w.into_inner()?
                    .flush()
                    .map_err(|source| io_error(&path, source))?;
                b.closed = Some(path);
            }
        }
        Ok(())
    }

    /// Takes bucket `i`'s rows out of the level (from memory or its file, which is removed)
    /// as one batch, or `None` for an empty bucket.
    ///
    /// Errors: [`Error::Io`], [`Error::Arrow`] (reading the file).
    pub(crate) fn take(&mut self, i: usize, memory: &TableMemory) -> Result<Option<RecordBatch>> {
        let Some(bucket) = self.buckets.get_mut(i) else {
            return Ok(None);
        };
        let mut batches = std::mem::take(&mut bucket.batches);
        if let Some(path) = bucket.closed.take() {
            let file = File::open(&path).map_err(|source| io_error(&path, source))?;
            for b in StreamReader::try_new(BufReader::new(file), None)? {
                batches.push(b?);
            }
            std::fs::remove_file(&path).map_err(|source| io_error(&path, source))?;
        }
        if batches.is_empty() {
            return Ok(None);
        }
        let one = concat_batches(&self.schema, &batches)?;
        if !self.spilled() {
            let bytes: u64 = batches
                .iter()
                .map(|b| b.get_array_memory_size() as u64)
                .sum();
            self.in_memory = self.in_memory.saturating_sub(bytes);
            memory.account_bytes(self.name, self.in_memory)?;
        }
        Ok(Some(one))
    }

    /// Releases the level's reservation (its rows are dropped with it).
    pub(crate) fn release(&self, memory: &TableMemory) -> Result<()> {
        Ok(memory.account_bytes(self.name, 0)?)
    }
}

fn io_error(path: &std::path::Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The bucket (0..n) of each row: a hash of its root and position key, so that equal keys
/// always share a bucket.
fn bucket_of_rows(batch: &RecordBatch, n: usize) -> Result<Vec<u32>> {
    let u64s = |name: &str| tables::column::<UInt64Array>(batch, name);
    let mut hashes: Vec<u64> = vec![0x51_7c_c1_b7_27_22_0a_95; batch.num_rows()];
    let mut mix = |values: &mut dyn Iterator<Item = u64>| {
        for (h, v) in hashes.iter_mut().zip(values) {
            *h = (h.rotate_left(23) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    };
    for name in tables::SET_COLUMNS
        .iter()
        .copied()
        .chain(["castling", "root_id"])
    {
        let a = u64s(name)?;
        mix(&mut a.values().iter().copied());
    }
    let ep: &Int32Array = tables::column(batch, "ep_square")?;
    mix(&mut (0..ep.len()).map(|i| {
        if ep.is_null(i) {
            64
        } else {
            ep.value(i) as u64
        }
    }));
    let white_to_move: &BooleanArray = tables::column(batch, "white_to_move")?;
    mix(&mut white_to_move.iter().map(|w| w.map_or(2, u64::from)));
    Ok(hashes
        .into_iter()
        .map(|h| {
            let h = h ^ (h >> 31);
            ((h >> 16) % n as u64) as u32
        })
        .collect())
}
