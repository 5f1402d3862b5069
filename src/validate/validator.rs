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
    /// `threads` pipelines (at least one) of `config` with one target partition each.
    ///
    /// Errors: as [`Engine::new`].
    pub async fn new(threads: usize, config: PipelineConfig) -> Result<Validator> {
        let mut engines = vec![];
        for _ in 0..threads.max(1) {
            engines.push(
                Engine::new(PipelineConfig {
                    target_partitions: 1,
                    ..config.clone()
                })
                .await?,
            );
        }
        Ok(Validator { engines })
    }

    /// The pipelines (for their per-stage profiles).
    pub fn engines(&self) -> &[Engine] {
        &self.engines
    }

    /// [`validate_games_with`] over the shares of `games`, each on its own thread with its
    /// own single-threaded tokio runtime. Blocks the calling thread until all are done.
    ///
    /// Errors: as [`super::validate_games`]; [`Error::Io`] when a thread's runtime cannot start;
    /// [`Error::Internal`] when a thread panicked.
    pub fn validate(
        &self,
        games: &[(&str, RawGame)],
        options: ValidateOptions,
    ) -> Result<Validation> {
        let shares = shares(games, self.engines.len());
        let results: Vec<Result<Validation>> = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .iter()
                .zip(&self.engines)
                .map(|(share, engine)| {
                    scope.spawn(move || {
                        thread_runtime()?.block_on(validate_games_with(engine, share, options))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::Internal("a validation thread panicked".into()))
                    })
                })
                .collect()
        });
        let mut out = Validation::default();
        for r in results {
            let mut v = r?;
            out.reports.append(&mut v.reports);
            out.plies.append(&mut v.plies);
        }
        Ok(out)
    }
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
