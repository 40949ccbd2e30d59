//! Bench throughput against an endpoint that batches. The measuring run is ignored by
//! default (it asserts only that every episode finished); a scaled-down run without
//! timing goes with every `cargo test`:
//!
//! ```sh
//! cargo test --release --test throughput -- --ignored --nocapture
//! ```
//!
//! A scripted server on loopback answers each chat call in 300 ms times the number of
//! batches of 8 the requests in flight fill (flat up to 8 at once, like vLLM or a
//! llama.cpp server with 8 slots); 8 episodes of 6 steps on `coin` are played at
//! `--jobs` 1, 2, 4 and 8, and the table gives episodes per hour, LLM calls per second
//! and the speed-up against one job, measured in the same run.

mod common;

use std::time::Instant;

use common::{Scripted, bin, read_jsonl, setup_bridge};

#[test]
#[ignore]
fn bench_throughput_against_a_batching_endpoint() {
    let rows = throughput(&[1, 2, 4, 8], 8, 6, 300);
    let base = rows[0].1;
    println!("| jobs | wall s | episodes per hour | LLM calls per second | speed-up |");
    println!("|---|---|---|---|---|");
    for (jobs, secs, calls) in &rows {
        println!(
            "| {jobs} | {secs:.1} | {:.0} | {:.2} | {:.2}x |",
            8.0 * 3600.0 / secs,
            *calls as f64 / secs,
            base / secs
        );
    }
}

/// The same bench scaled down to run with every `cargo test` (4 episodes of 2 steps,
/// 1 and 2 jobs, 50 ms answers): every episode finishes and makes its calls. It times
/// nothing.
#[test]
fn bench_jobs_finish_every_episode_scaled_down() {
    let rows = throughput(&[1, 2], 4, 2, 50);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|(_, _, calls)| *calls >= 4 * 2), "{rows:?}");
}

/// Play `runs` episodes of `steps` steps on `coin` at each of `jobs`, against answers
/// of `latency_ms` per batch of 8; per job count: (jobs, wall seconds, LLM calls).
fn throughput(jobs: &[usize], runs: usize, steps: u32, latency_ms: u64) -> Vec<(usize, f64, u64)> {
    setup_bridge();
    let game = common::root().join("games/coin.z8");
    let mut rows = Vec::new();
    for &jobs in jobs {
        let server = Scripted::start(&[]);
        server.script.lock().unwrap().batching = Some((latency_ms, 8));
        let work = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let out = std::process::Command::new(bin())
            .current_dir(work.path())
            .env("OPENAI_BASE_URL", &server.base_url)
            .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
            .env("ARIADNE_NO_PROGRESS", "1")
            .args(["bench", "--games"])
            .arg(&game)
            .args([
                "--runs",
                &runs.to_string(),
                "--max-steps",
                &steps.to_string(),
            ])
            .args(["--out", "b", "--jobs"])
            .arg(jobs.to_string())
            .output()
            .unwrap();
        let secs = started.elapsed().as_secs_f64();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let episodes = read_jsonl(&work.path().join("b/episodes.jsonl"));
        assert_eq!(episodes.len(), runs);
        let calls: u64 = episodes
            .iter()
            .map(|e| e["llm_calls"].as_u64().unwrap())
            .sum();
        rows.push((jobs, secs, calls));
    }
    rows
}
