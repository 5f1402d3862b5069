//! The same SQL on a cluster: an Apache DataFusion Ballista 55 scheduler and executors that
//! know the chess tables and functions (feature `ballista`).
//!
//! Ballista sends the client's logical plan to the scheduler, which plans it and sends
//! physical stages to the executors. Its stock scheduler and executor cannot decode our
//! nodes, so these are our own builds of them:
//!
//! - [`serve_scheduler`] and [`run_executor`] run the two processes (`sqlchess cluster
//!   scheduler`, `sqlchess cluster executor`), with our codecs
//!   ([`crate::sql::codec`], wrapping Ballista's own) and our scalar functions;
//! - [`connect`] returns a client [`SessionContext`] on a scheduler's URL
//!   (`df://HOST:PORT`) with everything of [`crate::sql::register`];
//! - [`LocalCluster`] starts a scheduler and N executors in this process, on 127.0.0.1,
//!   for tests and for trying it on one machine.
//!
//! What each side needs: the client plans the SQL (the table functions `read_pgn`,
//! `read_plies`, `legal_moves` are expanded there, so their paths must be absolute and
//! readable by every executor); the scheduler decodes the logical plan, plans the scans
//! (it reads the sizes of plain PGN files to split large ones) and needs the scalar
//! functions by name; each executor decodes its tasks' physical plans and runs our stage
//! pipeline with engines of its own.
//!
//! Settings kept equal to the in-process plans: `datafusion.optimizer.prefer_hash_join =
//! true` (Ballista's default is false). The scans are planned on the scheduler with the
//! client's `sqlchess.split_bytes`, which travels inside each `read_pgn` / `read_plies`
//! table ([`crate::sql::PgnTable::split_bytes`]). The scheduler plans every job with
//! Ballista's static planner and keeps a limit pushed into an in-memory scan as its own
//! operator (`memory_fetch`).
//! Tasks are pulled by the executors (Ballista's `PullStaged`), so no port of an executor
//! but its Arrow Flight port (results and shuffles) needs to be reachable.

mod local;
mod memory_fetch;

use std::path::PathBuf;
use std::sync::Arc;

use ballista::extension::{SessionConfigExt, SessionContextExt};
use ballista_core::config::{BALLISTA_ADAPTIVE_PLANNER_ENABLED, TaskSchedulingPolicy};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};

pub use local::LocalCluster;

use crate::error::{Error, Result};
use crate::sql::{ChessLogicalCodec, ChessOptions, ChessPhysicalCodec};

/// A Ballista error as ours.
fn cluster_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Cluster(format!("{what}: {e}"))
}

/// The session configuration of every side (client, scheduler, executors): Ballista's,
/// with our codecs over Ballista's own, hash joins as in process and the [`ChessOptions`].
/// Target partitions: the cores of the client, as in process (Ballista's default is 16).
/// DataFusion's leaf-expression pushdown is off: the client optimizes a plan before it
/// travels as protobuf, and in DataFusion 55.2 an aggregate over a struct field that the
/// rule moved into a projection (`min(CASE WHEN a['attacked'] …)`, the knight-fork example)
/// does not decode on the scheduler ("No field named min(… __datafusion_extracted_3 …)").
#[must_use]
pub fn session_config() -> SessionConfig {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    SessionConfig::new_with_ballista()
        .with_target_partitions(cores)
        .with_ballista_logical_extension_codec(logical_codec())
        .with_ballista_physical_extension_codec(Arc::new(physical_codec(None)))
        .with_option_extension(ChessOptions::default())
        .set_bool("datafusion.optimizer.prefer_hash_join", true)
        .set_bool(
            "datafusion.optimizer.enable_leaf_expression_pushdown",
            false,
        )
}

fn logical_codec() -> Arc<ChessLogicalCodec> {
    Arc::new(ChessLogicalCodec::new(Arc::new(
        BallistaLogicalExtensionCodec::default(),
    )))
}

