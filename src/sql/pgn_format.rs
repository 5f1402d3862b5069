//! The PGN file format of `COPY (SELECT pgn FROM read_pgn('…') WHERE …) TO 'x.pgn'` (or
//! `STORED AS PGN`): a DataFusion [`FileFormat`] registered for the extension `pgn`
//! ([`PgnFormatFactory`], by [`super::register`]) whose writer plan is a
//! [`DataSinkExec`] of [`PgnSink`]: the query's `pgn` column written by
//! [`crate::io::pgn_out::PgnWriter`], the writer of `sqlchess sql --format pgn` (games one
//! after another, one blank line between two).
//!
//! Writing only: PGN files are read by `read_pgn(path)`, so `CREATE EXTERNAL TABLE … STORED
//! AS PGN` and scans of such a table are refused with a not-implemented error naming
//! `read_pgn`. A query without a text column `pgn` is refused when the COPY is planned.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::{DataFusionError, GetExt, Statistics, not_impl_err, plan_err};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::write::ObjectWriterBuilder;
use datafusion::datasource::file_format::write::demux::DemuxedStreamReceiver;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{
    FileScanConfig, FileSink, FileSinkConfig, FileSource, JsonSource,
};
use datafusion::datasource::sink::{DataSink, DataSinkExec};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::physical_expr::LexRequirement;
use datafusion::physical_plan::{DisplayAs, DisplayFormatType, ExecutionPlan};
use tokio::io::AsyncWriteExt;

use crate::io::pgn_out::{PgnWriter, pgn_column};

/// The extension (and `STORED AS` name) of the format, without the dot.
pub const PGN_EXTENSION: &str = "pgn";

/// Why the format does not read: `read_pgn` does.
const READ_WITH_READ_PGN: &str = "PGN files are not read as a table STORED AS PGN: read them \
     with read_pgn('path') (the PGN format is for writing: COPY (SELECT pgn FROM read_pgn(…)) \
     TO 'x.pgn')";

/// Makes the [`PgnFormat`] of a `COPY … TO 'x.pgn'` (`STORED AS PGN`); registered for the
/// extension `pgn` by [`super::register`].
#[derive(Debug, Default)]
pub struct PgnFormatFactory;

impl FileFormatFactory for PgnFormatFactory {
    /// Errors: [`DataFusionError::Configuration`] for a format option (`OPTIONS (…)` other
    /// than DataFusion's `execution.*`): the PGN writer has none.
    fn create(
        &self,
        _state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> datafusion::common::Result<Arc<dyn FileFormat>> {
        let mut unknown: Vec<&str> = format_options
            .keys()
            .map(String::as_str)
            .filter(|k| !k.starts_with("execution."))
            .collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            return Err(DataFusionError::Configuration(format!(
                "the PGN format takes no options, given: {}",
                unknown.join(", ")
            )));
        }
        Ok(Arc::new(PgnFormat))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(PgnFormat)
    }
}

impl GetExt for PgnFormatFactory {
    fn get_ext(&self) -> String {
        PGN_EXTENSION.to_owned()
    }
}

/// The PGN file format: writes the `pgn` column of a query ([`PgnSink`]); reading is
/// `read_pgn`'s (every reading method returns a not-implemented error).
#[derive(Debug, Default)]
pub struct PgnFormat;

#[async_trait]
impl FileFormat for PgnFormat {
    fn get_ext(&self) -> String {
        PGN_EXTENSION.to_owned()
    }

    /// `pgn`; the writer does not compress. Errors: not implemented for a compression.
    fn get_ext_with_compression(
        &self,
        file_compression_type: &FileCompressionType,
    ) -> datafusion::common::Result<String> {
        if file_compression_type.is_compressed() {
            return not_impl_err!("PGN output is not compressed");
        }
        Ok(self.get_ext())
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        None
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        _objects: &[ObjectMeta],
    ) -> datafusion::common::Result<SchemaRef> {
        not_impl_err!("{READ_WITH_READ_PGN}")
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        _table_schema: SchemaRef,
        _object: &ObjectMeta,
    ) -> datafusion::common::Result<Statistics> {
        not_impl_err!("{READ_WITH_READ_PGN}")
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        _conf: FileScanConfig,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        not_impl_err!("{READ_WITH_READ_PGN}")
    }

