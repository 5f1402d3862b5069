//! Validation on several pipelines at once, one OS thread each ([`Validator`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::thread::JoinHandle;

use crate::engine::{Engine, thread_runtime};
use crate::error::{Error, Result};
use crate::pgn::RawGame;
use crate::session::PipelineConfig;

use super::{ValidateOptions, Validation, validate_games_with, validation_stages};

/// Validation on several pipelines at once, one OS thread each: a batch of games is cut into
/// one share per pipeline (about the same number of plies each), the shares are validated
/// side by side with [`validate_games_with`], and the results are put back in input order.
///
/// Replay (see [`crate::engine::replay`]) runs small stages once per ply, on one row per game; at
/// that size a second DataFusion partition costs more than it gives, so each pipeline has
/// one partition and the cores are used by the shares instead.
pub struct Validator {
    engines: Vec<Engine>,
}

impl Validator {
    /// `threads` pipelines (at least one) of `config` with one target partition and an equal
    /// share of its memory limit each ([`crate::session::memory::MemoryBudget::shares`]): the
    /// first planned, with the stages every validation runs planned ahead, the others its
    /// twins ([`Engine::twin`]: its plans over tables of their own). Blocks the calling
    /// thread until all are made.
    ///
    /// Errors: as [`Engine::new`]; [`crate::session::SessionError::LimitTooSmall`] when a
    /// share would be below [`crate::session::memory::MIN_PIPELINE`],
    /// [`crate::session::SessionError::MemoryLimit`] when the shares cannot be reserved; [`Error::Io`] when a thread's runtime cannot start;
    /// [`Error::Internal`] when a thread panicked.
    pub async fn new(threads: usize, config: PipelineConfig) -> Result<Validator> {
        // each pipeline an equal share of the memory limit, reserved up front: whether a
        // share's games fit depends on them only (crate::session::memory)
        config.memory.check_pipelines(threads.max(1))?;
        let configs = config
            .memory
            .shares("pipeline", threads.max(1), 1.0)?
            .into_iter()
            .map(|memory| PipelineConfig {
                target_partitions: 1,
                memory,
                ..config.clone()
            });
        // one pipeline planned, the others its twins (its plans, tables of their own)
        let mut engines: Vec<Engine> = vec![];
        for config in configs {
            let engine = match engines.first() {
                None => {
                    let engine = Engine::new(config).await?;
                    engine.pipeline().prepare(&validation_stages()).await?;
                    engine
                }
                Some(first) => first.twin(config).await?,
            };
            engines.push(engine);
        }
        Ok(Validator { engines })
    }

    /// [`Validator::new`] on a thread of its own: the pipelines are planned while the caller
    /// goes on (reads its first games, say); [`PendingValidator::wait`] gives them. The
    /// memory limit is checked here, before the thread starts.
    ///
    /// Errors: [`crate::session::SessionError::LimitTooSmall`] as [`Validator::new`];
    /// [`Error::Io`] when the thread cannot start. The errors of making the pipelines come
    /// from [`PendingValidator::wait`].
    pub fn start(threads: usize, config: PipelineConfig) -> Result<PendingValidator> {
        config.memory.check_pipelines(threads.max(1))?;
        let thread = std::thread::Builder::new()
            .name("pipelines".into())
            .spawn(move || thread_runtime()?.block_on(Validator::new(threads, config)))
            .map_err(|e| Error::Io {
                path: "thread making the pipelines".into(),
                source: e,
            })?;
        Ok(PendingValidator {
            thread: Mutex::new(Some(thread)),
            made: OnceLock::new(),
        })
    }

    /// The pipelines (for their per-stage profiles).
    pub fn engines(&self) -> &[Engine] {
        &self.engines
    }