/// Our physical codec over Ballista's; scans decoded by it name `site` in their errors.
fn physical_codec(site: Option<String>) -> ChessPhysicalCodec {
    let codec = ChessPhysicalCodec::new(Arc::new(BallistaPhysicalExtensionCodec::default()));
    match site {
        Some(site) => codec.with_site(site),
        None => codec,
    }
}

/// A client session on the scheduler at `url` (`df://HOST:PORT`) with the chess tables and
/// functions ([`crate::sql::register`]). Nothing connects until a query runs; then an
/// unreachable scheduler is the query's error.
///
/// Errors: [`Error::Cluster`] when `url` is not a `df://HOST:PORT` URL.
pub async fn connect(url: &str) -> Result<SessionContext> {
    if !url.starts_with("df://") {
        return Err(Error::Cluster(format!(
            "{url:?}: a scheduler's URL is df://HOST:PORT"
        )));
    }
    let state = SessionStateBuilder::new()
        .with_config(session_config())
        .with_default_features()
        .build();
    let ctx = SessionContext::remote_with_state(url, state)
        .await
        .map_err(|e| cluster_error(url, e))?;
    // Ballista's client state keeps its own function lists: ours are added again
    crate::sql::register(&ctx);
    Ok(ctx)
}

/// How a scheduler runs ([`serve_scheduler`], [`LocalCluster`]).
#[derive(Debug, Clone)]
pub struct SchedulerOptions {
    /// The address it listens on (default `127.0.0.1`; `0.0.0.0` for every interface).
    pub bind_host: String,
    /// The address executors and clients reach it at (default: `bind_host`).
    pub external_host: Option<String>,
    /// Its gRPC port (default 50050).
    pub port: u16,
    /// Seconds without a poll after which an executor counts as lost and its tasks run
    /// elsewhere (default 30; an executor polls at least every 5 s while busy).
    pub executor_timeout_seconds: u64,
    /// How often lost executors are looked for, in seconds (default 5).
    pub expire_interval_seconds: u64,
    /// How many times a task may fail (of an I/O error or a lost executor) before its query
    /// fails (default 4).
    pub task_max_failures: usize,
    /// How many times a stage may fail to read another stage's output (a shuffle whose
    /// executor is gone) before its query fails (default 1: the query fails at once, with
    /// the executor in its error). Ballista 55 re-runs such a stage whole but keeps the
    /// outputs its first attempt already delivered, so a second attempt can return rows
    /// twice; `sqlchess` prefers the error.
    pub stage_max_failures: usize,
}

impl Default for SchedulerOptions {
    fn default() -> SchedulerOptions {
        SchedulerOptions {
            bind_host: "127.0.0.1".into(),
            external_host: None,
            port: 50050,
            executor_timeout_seconds: 30,
            expire_interval_seconds: 5,
            task_max_failures: 4,
            stage_max_failures: 1,
        }
    }
}

impl SchedulerOptions {
    /// Ballista's scheduler configuration for these options, as [`serve_scheduler_on`] uses
    /// it: our codecs, session builder (the chess tables and functions; Ballista's static
    /// planner for every job, below) and liveness settings.
    pub fn scheduler_config(&self) -> SchedulerConfig {
        // the scheduler plans the scans and calls the scalar functions by name. Every job
        // is planned whole at submission (Ballista's static planner): Ballista 55's adaptive
        // planner does not recover from a lost executor (a re-run stage's outputs are
        // refused and the query never ends), whatever the client asks for
        let session_builder: ballista_scheduler::SessionBuilder =
            Arc::new(|config: SessionConfig| {
                let config = config.set_bool(BALLISTA_ADAPTIVE_PLANNER_ENABLED, false);
                let state = ballista_core::utils::default_session_builder(config)?;
                let state = SessionStateBuilder::new_from_existing(state)
                    .with_physical_optimizer_rule(Arc::new(memory_fetch::MemoryFetchAsLimit))
                    .build();
                let ctx = SessionContext::new_with_state(state);
                crate::sql::register(&ctx);
                Ok(ctx.state())
            });
        SchedulerConfig {
            bind_host: self.bind_host.clone(),
            external_host: self
                .external_host
                .clone()
                .unwrap_or_else(|| self.bind_host.clone()),
            bind_port: self.port,
            scheduling_policy: TaskSchedulingPolicy::PullStaged,
            executor_timeout_seconds: self.executor_timeout_seconds,
            expire_dead_executor_interval_seconds: self.expire_interval_seconds,
            no_executors_grace_period_seconds: self.executor_timeout_seconds,
            task_max_failures: self.task_max_failures,
            stage_max_failures: self.stage_max_failures,
            override_logical_codec: Some(logical_codec()),
            override_physical_codec: Some(Arc::new(physical_codec(None))),
            override_session_builder: Some(session_builder),
            override_config_producer: Some(Arc::new(session_config)),
            ..SchedulerConfig::default()
        }
    }
}

