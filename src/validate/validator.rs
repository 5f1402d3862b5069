//! Validation on several pipelines at once, one OS thread each ([`Validator`]).

use crate::engine::{Engine, thread_runtime};
use crate::error::{Error, Result};
use crate::pgn::RawGame;
use crate::session::PipelineConfig;

use super::{ValidateOptions, Validation, validate_games_with};

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
    /// share of its memory limit each ([`crate::session::memory::MemoryBudget::shares`]), made
    /// side by side, one OS thread each (planning their stages is CPU-bound; in a fresh
    /// process each also builds the static tables, as none is cached yet). Blocks the
    /// calling thread until all are made.
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
        let engines = std::thread::scope(|scope| {
            let handles: Vec<_> = configs
                .map(|config| scope.spawn(|| thread_runtime()?.block_on(Engine::new(config))))
                .collect();
            // every thread joined before an error is returned
            let made: Vec<Result<Engine>> = handles
                .into_iter()
                .map(|h| joined(h.join(), "a thread making a pipeline panicked"))
                .collect();
            made.into_iter().collect::<Result<Vec<Engine>>>()
        })?;
        Ok(Validator { engines })
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
        let shares = shares(games, self.engines.len());
        let finish = &finish;
        std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .iter()
                .zip(&self.engines)
                .map(|(share, engine)| {
                    scope.spawn(move || {
                        let v = thread_runtime()?
                            .block_on(validate_games_with(engine, share, options))?;
                        finish(v)
                    })
                })
                .collect();
            // every thread is joined, also after an error
            let mut first_error = None;
            for h in handles {
                let r =
                    joined(h.join(), "a validation thread panicked").and_then(
                        |t| match first_error {
                            None => consume(t),
                            Some(_) => Ok(()),
                        },
                    );
                if let Err(e) = r {
                    first_error.get_or_insert(e);
                }
            }
            first_error.map_or(Ok(()), Err)
        })
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
