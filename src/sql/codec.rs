//! Plans that travel: DataFusion extension codecs for the chess tables, so that a plan
//! holding `read_pgn`, `read_plies` or `legal_moves` can be serialized (datafusion-proto)
//! and run in another process, such as a Ballista scheduler and its executors
//! ([`crate::cluster`], feature `ballista`).
//!
//! - [`ChessLogicalCodec`] encodes the table providers: [`PgnTable`] (its files and whether
//!   its rows are plies) and `MemTable` (the table `legal_moves(fen)` returns, and any other
//!   in-memory table: its batches as Arrow IPC streams, one per partition).
//! - [`ChessPhysicalCodec`] encodes the scan [`PgnScanExec`]: its files, the projection,
//!   the games per chunk and whether the rows are plies; what each partition reads (whole
//!   files and byte ranges starting at game boundaries) is the scan's input plan, an
//!   in-memory table that DataFusion encodes (`src/sql/ranges.rs`). The receiving side
//!   rebuilds the scan from these alone (no file is read while decoding) with engines of
//!   its own process, planned from `plans/` there.
//!
//! Each wraps an inner codec (DataFusion's default, or Ballista's, which knows the
//! shuffle nodes) and hands it every node that is not ours. Our bytes are told from the
//! inner codec's by an envelope: the 8 bytes `SQLCHESS`, one byte naming the node, then a
//! protobuf message (prost); anything else goes to the inner codec.
//!
//! Files are named by absolute paths in a plan that travels: the process that runs the
//! scan has its own working directory. Encoding a relative path, or standard input, is an
//! error that says so. Scalar functions travel by name (as DataFusion's own do): the
//! receiving session must have them registered ([`super::register`]).

use std::fmt;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use datafusion::catalog::TableProvider;
use datafusion::common::{DataFusionError, Result, TableReference, plan_err};
use datafusion::datasource::MemTable;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::physical_expr_common::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use prost::Message;

use super::engines::EnginePool;
use super::openings::table::OpeningsTable;
use super::scan::{PgnScanExec, PgnTable, Rows, ScanParts};
use crate::io::input::{Compression, Input, Source};

/// The first bytes of every node this module encodes.
const MAGIC: &[u8; 8] = b"SQLCHESS";

/// Which node follows the envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Node {
    PgnTable = 1,
    MemTable = 2,
    PgnScan = 3,
    OpeningsTable = 4,
}

/// `buf` with the envelope of `node` and `message`.
fn envelope(node: Node, message: &impl Message, buf: &mut Vec<u8>) -> Result<()> {
    buf.extend_from_slice(MAGIC);
    buf.push(node as u8);
    message
        .encode(buf)
        .map_err(|e| DataFusionError::Internal(format!("sqlchess codec: {e}")))
}

/// The node and message of our envelope, or `None` when `buf` is not ours.
fn open(buf: &[u8]) -> Option<(u8, &[u8])> {
    let rest = buf.strip_prefix(MAGIC.as_slice())?;
    let (&node, message) = rest.split_first()?;
    Some((node, message))
}

fn decode<M: Message + Default>(what: &str, bytes: &[u8]) -> Result<M> {
    M::decode(bytes).map_err(|e| DataFusionError::Internal(format!("sqlchess codec: {what}: {e}")))
}

/// A PGN input as it travels.
#[derive(Clone, PartialEq, Message)]
struct InputProto {
    /// The `file` column's value.
    #[prost(string, tag = "1")]
    name: String,
    /// The absolute path.
    #[prost(string, tag = "2")]
    path: String,
    /// [`Compression`]: 0 none, 1 zstd, 2 gzip, 3 bzip2, 4 sniff.
    #[prost(uint32, tag = "3")]
    compression: u32,
}

/// `read_pgn(path)` / `read_plies(path)` as it travels.
#[derive(Clone, PartialEq, Message)]
struct PgnTableProto {
    #[prost(message, repeated, tag = "1")]
    inputs: Vec<InputProto>,
    /// [`Rows::code`] (wire-compatible with the former `bool plies`).
    #[prost(uint32, tag = "2")]
    rows: u32,
    /// [`PgnTable::split_bytes`]: the client's `sqlchess.split_bytes`.
    #[prost(uint64, tag = "3")]
    split_bytes: u64,
    /// [`PgnTable::max_ply`].
    #[prost(uint32, optional, tag = "4")]
    max_ply: Option<u32>,
}

/// [`PgnScanExec`] as it travels.
#[derive(Clone, PartialEq, Message)]
struct PgnScanProto {
    #[prost(message, repeated, tag = "1")]
    inputs: Vec<InputProto>,
    #[prost(uint32, repeated, tag = "3")]
    projection: Vec<u32>,
    #[prost(uint64, tag = "4")]
    batch_games: u64,
    /// [`Rows::code`] (wire-compatible with the former `bool plies`).
    #[prost(uint32, tag = "5")]
    rows: u32,
    #[prost(bool, tag = "6")]
    limited: bool,
    /// [`ScanParts::max_ply`].
    #[prost(uint32, optional, tag = "7")]
    max_ply: Option<u32>,
}