/// Runs a scheduler on `listener` until the process ends (or the returned future is
/// dropped).
///
/// Errors: [`Error::Cluster`] when the scheduler cannot start or its service fails.
pub async fn serve_scheduler_on(
    listener: tokio::net::TcpListener,
    options: &SchedulerOptions,
) -> Result<()> {
    let config = options.scheduler_config();
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(|e| cluster_error("scheduler", e))?;
    let scheduler =
        create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::new(config))
            .await
            .map_err(|e| cluster_error("scheduler", e))?;
    start_grpc_service_with_listener(listener, scheduler)
        .await
        .map_err(|e| cluster_error("scheduler", e))
}

/// `sqlchess cluster scheduler`: binds `bind_host:port` and runs a scheduler until the
/// process ends.
///
/// Errors: [`Error::Io`] when the address cannot be bound; those of
/// [`serve_scheduler_on`].
pub async fn serve_scheduler(options: &SchedulerOptions) -> Result<()> {
    let address = format!("{}:{}", options.bind_host, options.port);
    let listener = tokio::net::TcpListener::bind(&address)
        .await
        .map_err(|e| Error::Io {
            path: address.clone(),
            source: e,
        })?;
    serve_scheduler_on(listener, options).await
}

/// How an executor runs ([`run_executor`], [`LocalCluster`]).
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The scheduler's host (default `127.0.0.1`).
    pub scheduler_host: String,
    /// The scheduler's port (default 50050).
    pub scheduler_port: u16,
    /// The address it listens on (default `127.0.0.1`).
    pub bind_host: String,
    /// The address the scheduler and clients reach it at (default: `bind_host`).
    pub external_host: Option<String>,
    /// Its Arrow Flight port, for results and shuffles (default 50051).
    pub port: u16,
    /// Tasks it runs at once (default: the cores).
    pub concurrent_tasks: usize,
    /// Where it writes shuffle files (default: `sqlchess-executor-PORT` in the temporary
    /// folder).
    pub work_dir: Option<PathBuf>,
    /// Its id at the scheduler, also named in the errors of files it cannot read
    /// (default `HOST:PORT`).
    pub id: Option<String>,
    /// Settings its tasks honour (`sqlchess cluster executor --threads N --memory-limit
    /// SIZE`): the chess engines of its scans, at most `target_partitions`, share half the
    /// memory limit ([`crate::sql::context_with`]); the tasks' operators the other half
    /// (Ballista's memory pool, cut among the running tasks). Default `None`: engines with
    /// their default settings, Ballista's default pool.
    pub pipeline: Option<crate::session::PipelineConfig>,
}

impl Default for ExecutorOptions {
    fn default() -> ExecutorOptions {
        ExecutorOptions {
            scheduler_host: "127.0.0.1".into(),
            scheduler_port: 50050,
            bind_host: "127.0.0.1".into(),
            external_host: None,
            port: 50051,
            concurrent_tasks: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            work_dir: None,
            id: None,
            pipeline: None,
        }
    }
}

