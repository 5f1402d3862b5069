//! Record batches handed to Python through the Arrow PyCapsule interface
//! (`__arrow_c_schema__`, `__arrow_c_array__`): a [`BatchStream`] yields [`ArrowBatch`]es
//! one at a time, each as soon as its producer made it; `sqlchess.sql` and
//! `sqlchess.validate` wrap it in a `pyarrow.RecordBatchReader`. pyarrow takes the arrays'
//! buffers as they are (no copy).

use std::sync::Mutex;

use datafusion::arrow::array::{Array, RecordBatch, StructArray};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ffi::{FFI_ArrowSchema, to_ffi};
use datafusion::physical_plan::SendableRecordBatchStream;
use futures::StreamExt;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tokio::sync::mpsc;

use crate::error::Failure;
use crate::runtime;

/// What a producer sends: a batch or the error that ends the stream.
pub(crate) type Item = Result<RecordBatch, Failure>;

/// The producer's side of a [`BatchStream`]: at most one batch waits for Python, so a
/// stream over a month of games holds a batch or two, never the whole result.
pub(crate) fn channel() -> (mpsc::Sender<Item>, mpsc::Receiver<Item>) {
    mpsc::channel(1)
}

/// A stream of record batches of one schema, read from Python with `next_batch()` until it
/// returns `None`.
#[pyclass(module = "sqlchess._sqlchess", frozen)]
pub struct BatchStream {
    schema: SchemaRef,
    reading: Mutex<Reading>,
}

/// The reading side of a [`BatchStream`].
struct Reading {
    batches: mpsc::Receiver<Item>,
    /// The error that ended the stream: raised again by every later read, so that a failed
    /// stream never reads as a complete one.
    failed: Option<Failure>,
}

impl BatchStream {
    /// A stream of `schema` whose batches come through `batches` (from [`channel`]).
    pub(crate) fn new(schema: SchemaRef, batches: mpsc::Receiver<Item>) -> BatchStream {
        BatchStream {
            schema,
            reading: Mutex::new(Reading {
                batches,
                failed: None,
            }),
        }
    }

    /// A DataFusion stream pumped by a task on the package's runtime.
    pub(crate) fn of_datafusion(stream: SendableRecordBatchStream) -> PyResult<BatchStream> {
        let (tx, rx) = channel();
        let schema = stream.schema();
        runtime::runtime()?.spawn(async move {
            let mut stream = stream;
            while let Some(item) = stream.next().await {
                let end = item.is_err();
                // a closed channel: the reader is gone, stop reading
                if tx.send(item.map_err(Failure::from)).await.is_err() || end {
                    break;
                }
            }
        });
        Ok(BatchStream::new(schema, rx))
    }
}

#[pymethods]
impl BatchStream {
    /// The stream's schema (Arrow PyCapsule interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    /// The next batch, or `None` after the last: waits with the GIL released; Ctrl-C
    /// raises `KeyboardInterrupt` (no batch is lost: the stream can be read on after it); a
    /// producer's error raises `SqlchessError`, then again at every later read.
    fn next_batch(&self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        let mut reading = self
            .reading
            .lock()
            .map_err(|_| Failure::new("Internal", "stream lock poisoned".into()))?;
        if let Some(e) = &reading.failed {
            return Err(e.clone().into());
        }
        // `recv` is cancel-safe: an interrupted wait takes no batch away
        match runtime::wait(py, reading.batches.recv())? {
            Some(Ok(batch)) => Ok(Some(ArrowBatch(batch))),
            Some(Err(e)) => {
                reading.failed = Some(e.clone());
                Err(e.into())
            }
            None => Ok(None),
        }
    }
}

/// One record batch (Arrow PyCapsule interface: `pyarrow.record_batch(b)`).
#[pyclass(module = "sqlchess._sqlchess", frozen)]
pub struct ArrowBatch(RecordBatch);

#[pymethods]
impl ArrowBatch {
    /// The batch as a struct array and its schema, in capsules named `arrow_schema` and
    /// `arrow_array`. A requested schema other than the batch's is not honoured (the
    /// interface lets a producer ignore it).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let data = StructArray::from(self.0.clone()).into_data();
        let (array, schema) = to_ffi(&data).map_err(|e| Failure::new("Arrow", e.to_string()))?;
        Ok((
            PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
            PyCapsule::new_with_value(py, array, c"arrow_array")?,
        ))
    }

    /// The batch's rows.
    fn __len__(&self) -> usize {
        self.0.num_rows()
    }
}

/// `schema` in a capsule named `arrow_schema`.
fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| Failure::new("Arrow", e.to_string()))?;
    PyCapsule::new_with_value(py, ffi, c"arrow_schema")
}
