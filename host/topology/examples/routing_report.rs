//! Routing figures of merit, one JSON object per topology on stdout: path lengths
//! (routed and shortest), table sizes, and the saturation throughput under uniform
//! traffic against the bisection bound, for the deadlock-free tables and, for
//! comparison, for shortest-path tables (deadlock-prone where the network has a cycle).
//! For the adaptive tables: their dependency graph (the union of all allowed routes)
//! and the share of the routing function's alternatives the 8-entry tables keep
//! (over every router input and destination its table routes).
//! Deterministic: computed from the tables, not timed.
//!
//! `cargo run --release -p fasthsl-topology --example routing_report [SPEC...]`

use fasthsl_topology::routing::{adaptive_ports, shortest_path_tables};
use fasthsl_topology::{analyze, check, Topology};

fn opt(v: Option<f64>) -> String {
    v.map_or("null".into(), |x| format!("{x:.3}"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let specs: Vec<String> = if args.is_empty() {
        [
            "star:8",
            "full:8",
            "ring:8",
            "ring:16",
            "ring:64",
            "mesh:4x4",
            "mesh:8x8",
            "torus:4x4",
            "torus:8x8",
            "hypercube:4",
            "hypercube:6",
        ]
        .map(String::from)
        .to_vec()
    } else {
        args
    };
    for spec in specs {
        let t: Topology = spec.parse()?;
        let rep = check(&t, &t.routing_tables()?)?;
        let sp = analyze(&t, &shortest_path_tables(&t)).ok();
        let sp_deadlock_free = check(&t, &shortest_path_tables(&t)).is_ok();
        let tp = rep.throughput.as_ref();
        let ada = t.adaptive_tables()?;
        let ada_rep = check(&t, &ada)?;
        let (mut ideal, mut kept) = (0u32, 0u32);
        for rt in &ada {
            for table in &rt.inputs {
                for d in 0..t.nodes() {
                    let e = table
                        .iter()
                        .find(|iv| (usize::from(iv.lo)..=usize::from(iv.hi)).contains(&d));
                    if let Some(iv) = e {
                        let want = adaptive_ports(&t, rt.router, d);
                        ideal += want.count_ones();
                        kept += (iv.amask & want).count_ones();
                    }
                }
            }
        }
        let kept_share = if ideal == 0 {
            "null".to_string()
        } else {
            format!("{:.3}", f64::from(kept) / f64::from(ideal))
        };
        println!(
            "{{\"topology\":\"{t}\",\"adaptive_cdg_edges\":{},\"adaptive_max_entries\":{},\"adaptive_alternatives_kept\":{kept_share},\"nodes\":{},\"mean_hops\":{:.3},\"mean_shortest_hops\":{:.3},\"max_hops\":{},\"max_entries\":{},\"cdg_edges\":{},\"bisection_links\":{},\"busiest_link_routes\":{},\"saturation\":{:.3},\"bisection_bound\":{},\"bisection_fraction\":{},\"shortest_path_bisection_fraction\":{},\"shortest_path_deadlock_free\":{sp_deadlock_free}}}",
            ada_rep.dependencies,
            ada_rep.max_entries,
            rep.nodes,
            rep.mean_hops,
            rep.mean_shortest_hops,
            rep.max_hops,
            rep.max_entries,
            rep.dependencies,
            t.bisection_links().map_or("null".into(), |b| b.to_string()),
            tp.and_then(|x| x.busiest_link).map_or(0, |(_, l)| l),
            tp.map_or(0.0, |x| x.saturation),
            opt(tp.and_then(|x| x.bisection_bound)),
            opt(tp.and_then(|x| x.bisection_fraction)),
            opt(sp.and_then(|r| r.throughput).and_then(|x| x.bisection_fraction)),
        );
    }
    Ok(())
}