impl ExecutorOptions {
    /// The executor's id ([`ExecutorOptions::id`]).
    #[must_use]
    pub fn id(&self) -> String {
        self.id.clone().unwrap_or_else(|| {
            format!(
                "{}:{}",
                self.external_host.as_deref().unwrap_or(&self.bind_host),
                self.port
            )
        })
    }

    fn config(&self) -> Result<ExecutorProcessConfig> {
        let work_dir = self.work_dir.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!("sqlchess-executor-{}", self.port))
        });
        std::fs::create_dir_all(&work_dir).map_err(|e| Error::Io {
            path: work_dir.display().to_string(),
            source: e,
        })?;
        // the functions its tasks call, by name
        let ctx = SessionContext::new_with_state(
            SessionStateBuilder::new()
                .with_config(session_config())
                .with_default_features()
                .build(),
        );
        crate::sql::register(&ctx);
        let registry = BallistaFunctionRegistry::from(&ctx.state());
        let id = self.id();
        let codec = physical_codec(Some(format!("executor {id}")));
        let (codec, memory_pool_size) = match &self.pipeline {
            Some(p) => (
                codec.with_config(p),
                Some((p.memory.limit() as f64 * (1.0 - crate::sql::engines::ENGINES_SHARE)) as u64),
            ),
            None => (codec, None),
        };
        Ok(ExecutorProcessConfig {
            executor_id: id.clone(),
            bind_host: self.bind_host.clone(),
            external_host: Some(
                self.external_host
                    .clone()
                    .unwrap_or_else(|| self.bind_host.clone()),
            ),
            port: self.port,
            scheduler_host: self.scheduler_host.clone(),
            scheduler_port: self.scheduler_port,
            scheduler_connect_timeout_seconds: 30,
            vcores: self.concurrent_tasks.max(1),
            task_scheduling_policy: TaskSchedulingPolicy::PullStaged,
            work_dir: Some(work_dir.display().to_string()),
            // shuffle files of finished queries are removed after an hour
            job_data_ttl_seconds: 3600,
            job_data_clean_up_interval_seconds: 600,
            override_logical_codec: Some(logical_codec()),
            override_physical_codec: Some(Arc::new(codec)),
            memory_pool_size: memory_pool_size
                .or(ExecutorProcessConfig::default().memory_pool_size),
            override_function_registry: Some(Arc::new(registry)),
            override_config_producer: Some(Arc::new(session_config)),
            ..ExecutorProcessConfig::default()
        })
    }
}

/// `sqlchess cluster executor`: registers with the scheduler and runs its tasks until the
/// process gets Ctrl-C or SIGTERM (then it finishes its running tasks and says so to the
/// scheduler).
///
/// Errors: [`Error::Io`] for a work folder that cannot be made or a Flight port that cannot
/// be bound; [`Error::Cluster`] when it cannot reach the scheduler within 30 s or its
/// services fail.
pub async fn run_executor(options: &ExecutorOptions) -> Result<()> {
    // Ballista's executor ends without a word when its Flight port is taken
    let address = format!("{}:{}", options.bind_host, options.port);
    drop(
        std::net::TcpListener::bind(&address).map_err(|e| Error::Io {
            path: address.clone(),
            source: e,
        })?,
    );
    let config = options.config()?;
    // Ballista's own retry loop never gives up: a wrong address fails here instead
    let scheduler = format!("{}:{}", options.scheduler_host, options.scheduler_port);
    let reach = async {
        while tokio::net::TcpStream::connect(&scheduler).await.is_err() {
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
    };
    if tokio::time::timeout(std::time::Duration::from_secs(30), reach)
        .await
        .is_err()
    {
        return Err(Error::Cluster(format!(
            "executor {}: no scheduler answers at {scheduler} after 30 s",
            options.id()
        )));
    }
    start_executor_process(Arc::new(config))
        .await
        .map_err(|e| cluster_error(&format!("executor {}", options.id()), e))
}
