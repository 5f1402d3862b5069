//! A scheduler and executors in this process, on 127.0.0.1: for tests, and for trying the
//! cluster on one machine.
//!
//! Each node runs on a thread of its own with a Tokio runtime of its own, so that one
//! executor can be stopped alone ([`LocalCluster::stop_executor`]): its runtime is shut
//! down, its Flight server and its polling end, and the scheduler counts it lost after its
//! executor timeout, as it would a crashed process.
//!
//! Ballista's executors listen for Ctrl-C and SIGTERM (to finish their tasks and leave the
//! scheduler): once a `LocalCluster` runs, those signals stop its executors, not the
//! process that started it.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use datafusion::prelude::SessionContext;
use tokio::sync::oneshot;

use super::{ExecutorOptions, SchedulerOptions, connect, run_executor, serve_scheduler_on};
use crate::error::{Error, Result};

/// One node: its thread and the way to stop it.
struct Node {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl Node {
    /// Runs `node` (a future made on the node's own runtime) on a new thread until it ends or
    /// [`Node::stop`] is called.
    fn spawn<F>(name: String, node: impl FnOnce() -> F + Send + 'static) -> Result<Node>
    where
        F: Future<Output = Result<()>>,
    {
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name(name)
                    .enable_all()
                    .build()
                    .map_err(|e| Error::Cluster(format!("runtime: {e}")))?;
                let out = rt.block_on(async {
                    tokio::select! {
                        r = node() => r,
                        _ = stopped => Ok(()),
                    }
                });
                // tasks still running (polling, Flight, scans) end with the runtime
                rt.shutdown_background();
                out
            })
            .map_err(|e| Error::Cluster(format!("thread: {e}")))?;
        Ok(Node {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stops the node and returns how it ended.
    fn stop(&mut self) -> Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| Error::Cluster("a cluster node panicked".into()))?,
            None => Ok(()),
        }
    }
}

/// A scheduler and executors in this process on 127.0.0.1 (module docs). Dropping it stops
/// every node.
pub struct LocalCluster {
    port: u16,
    scheduler: Node,
    executors: Vec<(String, Node)>,
    work: PathBuf,
}

/// A free TCP port on 127.0.0.1 (free when asked: another process may take it after).
fn free_port() -> Result<u16> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| Error::Io {
        path: "127.0.0.1:0".into(),
        source: e,
    })?;
    l.local_addr().map(|a| a.port()).map_err(|e| Error::Io {
        path: "127.0.0.1:0".into(),
        source: e,
    })
}

/// Waits until something listens on 127.0.0.1:`port`, at most `within`; the error of
/// `node` if it ends first.
fn wait_for(port: u16, node: &mut Node, within: Duration) -> Result<()> {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if node.thread.as_ref().is_some_and(JoinHandle::is_finished) {
            node.stop()?;
            return Err(Error::Cluster(format!(
                "a node to listen on 127.0.0.1:{port} ended"
            )));
        }
        if start.elapsed() > within {
            return Err(Error::Cluster(format!(
                "nothing listens on 127.0.0.1:{port} after {within:?}"
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

impl LocalCluster {
    /// A scheduler (with `options`, on a free port of 127.0.0.1) and `executors` executors of
    /// `concurrent_tasks` tasks each, their shuffle files in a new folder of the temporary
    /// folder; returns once every node listens.
    ///
    /// Errors: [`Error::Io`] when no port can be bound; [`Error::Cluster`] when a node does
    /// not start within 30 s.
    pub fn start(
        executors: usize,
        concurrent_tasks: usize,
        options: SchedulerOptions,
    ) -> Result<LocalCluster> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| Error::Io {
            path: "127.0.0.1:0".into(),
            source: e,
        })?;
        let io = |e: std::io::Error| Error::Io {
            path: "127.0.0.1".into(),
            source: e,
        };
        let port = listener.local_addr().map_err(io)?.port();
        listener.set_nonblocking(true).map_err(io)?;
        let options = SchedulerOptions {
            bind_host: "127.0.0.1".into(),
            external_host: Some("127.0.0.1".into()),
            port,
            ..options
        };
        let scheduler = Node::spawn("sqlchess-scheduler".into(), move || async move {
            let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| Error::Io {
                path: format!("127.0.0.1:{port}"),
                source: e,
            })?;
            serve_scheduler_on(listener, &options).await
        })?;
        let work =
            std::env::temp_dir().join(format!("sqlchess-cluster-{}-{port}", std::process::id()));
        let mut cluster = LocalCluster {
            port,
            scheduler,
            executors: vec![],
            work,
        };
        // the listener is bound already: a scheduler that failed to start has ended
        std::thread::sleep(Duration::from_millis(200));
        if cluster
            .scheduler
            .thread
            .as_ref()
            .is_some_and(JoinHandle::is_finished)
        {
            cluster.scheduler.stop()?;
            return Err(Error::Cluster("the scheduler ended at its start".into()));
        }
        for i in 0..executors {
            let flight = free_port()?;
            let options = ExecutorOptions {
                scheduler_port: port,
                port: flight,
                concurrent_tasks: concurrent_tasks.max(1),
                work_dir: Some(cluster.work.join(format!("executor-{i}"))),
                id: Some(format!("local-{i}@127.0.0.1:{flight}")),
                ..ExecutorOptions::default()
            };
            let id = options.id();
            let mut node = Node::spawn(format!("sqlchess-executor-{i}"), move || async move {
                run_executor(&options).await
            })?;
            wait_for(flight, &mut node, Duration::from_secs(30))?;
            cluster.executors.push((id, node));
        }
        Ok(cluster)
    }

    /// The scheduler's URL, `df://127.0.0.1:PORT`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.port)
    }

    /// A client session on the scheduler ([`connect`]).
    ///
    /// Errors: those of [`connect`].
    pub async fn context(&self) -> Result<SessionContext> {
        connect(&self.url()).await
    }

    /// The folder of the executors' shuffle files (one folder each below it), removed when
    /// the cluster is dropped.
    #[must_use]
    pub fn work_dir(&self) -> &Path {
        &self.work
    }

    /// The executors' ids, in start order (`local-I@127.0.0.1:PORT`).
    #[must_use]
    pub fn executor_ids(&self) -> Vec<String> {
        self.executors.iter().map(|(id, _)| id.clone()).collect()
    }

    /// Stops executor `index` (as if its process died: it says nothing to the scheduler).
    ///
    /// Errors: [`Error::Usage`] for an index out of range; how the executor had ended.
    pub fn stop_executor(&mut self, index: usize) -> Result<()> {
        match self.executors.get_mut(index) {
            Some((_, node)) => node.stop(),
            None => Err(Error::Usage(format!("no executor {index}"))),
        }
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for (_, node) in &mut self.executors {
            let _ = node.stop();
        }
        let _ = self.scheduler.stop();
        let _ = std::fs::remove_dir_all(&self.work);
    }
}
