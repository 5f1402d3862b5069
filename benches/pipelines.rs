//! Criterion benchmark: our pipeline against the seed replica on the same positions.
//!
//! Group `pipelines`: batches of 1, 100 and 1,000 real-game positions
//! (tests/data/oracle_positions.csv, cycled), throughput in positions per second:
//!
//! * `fide_full`: [`Engine::legal_moves`] — legal moves with SAN, check and mate;
//! * `fide_gen`: [`Engine::load`] + [`Engine::run_legal`] — generation only (stage
//!   `legal_moves`), the work that matches the seed's;
//! * `seed`: [`SeedPipeline::load_fens`] + [`SeedPipeline::all_moves`] — the post's
//!   "similar WITH statement which generates all possible moves" (`+stage13`).
//!
//! Every iteration loads its positions. Group `single_move`: validating one move in the
//! standard position (the seed's own use case), `Nf3` / g1-f3:
//!
//! * `fide`: [`Engine::play_tokens`] (loading, legal moves, token resolution and applying
//!   the move, per iteration);
//! * `fide_hash_joins`: the same with DataFusion's hash joins for the static tables
//!   ([`PipelineConfig::static_lookups`] off);
//! * `seed`: [`SeedPipeline::validate_move`] (the post's statement; the game is loaded once,
//!   as it sits in the seed's database tables).
//!
//! `cargo bench --bench pipelines` runs both groups in a few minutes (10 samples each).

mod common;
use common::{fens, rows};

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use sqlchess::seed::SeedPipeline;
use sqlchess::{Engine, PipelineConfig, Setup};

/// The seed's move count (`+stage13`) for the first `n` positions of the fixture, cycled:
/// fewer than the legal moves, because of the seed's defects (no underpromotion, ...).
fn seed_moves(n: usize) -> usize {
    match n {
        1 => 19,
        100 => 2_918,
        1000 => 28_375,
        _ => unreachable!("no seed count for {n}"),
    }
}

fn batches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let config = PipelineConfig::default();
    let engine: Engine = rt.block_on(Engine::new(config.clone())).expect("engine");
    let mut seed = rt
        .block_on(SeedPipeline::with_partitions(config.target_partitions))
        .expect("seed");
    let fens = fens();
    let mut group = c.benchmark_group("pipelines");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(4));
    for n in [1usize, 100, 1000] {
        let setups: Vec<Setup> = fens
            .iter()
            .cycle()
            .take(n)
            .map(|(f, _)| Setup::from_fen(f).expect("fen"))
            .collect();
        let want: usize = fens.iter().cycle().take(n).map(|(_, c)| c).sum();
        if n == 1000 {
            // (the profile's 32,869 legal_moves rows are these and the 3,783 replies to the
            // checking moves, for mate detection)
            assert_eq!(want, 29_086);
        }
        // the results the timed loops compute, checked once before timing
        let full = rt
            .block_on(engine.legal_moves(&setups))
            .expect("legal moves");
        assert_eq!(rows(&full), want, "fide_full, {n} positions");
        let generated = rt
            .block_on(async {
                engine.load(&setups).await?;
                engine.run_legal().await
            })
            .expect("run_legal");
        assert_eq!(rows(&generated), want, "fide_gen, {n} positions");
        let seeded = rt
            .block_on(async {
                seed.load_fens(&setups).await?;
                seed.all_moves().await
            })
            .expect("seed all_moves");
        assert_eq!(rows(&seeded), seed_moves(n), "seed, {n} positions");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("fide_full", n), &setups, |b, s| {
            b.iter(|| {
                rt.block_on(engine.legal_moves(black_box(s)))
                    .expect("legal moves")
            })
        });
        group.bench_with_input(BenchmarkId::new("fide_gen", n), &setups, |b, s| {
            b.iter(|| {
                rt.block_on(async {
                    engine.load(black_box(s)).await?;
                    engine.run_legal().await
                })
                .expect("run_legal")
            })
        });
        group.bench_with_input(BenchmarkId::new("seed", n), &setups, |b, s| {
            b.iter(|| {
                rt.block_on(async {
                    seed.load_fens(black_box(s)).await?;
                    seed.all_moves().await
                })
                .expect("seed all_moves")
            })
        });
    }
    group.finish();
}

fn single_move(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let config = PipelineConfig::default();
    let engine: Engine = rt.block_on(Engine::new(config.clone())).expect("engine");
    // the same stages with DataFusion's hash joins for the static tables (no index lookups)
    let hashed: Engine = rt
        .block_on(Engine::new(PipelineConfig {
            static_lookups: false,
            ..config.clone()
        }))
        .expect("engine");
    let mut seed = rt
        .block_on(SeedPipeline::with_partitions(config.target_partitions))
        .expect("seed");
    let start = Setup::standard();
    rt.block_on(seed.load_fens(&[start])).expect("load");
    let mv = seed.move_from_uci(0, "g1f3").expect("g1f3");
    // both accept the move
    let ours = rt
        .block_on(engine.play_tokens(&[start], &["Nf3"]))
        .expect("play_tokens");
    assert!(ours[0].is_ok(), "Nf3 refused: {:?}", ours[0]);
    let theirs = rt.block_on(seed.validate_move(&mv)).expect("validate_move");
    assert!(
        theirs.iter().map(|b| b.num_rows()).sum::<usize>() > 0,
        "the seed refused g1f3"
    );

    let mut group = c.benchmark_group("single_move");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("fide", |b| {
        b.iter(|| {
            rt.block_on(engine.play_tokens(black_box(&[start]), black_box(&["Nf3"])))
                .expect("play_tokens")
        })
    });
    group.bench_function("fide_hash_joins", |b| {
        b.iter(|| {
            rt.block_on(hashed.play_tokens(black_box(&[start]), black_box(&["Nf3"])))
                .expect("play_tokens")
        })
    });
    group.bench_function("seed", |b| {
        b.iter(|| {
            rt.block_on(seed.validate_move(black_box(&mv)))
                .expect("validate_move")
        })
    });
    group.finish();
}

criterion_group!(benches, batches, single_move);
criterion_main!(benches);
