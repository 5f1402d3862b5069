//! Criterion benchmark: legal move generation over batches of real-game positions
//! (tests/data/oracle_positions.csv, cycled), sqlchess's pipeline against shakmaty (native
//! move generator) in one group. Throughput is reported in positions per second.
//! `sqlchess` is the full API (legal moves with SAN, check and mate), `sqlchess_hash_joins`
//! the same with DataFusion's hash joins for the static tables (no index lookups);
//! `sqlchess_generation` runs only the legal-move stages.

mod common;
use common::{fens, rows};

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};
use sqlchess::{Engine, PipelineConfig, Setup};

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let engine: Engine = rt
        .block_on(Engine::new(PipelineConfig::default()))
        .expect("engine");
    // the same stages with DataFusion's hash joins for the static tables (no index lookups)
    let hashed: Engine = rt
        .block_on(Engine::new(PipelineConfig {
            static_lookups: false,
            ..PipelineConfig::default()
        }))
        .expect("engine");
    let fens = fens();
    let mut group = c.benchmark_group("legal_moves");
    group.sample_size(10);
    for n in [1usize, 100, 10_000] {
        let batch: Vec<&String> = fens.iter().cycle().take(n).map(|(f, _)| f).collect();
        let want: usize = fens.iter().cycle().take(n).map(|(_, c)| c).sum();
        let setups: Vec<Setup> = batch
            .iter()
            .map(|f| Setup::from_fen(f).expect("fen"))
            .collect();
        let positions: Vec<Chess> = batch
            .iter()
            .map(|f| {
                f.parse::<Fen>()
                    .expect("fen")
                    .into_position(CastlingMode::Standard)
                    .expect("position")
            })
            .collect();
        // the results the timed loops compute, checked once before timing
        let full = rt
            .block_on(engine.legal_moves(&setups))
            .expect("legal moves");
        assert_eq!(rows(&full), want, "legal moves of {n} positions");
        let generated = rt
            .block_on(async {
                engine.load(&setups).await?;
                engine.run_legal().await
            })
            .expect("legal moves");
        assert_eq!(rows(&generated), want, "generated moves of {n} positions");
        let native: usize = positions.iter().map(|p| p.legal_moves().len()).sum();
        assert_eq!(native, want, "shakmaty's moves of {n} positions");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("sqlchess", n), &setups, |b, s| {
            b.iter(|| {
                rt.block_on(engine.legal_moves(black_box(s)))
                    .expect("legal moves")
            })
        });
        group.bench_with_input(
            BenchmarkId::new("sqlchess_hash_joins", n),
            &setups,
            |b, s| {
                b.iter(|| {
                    rt.block_on(hashed.legal_moves(black_box(s)))
                        .expect("legal moves")
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("sqlchess_generation", n),
            &setups,
            |b, s| {
                b.iter(|| {
                    rt.block_on(async {
                        engine.load(black_box(s)).await?;
                        engine.run_legal().await
                    })
                    .expect("legal moves")
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("shakmaty", n), &positions, |b, p| {
            b.iter(|| {
                p.iter()
                    .map(|pos| black_box(pos).legal_moves().len())
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
