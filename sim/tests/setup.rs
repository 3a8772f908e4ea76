//! Cluster construction, configuration checks and the DMA-memory side of `Device`.

use fasthsl_device::{Device, DeviceError};
use fasthsl_sim::{Cluster, Endpoint, SimConfig, SimError, Topology};

fn topo(spec: &str) -> Topology {
    spec.parse().unwrap()
}

#[test]
fn bad_settings_are_rejected() {
    let t = topo("star:2");
    let bad = |cfg: SimConfig| matches!(Cluster::new(&t, cfg), Err(SimError::Config(_)));
    assert!(bad(SimConfig {
        clock_period_ps: 0,
        ..SimConfig::default()
    }));
    assert!(bad(SimConfig {
        max_dma_reads: 0,
        ..SimConfig::default()
    }));
    assert!(bad(SimConfig {
        dma_read_rtt_ns: 250,
        ..SimConfig::default()
    }));
}

#[cfg(not(feature = "trace"))]
#[test]
fn tracing_needs_the_feature() {
    let cfg = SimConfig {
        trace_dir: Some(std::env::temp_dir().join("fasthsl-sim-no-trace")),
        ..SimConfig::default()
    };
    let err = Cluster::new(&topo("star:1"), cfg).unwrap_err();
    assert!(matches!(err, SimError::TraceUnavailable));
    assert!(err.to_string().contains("--features trace"), "{err}");
}

#[cfg(feature = "trace")]
#[test]
fn traces_are_written_per_model() {
    let dir = std::env::temp_dir().join(format!("fasthsl-sim-trace-{}", std::process::id()));
    let cfg = SimConfig {
        trace_dir: Some(dir.clone()),
        ..SimConfig::default()
    };
    let c = Cluster::new(&topo("full:2"), cfg).unwrap();
    c.device(0).bar_read32(0).unwrap();
    c.flush_traces();
    drop(c);
    for f in ["nic0.fst", "nic1.fst", "router0.fst", "router1.fst"] {
        let len = std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 0, "{f} written");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dma_memory_is_per_node_and_checked() {
    let c = Cluster::new(
        &topo("star:2"),
        SimConfig {
            host_mem_bytes: 64 << 10,
            ..SimConfig::default()
        },
    )
    .unwrap();
    let (d0, d1) = (c.device(0), c.device(1));
    let a = d0.dma_alloc(100).unwrap();
    let b = d1.dma_alloc(100).unwrap();
    assert_eq!(a.iova() % 4096, 0);
    assert_ne!(
        a.iova() >> 32,
        b.iova() >> 32,
        "nodes have disjoint IOVA windows"
    );
    assert_eq!(d0.mem_read_u64(&a, 8).unwrap(), 0, "zeroed");
    d0.mem_write_u64(&a, 8, 0x1122_3344_5566_7788).unwrap();
    assert_eq!(d0.mem_read_u64(&a, 8).unwrap(), 0x1122_3344_5566_7788);
    assert!(matches!(
        d0.mem_write(&a, 96, &[0; 8]),
        Err(DeviceError::DmaBounds { .. })
    ));
    assert!(matches!(
        d1.mem_read_u64(&a, 0),
        Err(DeviceError::UnknownBuffer { .. })
    ));
    assert!(matches!(
        d0.dma_alloc(1 << 20),
        Err(DeviceError::OutOfMemory { .. })
    ));
    d0.dma_free(a).unwrap();
    assert_eq!(c.cycles(), 0, "memory access takes no modeled time");
    assert_eq!(c.iommu_fault_count(), 0);
}

#[test]
fn links_are_listed_both_ways() {
    let c = Cluster::new(&topo("full:3"), SimConfig::default()).unwrap();
    let links = c.link_flits();
    // 3 NIC links and 3 router cables, each both ways.
    assert_eq!(links.len(), 12);
    assert!(links.iter().all(|l| l.flits == 0));
    assert!(links
        .iter()
        .any(|l| l.from == Endpoint::Router(0, 2) && l.to == Endpoint::Router(2, 1)));
    assert!(c.host_quiet());
}
