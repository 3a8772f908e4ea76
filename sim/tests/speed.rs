//! Simulation speed (cycles per wall-clock second), idle and under load. Not a
//! correctness test; run it optimized:
//! `cargo test --release -p fasthsl-sim --test speed -- --ignored --nocapture`

mod common;

use std::time::Instant;

use common::*;
use fasthsl_contract::{status, LmeDesc, LmrEntry};
use fasthsl_device::Device;

/// CPU seconds this thread has used (the machine may be shared: wall time alone
/// understates the simulator's speed when other jobs compete for the cores).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    f.get(11)
        .zip(f.get(12))
        .map(|(u, s)| (u + s) as f64 / 100.0)
        .unwrap_or(f64::NAN)
}

/// A rate over a run: (cycles per wall second, cycles per CPU second).
struct Rate(f64, f64);

impl Rate {
    fn measure(cycles: u64, run: impl FnOnce()) -> Rate {
        let (t, cpu) = (Instant::now(), cpu_secs());
        run();
        Rate(
            cycles as f64 / t.elapsed().as_secs_f64(),
            cycles as f64 / (cpu_secs() - cpu),
        )
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.0} kcycles/s wall ({:.0} per CPU second)",
            self.0 / 1e3,
            self.1 / 1e3
        )
    }
}

/// Speed of `c.step(cycles)` with nothing to do.
fn idle(spec: &str, cycles: u64) -> Rate {
    let c = cluster(spec);
    program_routes(&c);
    c.step(1000);
    Rate::measure(cycles, || c.step(cycles))
}

/// Every node streams `msg`-byte remote writes to the next node, keeping its LME ring
/// full, for `cycles` cycles. Returns the speed and payload bytes delivered per cycle.
fn busy(spec: &str, cycles: u64, msg: usize) -> (Rate, f64) {
    let c = cluster(spec);
    program_routes(&c);
    let nodes = c.topology().nodes();
    let mut ns: Vec<Node> = (0..nodes).map(|n| bring_up(&c, n, msg)).collect();
    let srcs: Vec<_> = ns.iter().map(|n| n.dev.dma_alloc(msg).unwrap()).collect();
    let mut done = vec![0u32; nodes]; // next LME slot to complete
    let mut delivered = 0u64;
    let start_cycle = c.cycles();
    let rate = Rate::measure(cycles, || {
        while c.cycles() - start_cycle < cycles {
            for n in 0..nodes {
                // Reap completions, then top the ring up (one slot stays empty: full != empty).
                loop {
                    let mut b = [0u8; 32];
                    ns[n]
                        .dev
                        .mem_read(&ns[n].lme, done[n] as usize * 32, &mut b)
                        .unwrap();
                    if LmeDesc::from_bytes(&b).status & status::DONE == 0 {
                        break;
                    }
                    ns[n]
                        .dev
                        .mem_write(&ns[n].lme, done[n] as usize * 32, &[0; 32])
                        .unwrap();
                    done[n] = (done[n] + 1) % RING;
                }
                while (ns[n].lme_prod + 1) % RING != done[n] {
                    let dest = ((n + 1) % nodes) as u16;
                    let remote = ns[(n + 1) % nodes].rxwin.iova();
                    let d = desc(srcs[n].iova(), remote, msg as u32, dest, 0);
                    post(&mut ns[n], d);
                }
                // Consume LMR entries without waiting.
                loop {
                    let off = ns[n].lmr_cons as usize * LmrEntry::BYTES;
                    let mut b = [0u8; 32];
                    ns[n].dev.mem_read(&ns[n].lmr, off, &mut b).unwrap();
                    let e = LmrEntry::from_bytes(&b);
                    if e.status & status::DONE == 0 {
                        break;
                    }
                    delivered += u64::from(e.len);
                    wait_lmr(&mut ns[n], 1);
                }
            }
            c.step(500);
        }
    });
    let ran = c.cycles() - start_cycle;
    assert_eq!(c.iommu_fault_count(), 0);
    (rate, delivered as f64 / ran as f64)
}

#[test]
#[ignore = "benchmark; run with --release -- --ignored --nocapture"]
fn sim_speed() {
    // SIM_SPEED=full:2 (say) measures one topology only, e.g. under `perf stat`.
    let only = std::env::var("SIM_SPEED").ok();
    // SIM_SPEED_CYCLES scales the runs down, e.g. for instruction counting under callgrind.
    let scale: Option<u64> = std::env::var("SIM_SPEED_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok());
    for (spec, n) in [
        ("star:2", 1_000_000),
        ("full:2", 1_000_000),
        ("full:8", 200_000),
    ] {
        if only.as_deref().is_some_and(|o| o != spec) {
            continue;
        }
        let n = scale.unwrap_or(n);
        let idle = idle(spec, n);
        let (busy, bpc) = busy(spec, n / 2, 16 << 10);
        eprintln!("{spec} idle: {idle}");
        eprintln!("{spec} busy: {busy}, {bpc:.2} payload bytes/cycle delivered");
    }
}
