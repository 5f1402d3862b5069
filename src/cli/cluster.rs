//! `sqlchess cluster scheduler|executor`: our builds of the Ballista scheduler and executor,
//! which know the chess tables, scan and functions (feature `ballista`;
//! `sqlchess::cluster`). A build without the feature says so and exits 2.

use std::path::PathBuf;
use std::process::ExitCode;

use sqlchess::Result;

/// The two processes of a cluster.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Run a scheduler: clients send it queries (`sqlchess sql --cluster df://HOST:PORT`),
    /// executors pull their tasks from it. Runs until stopped (Ctrl-C, SIGTERM).
    Scheduler {
        /// Address to listen on (0.0.0.0: every interface, then --external-host is needed).
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// The address executors and clients reach it at (default: --bind).
        #[arg(long)]
        external_host: Option<String>,
        /// gRPC port.
        #[arg(long, default_value_t = 50050)]
        port: u16,
        /// Seconds without a poll after which an executor counts as lost and its tasks run
        /// on the others.
        #[arg(long, default_value_t = 30)]
        executor_timeout: u64,
    },
    /// Run an executor: registers with the scheduler, runs its tasks (PGN scans with our
    /// stage pipeline), serves results and shuffles on its Arrow Flight port. Runs until
    /// stopped (Ctrl-C or SIGTERM: it finishes its running tasks first).
    Executor {
        /// The scheduler, HOST:PORT.
        #[arg(long, default_value = "127.0.0.1:50050")]
        scheduler: String,
        /// Address to listen on (0.0.0.0: every interface, then --external-host is needed).
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// The address the scheduler, clients and other executors reach it at (default:
        /// --bind); with the port, its id at the scheduler.
        #[arg(long)]
        external_host: Option<String>,
        /// Arrow Flight port (results and shuffles).
        #[arg(long, default_value_t = 50051)]
        port: u16,
        /// Tasks run at once (default: the cores).
        #[arg(long)]
        concurrent_tasks: Option<usize>,
        /// Folder for shuffle files (default: sqlchess-executor-PORT in the temporary folder).
        #[arg(long)]
        work_dir: Option<PathBuf>,
    },
}

/// Runs a cluster command. An executor honours `--threads` (its tasks at once, unless
/// `--concurrent-tasks` says otherwise, and its chess engines) and `--memory-limit` (its
/// tasks' operators and engines: [`sqlchess::cluster::ExecutorOptions::pipeline`]); a
/// scheduler runs no query and refuses both.
///
/// Errors: [`sqlchess::Error::Usage`] for a bad `--scheduler`, or `--threads` /
/// `--memory-limit` given to a scheduler; [`sqlchess::Error::Cluster`] when the node cannot
/// start or fails, or in a build without the `ballista` feature.
#[cfg(feature = "ballista")]
pub async fn run(
    command: Command,
    config: &sqlchess::PipelineConfig,
    given: crate::Given,
) -> Result<ExitCode> {
    use sqlchess::cluster::{ExecutorOptions, SchedulerOptions};
    match command {
        Command::Scheduler {
            bind,
            external_host,
            port,
            executor_timeout,
        } => {
            refuse_for_scheduler(given)?;
            let options = SchedulerOptions {
                external_host: reachable(&bind, external_host)?,
                bind_host: bind,
                port,
                executor_timeout_seconds: executor_timeout.max(2),
                expire_interval_seconds: (executor_timeout / 4).clamp(1, 15),
                ..SchedulerOptions::default()
            };
            let host = options
                .external_host
                .clone()
                .unwrap_or_else(|| options.bind_host.clone());
            note!(
                "sqlchess scheduler on {}:{} (clients: sqlchess sql --cluster df://{host}:{} …)",
                options.bind_host,
                options.port,
                options.port
            );
            sqlchess::cluster::serve_scheduler(&options).await?;
        }
        Command::Executor {
            scheduler,
            bind,
            external_host,
            port,
            concurrent_tasks,
            work_dir,
        } => {
            // the scheduler's address as clients write it is accepted too
            let address = scheduler.strip_prefix("df://").unwrap_or(&scheduler);
            let (host, scheduler_port) = address
                .rsplit_once(':')
                .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
                .ok_or_else(|| {
                    sqlchess::Error::Usage(format!("--scheduler {scheduler:?}: expected HOST:PORT"))
                })?;
            let defaults = ExecutorOptions::default();
            let options = ExecutorOptions {
                scheduler_host: host,
                scheduler_port,
                external_host: reachable(&bind, external_host)?,
                bind_host: bind,
                port,
                concurrent_tasks: concurrent_tasks.unwrap_or(if given.threads {
                    config.target_partitions.max(1)
                } else {
                    defaults.concurrent_tasks
                }),
                work_dir,
                pipeline: (given.threads || given.memory_limit || given.hash_joins)
                    .then(|| config.clone()),
                ..defaults
            };
            note!(
                "sqlchess executor {} (scheduler {}:{})",
                options.id(),
                options.scheduler_host,
                options.scheduler_port
            );
            sqlchess::cluster::run_executor(&options).await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A scheduler plans and hands out tasks but runs none: the options that bound a run's
/// cores and memory are the executors'.
fn refuse_for_scheduler(given: crate::Given) -> Result<()> {
    if given.threads || given.memory_limit || given.hash_joins {
        return Err(sqlchess::Error::Usage(
            "--threads, --memory-limit and --hash-joins apply to the tasks of an executor; a \
             scheduler runs none: give them to `sqlchess cluster executor`"
                .into(),
        ));
    }
    Ok(())
}

/// The external host of a node that listens on `bind`: `external`, required when `bind`
/// is every interface (others could not reach `0.0.0.0`).
#[cfg(feature = "ballista")]
fn reachable(bind: &str, external: Option<String>) -> Result<Option<String>> {
    if external.is_none() && ["0.0.0.0", "::", "[::]"].contains(&bind) {
        return Err(sqlchess::Error::Usage(format!(
            "--bind {bind} listens on every interface: give --external-host, the address \
             others reach this node at"
        )));
    }
    Ok(external)
}

/// Without the `ballista` feature: the error that says how to get it.
#[cfg(not(feature = "ballista"))]
pub async fn run(
    command: Command,
    _config: &sqlchess::PipelineConfig,
    given: crate::Given,
) -> Result<ExitCode> {
    if let Command::Scheduler { .. } = command {
        refuse_for_scheduler(given)?;
    }
    Err(without_ballista())
}

/// The error of a cluster command in a build without the `ballista` feature.
#[cfg(not(feature = "ballista"))]
pub fn without_ballista() -> sqlchess::Error {
    sqlchess::Error::Cluster(
        "this sqlchess was built without the `ballista` feature; build it with \
         `cargo build --release --features ballista`"
            .into(),
    )
}