    /// The [`DataSinkExec`] of a [`PgnSink`] over `input`.
    ///
    /// Errors (planning): [`DataFusionError::Plan`] when the query has no text column `pgn`
    /// ([`pgn_column`]: the message names it and the columns there are); not implemented
    /// for an overwrite (`INSERT OVERWRITE`).
    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        _state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> datafusion::common::Result<Arc<dyn ExecutionPlan>> {
        if conf.insert_op != InsertOp::Append {
            return not_impl_err!("PGN output appends games; it does not overwrite");
        }
        let what = format!("COPY … TO '{}'", conf.original_url);
        if let Err(e) = pgn_column(conf.output_schema(), &what) {
            return plan_err!("{e}");
        }
        Ok(Arc::new(DataSinkExec::new(
            input,
            Arc::new(PgnSink { config: conf }),
            order_requirements,
        )))
    }

    /// A JSON source, never opened: [`PgnFormat::create_physical_plan`], the only reader
    /// of it, refuses to scan (DataFusion asks every format for a source before that).
    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(JsonSource::new(table_schema))
    }
}

/// Writes the games of a query's `pgn` column to the file(s) of a `COPY … TO`: each output
/// file (one for a path with an extension, several in a directory as DataFusion's writers
/// share rows out) written by its own [`PgnWriter`] through the session's object store.
/// Its count (COPY's result) is the number of games written (rows whose `pgn` is NULL or
/// empty are not).
#[derive(Debug)]
pub struct PgnSink {
    config: FileSinkConfig,
}

impl DisplayAs for PgnSink {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, "PgnSink: file={}", self.config.original_url)
            }
            DisplayFormatType::TreeRender => {
                writeln!(f, "format: pgn")?;
                write!(f, "file={}", self.config.original_url)
            }
        }
    }
}

#[async_trait]
impl FileSink for PgnSink {
    fn config(&self) -> &FileSinkConfig {
        &self.config
    }

    /// One task per output file, each writing the games of its batches as they come.
    ///
    /// Errors: a batch without a text column `pgn`, an object store write error (each as
    /// an execution error naming the file), or the demultiplexer's error.
    async fn spawn_writer_tasks_and_join(
        &self,
        context: &Arc<TaskContext>,
        demux_task: SpawnedTask<datafusion::common::Result<()>>,
        mut file_stream_rx: DemuxedStreamReceiver,
        object_store: Arc<dyn ObjectStore>,
    ) -> datafusion::common::Result<u64> {
        let buffer_size = context
            .session_config()
            .options()
            .execution
            .objectstore_writer_buffer_size;
        let mut writers = tokio::task::JoinSet::new();
        while let Some((location, mut batches)) = file_stream_rx.recv().await {
            let mut out = ObjectWriterBuilder::new(
                FileCompressionType::UNCOMPRESSED,
                &location,
                Arc::clone(&object_store),
            )
            .with_buffer_size(Some(buffer_size))
            .build()?;
            let name = location.to_string();
            writers.spawn(async move {
                let failed = |e: String| DataFusionError::Execution(format!("{name}: {e}"));
                let mut games = PgnWriter::new(Vec::new(), &name);
                while let Some(batch) = batches.recv().await {
                    games
                        .write(&batch)
                        .map_err(|e| DataFusionError::Execution(e.to_string()))?;
                    let bytes = std::mem::take(games.get_mut());
                    out.write_all(&bytes)
                        .await
                        .map_err(|e| failed(e.to_string()))?;
                }
                out.shutdown().await.map_err(|e| failed(e.to_string()))?;
                Ok::<u64, DataFusionError>(games.games())
            });
        }
        let mut games = 0;
        while let Some(written) = writers.join_next().await {
            games += written.map_err(|e| DataFusionError::External(Box::new(e)))??;
        }
        demux_task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
        Ok(games)
    }
}

#[async_trait]
impl DataSink for PgnSink {
    fn schema(&self) -> &SchemaRef {
        self.config.output_schema()
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> datafusion::common::Result<u64> {
        FileSink::write_all(self, data, context).await
    }
}