    /// [`validate_games_with`] over the shares of `games`, each on its own thread with its
    /// own single-threaded tokio runtime. Blocks the calling thread until all are done.
    ///
    /// Errors: as [`Validator::validate_each`].
    pub fn validate(
        &self,
        games: &[(&str, RawGame)],
        options: ValidateOptions,
    ) -> Result<Validation> {
        let mut out = Validation::default();
        self.validate_each(games, options, Ok, |mut v| {
            out.reports.append(&mut v.reports);
            out.plies.append(&mut v.plies);
            Ok(())
        })?;
        Ok(out)
    }

    /// [`validate_games_with`] over the shares of `games`, each on its own thread with its
    /// own single-threaded tokio runtime; each share's [`Validation`] is turned into a `T` by
    /// `finish` on that share's thread (e.g. its report and ply batches built in parallel),
    /// and `consume` takes the `T`s on the calling thread in input order, each as soon as
    /// its share and those before it are done (e.g. written while later shares still run).
    /// Blocks the calling thread until all are done.
    ///
    /// Errors: as [`super::validate_games`], or the first error of `finish` or `consume`;
    /// [`Error::Io`] when a thread's runtime cannot start; [`Error::Internal`] when a thread
    /// panicked.
    pub fn validate_each<T: Send>(
        &self,
        games: &[(&str, RawGame)],
        options: ValidateOptions,
        finish: impl Fn(Validation) -> Result<T> + Sync,
        mut consume: impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        let finish = |v: Validation, _: &[(&str, RawGame)]| finish(v);
        std::thread::scope(|scope| {
            let mut workers = self.workers(scope, options, &finish);
            for share in shares(games, self.engines.len()) {
                if let Err(e) = workers.submit(Cow::Borrowed(share), &mut consume) {
                    workers.stop();
                    return Err(e);
                }
            }
            workers.finish(&mut consume)
        })
    }

    /// [`Workers`] on `scope`: one thread per pipeline, each validating whole chunks with
    /// [`validate_games_with`] and turning each chunk's [`Validation`] into a `T` by `finish`
    /// (given the chunk's games too), on that thread.
    pub fn workers<'scope, 'env, 'g: 'scope, T: Send + 'scope>(
        &'env self,
        scope: &'scope std::thread::Scope<'scope, 'env>,
        options: ValidateOptions,
        finish: &'env (impl Fn(Validation, &[(&'g str, RawGame)]) -> Result<T> + Sync),
    ) -> Workers<'scope, 'g, T> {
        // a chunk goes to a thread only when one is free
        let (chunks, taken) = mpsc::sync_channel::<Chunk<'g>>(0);
        let taken = Arc::new(Mutex::new(taken));
        let (done, results) = mpsc::channel();
        let threads = self
            .engines
            .iter()
            .map(|engine| {
                let (taken, done) = (taken.clone(), done.clone());
                scope.spawn(move || {
                    let mut runtime = None;
                    loop {
                        let next = match taken.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => return,
                        };
                        let Ok((number, games)) = next else {
                            return;
                        };
                        let result = match runtime.take().map_or_else(thread_runtime, Ok) {
                            Ok(rt) => {
                                let r = rt
                                    .block_on(validate_games_with(engine, &games, options))
                                    .and_then(|v| finish(v, &games));
                                runtime = Some(rt);
                                r
                            }
                            Err(e) => Err(e),
                        };
                        if done.send((number, result)).is_err() {
                            return;
                        }
                    }
                })
            })
            .collect();
        Workers {
            chunks: Some(chunks),
            results,
            threads,
            submitted: 0,
            consumed: 0,
            waiting: BTreeMap::new(),
            held: None,
        }
    }
}

/// A [`Validator`] being made on a thread of its own ([`Validator::start`]).
pub struct PendingValidator {
    thread: Mutex<Option<JoinHandle<Result<Validator>>>>,
    made: OnceLock<Validator>,
}