/// An in-memory table as it travels: each partition's batches as one Arrow IPC stream.
#[derive(Clone, PartialEq, Message)]
struct MemTableProto {
    #[prost(bytes = "vec", repeated, tag = "1")]
    partitions: Vec<Vec<u8>>,
}

const COMPRESSIONS: [Compression; 5] = [
    Compression::None,
    Compression::Zstd,
    Compression::Gzip,
    Compression::Bzip2,
    Compression::Sniff,
];

/// The [`Rows`] of a travelling table or scan.
fn rows_of(code: u32) -> Result<Rows> {
    Rows::of_code(code)
        .ok_or_else(|| DataFusionError::Internal(format!("sqlchess codec: rows of kind {code}")))
}

/// `table` (`read_pgn` or `read_plies`) names `input`: its proto, or the error saying why it
/// cannot travel.
fn input_proto(table: &str, input: &Input) -> Result<InputProto> {
    let Source::File(path) = &input.source else {
        return plan_err!("{table}: standard input cannot be read by another process");
    };
    if !path.is_absolute() {
        return plan_err!(
            "{table}: {:?} is a relative path: a query that runs on a cluster names its files \
             by absolute paths, readable by every executor",
            path.display().to_string()
        );
    }
    let Some(path) = path.to_str() else {
        return plan_err!("{table}: {:?} is not UTF-8", path.display().to_string());
    };
    Ok(InputProto {
        name: input.name.clone(),
        path: path.to_string(),
        compression: COMPRESSIONS
            .iter()
            .position(|c| *c == input.compression)
            .unwrap_or(4) as u32,
    })
}

fn input_of(p: InputProto) -> Result<Input> {
    let Some(&compression) = COMPRESSIONS.get(p.compression as usize) else {
        return Err(DataFusionError::Internal(format!(
            "sqlchess codec: compression {} of {:?}",
            p.compression, p.path
        )));
    };
    Ok(Input {
        name: p.name,
        source: Source::File(PathBuf::from(p.path)),
        compression,
    })
}

/// The function methods of both codec traits (same signatures in both): handed to the inner
/// codec, since our functions travel by name.
macro_rules! delegate_functions {
    () => {
        fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
            self.inner.try_decode_udf(name, buf)
        }

        fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udf(node, buf)
        }

        fn try_decode_higher_order_function(
            &self,
            name: &str,
            buf: &[u8],
        ) -> Result<Arc<HigherOrderUDF>> {
            self.inner.try_decode_higher_order_function(name, buf)
        }

        fn try_encode_higher_order_function(
            &self,
            node: &HigherOrderUDF,
            buf: &mut Vec<u8>,
        ) -> Result<()> {
            self.inner.try_encode_higher_order_function(node, buf)
        }

        fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
            self.inner.try_decode_udaf(name, buf)
        }

        fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udaf(node, buf)
        }

        fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
            self.inner.try_decode_udwf(name, buf)
        }

        fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udwf(node, buf)
        }
    };
}

/// The logical extension codec of the chess tables ([`PgnTable`], `MemTable`), wrapping an
/// inner codec for everything else (module docs).
pub struct ChessLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
    pool: Arc<EnginePool>,
}

impl fmt::Debug for ChessLogicalCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChessLogicalCodec({:?})", self.inner)
    }
}

impl Default for ChessLogicalCodec {
    /// Over DataFusion's default codec.
    fn default() -> ChessLogicalCodec {
        ChessLogicalCodec::new(Arc::new(DefaultLogicalExtensionCodec {}))
    }
}

impl ChessLogicalCodec {
    /// Our codec over `inner`; decoded tables take their engines from the process's shared
    /// pool ([`EnginePool::shared`]).
    #[must_use]
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> ChessLogicalCodec {
        ChessLogicalCodec {
            inner,
            pool: EnginePool::shared(),
        }
    }
}

impl LogicalExtensionCodec for ChessLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some((node, message)) = open(buf) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        match node {
            n if n == Node::PgnTable as u8 => {
                let p: PgnTableProto = decode("read_pgn table", message)?;
                let inputs = p
                    .inputs
                    .into_iter()
                    .map(input_of)
                    .collect::<Result<Vec<_>>>()?;
                let table =
                    PgnTable::new(inputs, self.pool.clone(), rows_of(p.rows)?, p.split_bytes);
                Ok(Arc::new(match p.max_ply {
                    Some(m) => table.with_max_ply(m),
                    None => table,
                }))
            }
            // the named openings: the receiving process replays its own copy
            n if n == Node::OpeningsTable as u8 => {
                Ok(Arc::new(OpeningsTable::new(self.pool.clone())))
            }
            n if n == Node::MemTable as u8 => {
                let p: MemTableProto = decode("in-memory table", message)?;
                let partitions = p
                    .partitions
                    .iter()
                    .map(|bytes| ipc_batches(bytes))
                    .collect::<Result<Vec<_>>>()?;
                Ok(Arc::new(MemTable::try_new(schema, partitions)?))
            }
            n => Err(DataFusionError::Internal(format!(
                "sqlchess codec: table node {n} of {table_ref}"
            ))),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        if let Some(table) = node.downcast_ref::<PgnTable>() {
            let name = table.rows().table_name();
            let inputs = table
                .inputs()
                .iter()
                .map(|i| input_proto(name, i))
                .collect::<Result<Vec<_>>>()?;
            let p = PgnTableProto {
                inputs,
                rows: table.rows().code(),
                split_bytes: table.split_bytes(),
                max_ply: table.max_ply(),
            };
            return envelope(Node::PgnTable, &p, buf);
        }
        if let Some(table) = node.downcast_ref::<MemTable>() {
            let mut partitions = vec![];
            for partition in &table.batches {
                let batches = partition.try_read().map_err(|_| {
                    DataFusionError::Execution(format!(
                        "{table_ref}: the in-memory table is being written to"
                    ))
                })?;
                partitions.push(ipc_bytes(&table.schema(), &batches)?);
            }
            return envelope(Node::MemTable, &MemTableProto { partitions }, buf);
        }
        if node.downcast_ref::<OpeningsTable>().is_some() {
            return envelope(Node::OpeningsTable, &(), buf);
        }
        self.inner.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    delegate_functions!();
}

