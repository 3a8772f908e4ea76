//! The long router soak (`make soak`): `fasthsl_sim::traffic::soak` on every topology
//! and both router organisations, one JSON object per run on stdout, a summary on
//! stderr; exit status 1 if any run failed.
//!
//! ```text
//! cargo run --release -p fasthsl-sim --example soak -- [--cycles N] [--seed S]
//!     [--topology SPEC,...] [--router fifo,voq] [--adaptive SHARE] [--bcast SHARE]
//!     [--jobs J]
//! ```
//! Defaults: 10 000 000 cycles, seed 1, star:8 full:8 ring:16 mesh:4x4 torus:4x4
//! hypercube:6 ring:64 mesh:8x8, both organisations, a quarter of the good packets
//! adaptive and 3 % broadcasts (`SoakConfig::new`), 1 job. Wall time is reported per
//! run; it is the only non-deterministic number here.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use fasthsl_sim::traffic::soak::{soak, SoakConfig};
use fasthsl_sim::traffic::RouterKind;
use fasthsl_sim::Topology;

const DEFAULT_TOPOLOGIES: &str =
    "star:8,full:8,ring:16,mesh:4x4,torus:4x4,hypercube:6,ring:64,mesh:8x8";

struct Args {
    cycles: u64,
    seed: u64,
    topologies: Vec<(String, Topology)>,
    routers: Vec<RouterKind>,
    adaptive: Option<f64>,
    bcast: Option<f64>,
    jobs: usize,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        cycles: 10_000_000,
        seed: 1,
        topologies: Vec::new(),
        routers: vec![RouterKind::Fifo, RouterKind::Voq],
        adaptive: None,
        bcast: None,
        jobs: 1,
    };
    let mut topo = DEFAULT_TOPOLOGIES.to_string();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--cycles" => {
                a.cycles = val()?
                    .replace('_', "")
                    .parse()
                    .map_err(|_| "--cycles: not a number")?
            }
            "--seed" => a.seed = val()?.parse().map_err(|_| "--seed: not a number")?,
            "--topology" => topo = val()?,
            "--router" => {
                a.routers = val()?
                    .split(',')
                    .map(|s| s.parse::<RouterKind>().map_err(|e| e.to_string()))
                    .collect::<Result<_, _>>()?
            }
            "--adaptive" => {
                let v: f64 = val()?.parse().map_err(|_| "--adaptive: not a number")?;
                if !(0.0..=1.0).contains(&v) {
                    return Err("--adaptive: a share within 0..=1".into());
                }
                a.adaptive = Some(v);
            }
            "--bcast" => {
                let v: f64 = val()?.parse().map_err(|_| "--bcast: not a number")?;
                if !(0.0..=1.0).contains(&v) {
                    return Err("--bcast: a share within 0..=1".into());
                }
                a.bcast = Some(v);
            }
            "--jobs" => {
                a.jobs = val()?.parse().map_err(|_| "--jobs: not a number")?;
                if a.jobs == 0 {
                    return Err("--jobs must be at least 1".into());
                }
            }
            "-h" | "--help" => {
                return Err("usage: soak [--cycles N] [--seed S] [--topology SPEC,...] \
                            [--router fifo,voq] [--adaptive SHARE] [--bcast SHARE] [--jobs J]"
                    .into())
            }
            _ => return Err(format!("unknown argument '{flag}' (try --help)")),
        }
    }
    for spec in topo.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let t = spec
            .parse::<Topology>()
            .map_err(|e| format!("--topology {spec}: {e}"))?;
        a.topologies.push((spec.to_string(), t));
    }
    Ok(a)
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("soak: {e}");
            return ExitCode::from(2);
        }
    };
    let runs: Vec<(String, Topology, RouterKind)> = a
        .topologies
        .iter()
        .flat_map(|(s, t)| a.routers.iter().map(|&r| (s.clone(), t.clone(), r)))
        .collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let out = Mutex::new(());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..a.jobs.min(runs.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((spec, t, router)) = runs.get(i) else {
                    break;
                };
                let mut c = SoakConfig::new(*router, t.clone(), a.cycles, a.seed);
                if let Some(share) = a.adaptive {
                    c.adaptive = share;
                }
                if let Some(share) = a.bcast {
                    c.bcast = share;
                }
                let t0 = Instant::now();
                let res = soak(&c);
                let wall = t0.elapsed().as_secs_f64();
                let head = format!(
                    "\"topology\":\"{spec}\",\"router\":\"{router}\",\"seed\":{},\
                     \"traffic_cycles\":{},\"wall_s\":{wall:.1}",
                    a.seed, a.cycles
                );
                let _g = out.lock().expect("stdout lock");
                match res {
                    Ok(r) => {
                        println!(
                            "{{{head},\"ok\":true,\"cycles\":{},\"packets_sent\":{},\
                             \"packets_delivered\":{},\"flits_delivered\":{},\
                             \"eep_delivered\":{},\"cut_short\":{},\"overlong_sent\":{},\"adaptive_sent\":{},\
                             \"bcast_sent\":{},\"bcast_copies\":{},\"dropped\":{},\"rt_drop\":{},\"rt_eep\":{},\"accepted\":{:.4},\
                             \"max_latency\":{},\"slowest\":\"{}\",\"max_network_latency\":{},\"longest_idle\":{},\
                             \"router_cycles_per_s\":{:.0}}}",
                            r.cycles,
                            r.packets_sent,
                            r.packets_delivered,
                            r.flits_delivered,
                            r.eep_delivered,
                            r.cut_short,
                            r.overlong_sent,
                            r.adaptive_sent,
                            r.bcast_sent,
                            r.bcast_copies,
                            r.dropped,
                            r.rt_drop,
                            r.rt_eep,
                            r.accepted,
                            r.max_latency,
                            r.slowest.map_or(String::new(), |d| format!(
                                "{}->{} #{} created {} injected {} delivered {}",
                                d.src, d.dest, d.seq, d.created, d.injected, d.delivered
                            )),
                            r.max_network_latency,
                            r.longest_idle,
                            (r.cycles * t.routers() as u64) as f64 / wall.max(1e-9)
                        );
                        eprintln!(
                            "soak: {spec} {router}: ok, {} cycles, {} packets checked ({} broadcast \
                             copies of {} broadcasts), {wall:.1} s",
                            r.cycles, r.packets_delivered, r.bcast_copies, r.bcast_sent
                        );
                    }
                    Err(e) => {
                        failed.fetch_add(1, Ordering::Relaxed);
                        let msg = e.to_string().replace('\\', "\\\\").replace('"', "\\\"");
                        let msg = msg.replace('\n', "\\n");
                        println!("{{{head},\"ok\":false,\"error\":\"{msg}\"}}");
                        eprintln!("soak: {spec} {router}: FAILED after {wall:.1} s: {e}");
                    }
                }
            });
        }
    });
    let f = failed.load(Ordering::Relaxed);
    eprintln!(
        "soak: {} run(s), {f} failed, {:.1} s wall",
        runs.len(),
        started.elapsed().as_secs_f64()
    );
    if f == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