impl PendingValidator {
    /// The validator, once made: the first call waits for the thread making it.
    ///
    /// Errors: those of [`Validator::new`], from the first call (later calls:
    /// [`Error::Internal`]); [`Error::Internal`] when the thread panicked.
    pub fn wait(&self) -> Result<&Validator> {
        let thread = self
            .thread
            .lock()
            .map_err(|_| Error::Internal("the pipelines' thread handle was poisoned".into()))?
            .take();
        if let Some(thread) = thread {
            let made = joined(thread.join(), "the thread making the pipelines panicked")?;
            // the only set: the handle was taken under the lock
            let _ = self.made.set(made);
        }
        self.made
            .get()
            .ok_or_else(|| Error::Internal("the pipelines could not be made".into()))
    }
}

/// Chunks of games validated one per free pipeline, on [`Validator::workers`]' threads, and
/// their results handed back in the order the chunks were submitted: a pipeline that is done
/// with its chunk takes the next one while the others still run theirs (no pipeline waits
/// for the longest game of another's chunk), and the chunks are read on the calling thread
/// while the pipelines run.
///
/// At most one chunk per pipeline is validated at once and [`Workers::submit`] waits for a
/// free pipeline: the calling thread holds one more chunk, the one it reads, and with
/// [`Workers::submit_held`] the chunk before it.
pub struct Workers<'scope, 'g, T> {
    /// The chunks for the threads, with their numbers; `None` once every chunk is sent.
    chunks: Option<mpsc::SyncSender<Chunk<'g>>>,
    results: mpsc::Receiver<(usize, Result<T>)>,
    threads: Vec<std::thread::ScopedJoinHandle<'scope, ()>>,
    /// Chunks submitted and results handed back so far.
    submitted: usize,
    consumed: usize,
    /// Results that came before those of an earlier chunk.
    waiting: BTreeMap<usize, Result<T>>,
    /// The chunk read last ([`Workers::submit_held`]), not yet submitted.
    held: Option<Vec<(&'g str, RawGame)>>,
}

/// A chunk of games (owned, or borrowed from the caller) and its number.
type Chunk<'g> = (usize, Cow<'g, [(&'g str, RawGame)]>);

impl<'g, T> Workers<'_, 'g, T> {
    /// Hands `games` to the next free pipeline (waiting for one), after handing the results
    /// that are ready, in order, to `consume`.
    ///
    /// Errors: the first error of a chunk (as [`super::validate_games`], or of `finish`;
    /// [`Error::Io`] when a thread's runtime cannot start) or of `consume`;
    /// [`Error::Internal`] when the threads are gone (one panicked).
    pub fn submit(
        &mut self,
        games: Cow<'g, [(&'g str, RawGame)]>,
        consume: &mut impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        while let Ok((number, result)) = self.results.try_recv() {
            self.waiting.insert(number, result);
        }
        self.consume_ready(consume)?;
        if games.is_empty() {
            return Ok(());
        }
        let sent = self
            .chunks
            .as_ref()
            .map(|c| c.send((self.submitted, games)).is_ok());
        if sent != Some(true) {
            return Err(Error::Internal("the validation threads are gone".into()));
        }
        self.submitted += 1;
        Ok(())
    }