/// Batches as one Arrow IPC stream.
fn ipc_bytes(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<Vec<u8>> {
    let mut out = vec![];
    let mut w = StreamWriter::try_new(&mut out, schema)?;
    for b in batches {
        w.write(b)?;
    }
    w.finish()?;
    drop(w);
    Ok(out)
}

/// The batches of one Arrow IPC stream.
fn ipc_batches(bytes: &[u8]) -> Result<Vec<RecordBatch>> {
    let r = StreamReader::try_new(Cursor::new(bytes), None)?;
    Ok(r.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// The physical extension codec of the chess scan ([`PgnScanExec`]), wrapping an inner codec
/// for everything else (module docs).
pub struct ChessPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
    pool: Arc<EnginePool>,
    site: Option<String>,
}

impl fmt::Debug for ChessPhysicalCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChessPhysicalCodec({:?})", self.inner)
    }
}

impl Default for ChessPhysicalCodec {
    /// Over DataFusion's default codec.
    fn default() -> ChessPhysicalCodec {
        ChessPhysicalCodec::new(Arc::new(DefaultPhysicalExtensionCodec {}))
    }
}

impl ChessPhysicalCodec {
    /// Our codec over `inner`; decoded scans take their engines from the process's shared
    /// pool ([`EnginePool::shared`]).
    #[must_use]
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> ChessPhysicalCodec {
        ChessPhysicalCodec {
            inner,
            pool: EnginePool::shared(),
            site: None,
        }
    }

    /// The same codec, whose decoded scans take their engines from a pool of their own that
    /// honours `config` (its engine count and memory shares: [`super::context_with`]).
    #[must_use]
    pub fn with_config(self, config: &crate::session::PipelineConfig) -> ChessPhysicalCodec {
        ChessPhysicalCodec {
            pool: Arc::new(EnginePool::with_config(config)),
            ..self
        }
    }

    /// The same codec, whose decoded scans name `site` (e.g. `executor 127.0.0.1:50051`)
    /// in the errors of files they cannot read.
    #[must_use]
    pub fn with_site(self, site: impl Into<String>) -> ChessPhysicalCodec {
        ChessPhysicalCodec {
            site: Some(site.into()),
            ..self
        }
    }
}

impl PhysicalExtensionCodec for ChessPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some((node, message)) = open(buf) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        if node != Node::PgnScan as u8 {
            return Err(DataFusionError::Internal(format!(
                "sqlchess codec: plan node {node}"
            )));
        }
        let p: PgnScanProto = decode("read_pgn scan", message)?;
        let [ranges] = inputs else {
            return Err(DataFusionError::Internal(format!(
                "sqlchess codec: a PGN scan with {} inputs",
                inputs.len()
            )));
        };
        let parts = ScanParts {
            inputs: p
                .inputs
                .into_iter()
                .map(input_of)
                .collect::<Result<Vec<_>>>()?,
            ranges: ranges.clone(),
            projection: p.projection.into_iter().map(|i| i as usize).collect(),
            batch_games: usize::try_from(p.batch_games).unwrap_or(usize::MAX),
            rows: rows_of(p.rows)?,
            limited: p.limited,
            max_ply: p.max_ply,
        };
        Ok(Arc::new(PgnScanExec::from_parts(
            parts,
            self.pool.clone(),
            self.site.clone(),
        )?))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some(scan) = node.downcast_ref::<PgnScanExec>() else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let parts = scan.parts();
        let name = parts.rows.table_name();
        let inputs = parts
            .inputs
            .iter()
            .map(|i| input_proto(name, i))
            .collect::<Result<Vec<_>>>()?;
        // the ranges each partition reads are the scan's input, encoded as a plan
        let p = PgnScanProto {
            inputs,
            projection: parts.projection.iter().map(|&i| i as u32).collect(),
            batch_games: parts.batch_games as u64,
            rows: parts.rows.code(),
            limited: parts.limited,
            max_ply: parts.max_ply,
        };
        envelope(Node::PgnScan, &p, buf)
    }

    delegate_functions!();

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }
}