    /// Holds the chunk `games` back and hands the one held before it, if any, to the next
    /// free pipeline ([`Workers::submit`]; with one pipeline, `games` itself). The chunk read
    /// last waits for the end of the input, where [`Workers::submit_shared`] (or
    /// [`Workers::finish`]) shares it out with the games after it: without that, an input of
    /// one chunk and a few games, or the last chunk of any input, would be validated by one
    /// pipeline while the others idle.
    ///
    /// Errors: as [`Workers::submit`].
    pub fn submit_held(
        &mut self,
        games: Vec<(&'g str, RawGame)>,
        consume: &mut impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        // one pipeline: nothing to share out
        if self.threads.len() <= 1 {
            return self.submit(Cow::Owned(games), consume);
        }
        let previous = self.held.replace(games).unwrap_or_default();
        self.submit(Cow::Owned(previous), consume)
    }

    /// [`Workers::submit`] of the chunk held back ([`Workers::submit_held`]) and `games`
    /// after it, cut into one share per pipeline, about the same number of move tokens each
    /// (the last games of the input: every pipeline gets some); into more shares when that
    /// would make a share larger than the chunk held.
    ///
    /// Errors: as [`Workers::submit`].
    pub fn submit_shared(
        &mut self,
        mut games: Vec<(&'g str, RawGame)>,
        consume: &mut impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        // one share per pipeline, and none larger than the chunk held (the chunk size: what
        // a pipeline's memory is sized for)
        let mut parts = self.threads.len();
        if let Some(mut held) = self.held.take() {
            parts = parts.max((held.len() + games.len()).div_ceil(held.len().max(1)));
            held.append(&mut games);
            games = held;
        }
        let lengths: Vec<usize> = shares(&games, parts).iter().map(|s| s.len()).collect();
        // the shares cut from the end: the last one first
        let mut cut: Vec<Vec<(&'g str, RawGame)>> = lengths
            .iter()
            .rev()
            .map(|n| games.split_off(games.len().saturating_sub(*n)))
            .collect();
        while let Some(share) = cut.pop() {
            self.submit(Cow::Owned(share), consume)?;
        }
        Ok(())
    }

    /// Shares out the chunk held back, if any ([`Workers::submit_shared`]), waits for every
    /// submitted chunk and hands their results, in order, to `consume`; the threads end.
    ///
    /// Errors: as [`Workers::submit`]; [`Error::Internal`] when a thread panicked.
    pub fn finish(mut self, consume: &mut impl FnMut(T) -> Result<()>) -> Result<()> {
        if self.held.is_some() {
            self.submit_shared(vec![], consume)?;
        }
        self.chunks = None;
        while self.consumed < self.submitted {
            self.consume_ready(consume)?;
            if self.consumed == self.submitted {
                break;
            }
            match self.results.recv() {
                Ok((number, result)) => {
                    self.waiting.insert(number, result);
                }
                Err(_) => break,
            }
        }
        let mut panicked = false;
        for t in self.threads {
            panicked |= t.join().is_err();
        }
        if panicked || self.consumed < self.submitted {
            return Err(Error::Internal("a validation thread panicked".into()));
        }
        Ok(())
    }

    /// Stops after an error: no further chunk is taken (the one held back neither), the
    /// chunks in progress are finished and their results dropped.
    pub fn stop(mut self) {
        self.chunks = None;
        for t in self.threads {
            // a panic was an error already reported, or is one no longer wanted
            let _ = t.join();
        }
    }

    /// Hands the results that follow those handed so far to `consume`.
    fn consume_ready(&mut self, consume: &mut impl FnMut(T) -> Result<()>) -> Result<()> {
        while let Some(result) = self.waiting.remove(&self.consumed) {
            self.consumed += 1;
            consume(result?)?;
        }
        Ok(())
    }
}

/// The result of a joined thread: a panic as [`Error::Internal`] with `panicked`.
fn joined<T>(r: std::thread::Result<Result<T>>, panicked: &str) -> Result<T> {
    r.unwrap_or_else(|_| Err(Error::Internal(panicked.into())))
}

/// `games` cut into at most `n` consecutive shares with about the same number of move
/// tokens each.
fn shares<'a, 'g>(games: &'a [(&'g str, RawGame)], n: usize) -> Vec<&'a [(&'g str, RawGame)]> {
    let total: usize = games.iter().map(|(_, g)| g.moves.len() + 1).sum();
    let mut out = vec![];
    let (mut start, mut acc) = (0, 0);
    for (i, (_, g)) in games.iter().enumerate() {
        acc += g.moves.len() + 1;
        if acc * n >= total * (out.len() + 1) && out.len() + 1 < n {
            out.push(&games[start..=i]);
            start = i + 1;
        }
    }
    out.push(&games[start..]);
    out.retain(|s| !s.is_empty());
    out
}
