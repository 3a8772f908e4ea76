//! Bringing up every node, as the demo and the benchmarks need it: of a simulated
//! cluster in this process, or of cards named by `--device` (real cards through VFIO,
//! or cards served by `fasthsl serve` over vfio-user). The benchmarks are written once
//! against [`Testbed`] and the driver's `Device` trait; they take time from the cards
//! themselves ([`Clock`]), so the simulated path keeps its modeled numbers exactly.

use std::rc::Rc;

use anyhow::{bail, ensure, Context, Result};
use fasthsl_driver::{forward_device, Card, CardConfig, Device, Routing};
use fasthsl_sim::{Cluster, SimConfig, SimDevice};
use fasthsl_topology::Topology;
use fasthsl_vfio::VfioDevice;
use fasthsl_vfio_user::{sim_regs, VfioUserDevice};
use serde_json::{json, Value};

/// Opens and configures every node's card with a receive window of `rx_window(node)`
/// bytes, calls `after_configure` on each card right after its configuration (so buffers
/// allocated there keep their place in the node's DMA memory), then programs every
/// router from its managing node.
pub fn configured_cards(
    cluster: &Cluster,
    topology: &Topology,
    rx_window: impl Fn(usize) -> usize,
    after_configure: impl FnMut(usize, &mut Card<SimDevice>) -> Result<()>,
) -> Result<Vec<Card<SimDevice>>> {
    configured_cards_routed(
        cluster,
        topology,
        Routing::Deterministic,
        rx_window,
        after_configure,
    )
}

/// [`configured_cards`] with the routing tables of `routing`.
pub fn configured_cards_routed(
    cluster: &Cluster,
    topology: &Topology,
    routing: Routing,
    rx_window: impl Fn(usize) -> usize,
    after_configure: impl FnMut(usize, &mut Card<SimDevice>) -> Result<()>,
) -> Result<Vec<Card<SimDevice>>> {
    let devs = (0..topology.nodes()).map(|n| cluster.device(n)).collect();
    configure_all(devs, topology, routing, rx_window, after_configure)
}

fn configure_all<D: Device>(
    devs: Vec<D>,
    topology: &Topology,
    routing: Routing,
    rx_window: impl Fn(usize) -> usize,
    mut after_configure: impl FnMut(usize, &mut Card<D>) -> Result<()>,
) -> Result<Vec<Card<D>>> {
    let mut cards = Vec::with_capacity(topology.nodes());
    for (n, dev) in devs.into_iter().enumerate() {
        let name = dev.name();
        let mut card = Card::open(dev).with_context(|| format!("opening node {n} ({name})"))?;
        let mut cc = CardConfig::for_node(topology, n as u16);
        cc.rx_window_bytes = rx_window(n);
        card.configure(cc)
            .with_context(|| format!("configuring node {n}"))?;
        after_configure(n, &mut card)?;
        cards.push(card);
    }
    for (n, card) in cards.iter().enumerate() {
        card.program_routes_with(topology, routing)
            .with_context(|| format!("programming the routers of node {n} ({routing} routing)"))?;
    }
    Ok(cards)
}

/// Where a benchmark's times come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Clock {
    /// Core clock cycles counted by the (simulated) card: modeled time, deterministic
    /// for a seed with one driving process.
    Modeled { ns_per_cycle: f64 },
    /// The host's monotonic clock (real cards: they count no cycles the host can read).
    Wall,
}

impl Clock {
    /// The name the JSON output uses.
    pub fn name(self) -> &'static str {
        match self {
            Clock::Modeled { .. } => "modeled_cycles",
            Clock::Wall => "host_wall_clock",
        }
    }

    /// The clock's count now, read through `dev`: cycles, or nanoseconds on the wall clock.
    pub fn ticks<D: Device>(self, dev: &D) -> u64 {
        match self {
            Clock::Modeled { .. } => dev.cycles().unwrap_or_else(|| dev.now_ns()),
            Clock::Wall => dev.now_ns(),
        }
    }

    /// Nanoseconds per tick.
    pub fn ns_per_tick(self) -> f64 {
        match self {
            Clock::Modeled { ns_per_cycle } => ns_per_cycle,
            Clock::Wall => 1.0,
        }
    }

    /// Whether ticks are core clock cycles.
    pub fn counts_cycles(self) -> bool {
        matches!(self, Clock::Modeled { .. })
    }
}

/// A device a benchmark can run on: the driver's `Device`, plus what the benchmarks
/// report about it.
/// `Clone` gives another handle on the same card (e.g. for a driver `Context`).
pub trait BenchDevice: Device + Clone {
    /// DMAs of this card an IOMMU refused, where the backend can count them.
    fn iommu_faults(&self) -> Option<u64>;
}

impl BenchDevice for SimDevice {
    fn iommu_faults(&self) -> Option<u64> {
        Some(SimDevice::iommu_faults(self).len() as u64)
    }
}

/// A card named by `--device`. Clones share the one open device (a context's handle in
/// this process, not a second mapping).
#[derive(Clone)]
pub enum CardDevice {
    /// A real card through Linux VFIO.
    Vfio(Rc<VfioDevice>),
    /// A card behind a vfio-user socket (`fasthsl serve`).
    User(Rc<VfioUserDevice>),
}

impl CardDevice {
    fn dev(&self) -> &dyn Device {
        match self {
            CardDevice::Vfio(d) => d.as_ref(),
            CardDevice::User(d) => d.as_ref(),
        }
    }
}

impl Device for CardDevice {
    // mem_*_u64 too: VFIO's are single volatile accesses (status words the card writes),
    // which the trait's default, a byte copy, is not.
    forward_device!(self => self.dev(); name, bar_read32, bar_write32, dma_alloc, dma_free,
        mem_write, mem_read, relax, wait_irq, now_ns, cycles, mem_read_u64, mem_write_u64);
}

impl BenchDevice for CardDevice {
    fn iommu_faults(&self) -> Option<u64> {
        match self {
            // The kernel's IOMMU reports faults in the system log, not to us.
            CardDevice::Vfio(_) => None,
            CardDevice::User(d) => d.sim_read(sim_regs::IOMMU_FAULTS).ok().flatten(),
        }
    }
}

/// Opens `--device SPEC`: `vfio-user:/path/to.sock` or a PCI address.
pub fn open_device(spec: &str) -> Result<CardDevice> {
    if let Some(path) = spec.strip_prefix("vfio-user:") {
        ensure!(
            !path.is_empty(),
            "--device vfio-user: needs a socket path, e.g. vfio-user:/tmp/fasthsl/node0.sock"
        );
        let d = VfioUserDevice::connect(path.as_ref()).with_context(|| {
            format!("cannot attach to {path} (start the cards with `fasthsl serve --socket ...`)")
        })?;
        Ok(CardDevice::User(Rc::new(d)))
    } else {
        let d = VfioDevice::open(spec).with_context(|| {
            format!(
                "cannot open {spec} (--device takes a PCI address such as 0000:01:00.0, \
                 or vfio-user:/path/to.sock for a card served by `fasthsl serve`)"
            )
        })?;
        Ok(CardDevice::Vfio(Rc::new(d)))
    }
}

/// The network of a `--device` run: `devices` nodes, as the flags say or full:N.
pub fn device_topology(
    devices: usize,
    topology: Option<&Topology>,
    nodes: Option<u16>,
) -> Result<Topology> {
    let t = match (topology, nodes) {
        (Some(t), _) => t.clone(),
        (None, Some(n)) => Topology::full(n.into()).context("--nodes")?,
        (None, None) => Topology::full(devices).with_context(|| {
            format!("{devices} --device cards: give their network with --topology")
        })?,
    };
    ensure!(
        t.nodes() == devices,
        "--topology {t} has {} nodes but {devices} --device card(s) were given: node i is the \
         i-th --device, so give one --device per node",
        t.nodes()
    );
    Ok(t)
}

/// Configured, routed cards of every node, with the clock and fault count of the run.
pub struct Testbed<D: BenchDevice> {
    /// Node i's card.
    pub cards: Vec<Card<D>>,
    /// The network the routes were computed for.
    pub topology: Topology,
    /// The routing tables the routers got.
    pub routing: Routing,
    /// Where times come from.
    pub clock: Clock,
    /// "simulator" (in this process), or the `--device` backends.
    backend: &'static str,
}

impl Testbed<SimDevice> {
    /// Every node of a new simulated cluster.
    pub fn sim(
        topology: &Topology,
        cfg: SimConfig,
        rx_window: impl Fn(usize) -> usize,
        after_configure: impl FnMut(usize, &mut Card<SimDevice>) -> Result<()>,
    ) -> Result<Self> {
        Self::sim_routed(
            topology,
            Routing::Deterministic,
            cfg,
            rx_window,
            after_configure,
        )
    }

    /// [`Self::sim`] with the routing tables of `routing`.
    pub fn sim_routed(
        topology: &Topology,
        routing: Routing,
        cfg: SimConfig,
        rx_window: impl Fn(usize) -> usize,
        after_configure: impl FnMut(usize, &mut Card<SimDevice>) -> Result<()>,
    ) -> Result<Self> {
        let ns_per_cycle = cfg.clock_period_ps as f64 / 1000.0;
        let cluster = Cluster::new(topology, cfg).context("building the simulated cluster")?;
        let cards =
            configured_cards_routed(&cluster, topology, routing, rx_window, after_configure)?;
        Ok(Testbed {
            cards,
            topology: topology.clone(),
            routing,
            clock: Clock::Modeled { ns_per_cycle },
            backend: "simulator",
        })
    }
}

impl Testbed<CardDevice> {
    /// The cards of `--device` flags, node i = `specs[i]`, on `topology`.
    pub fn devices(
        specs: &[String],
        topology: &Topology,
        rx_window: impl Fn(usize) -> usize,
        after_configure: impl FnMut(usize, &mut Card<CardDevice>) -> Result<()>,
    ) -> Result<Self> {
        Self::devices_routed(
            specs,
            topology,
            Routing::Deterministic,
            rx_window,
            after_configure,
        )
    }

    /// [`Self::devices`] with the routing tables of `routing`.
    pub fn devices_routed(
        specs: &[String],
        topology: &Topology,
        routing: Routing,
        rx_window: impl Fn(usize) -> usize,
        after_configure: impl FnMut(usize, &mut Card<CardDevice>) -> Result<()>,
    ) -> Result<Self> {
        ensure!(
            topology.nodes() == specs.len(),
            "{topology} has {} nodes, {} --device cards were given",
            topology.nodes(),
            specs.len()
        );
        let mut devs = Vec::with_capacity(specs.len());
        let mut periods = Vec::new();
        for (i, s) in specs.iter().enumerate() {
            let d = open_device(s).with_context(|| format!("--device #{} ({s})", i + 1))?;
            if let CardDevice::User(u) = &d {
                if let Some(n) = u.node() {
                    ensure!(
                        n == i as u64,
                        "{s} is node {n} of the cluster `fasthsl serve` runs, but it was given \
                         as node {i}: list the sockets in node order (node0.sock first), all \
                         from one `fasthsl serve --topology {topology}`"
                    );
                }
                periods.push(u.sim_read(sim_regs::PERIOD_PS)?);
            } else {
                periods.push(None);
            }
            devs.push(d);
        }
        let kinds = devs
            .iter()
            .map(|d| match d {
                CardDevice::Vfio(_) => "vfio",
                CardDevice::User(_) => "vfio-user",
            })
            .collect::<Vec<_>>();
        ensure!(
            kinds.iter().all(|k| *k == kinds[0]),
            "--device mixes real cards and vfio-user sockets ({kinds:?}): their clocks cannot \
             be compared; use one kind"
        );
        // Modeled cycles only when every card is a simulated one counting them; a real
        // card (or a mix) is timed with the host's clock.
        let clock = match periods.iter().copied().collect::<Option<Vec<u64>>>() {
            Some(p) if p.iter().all(|&x| x == p[0] && x > 0) => Clock::Modeled {
                ns_per_cycle: p[0] as f64 / 1000.0,
            },
            _ => Clock::Wall,
        };
        let cards = configure_all(devs, topology, routing, rx_window, after_configure)?;
        Ok(Testbed {
            cards,
            topology: topology.clone(),
            routing,
            clock,
            backend: kinds[0],
        })
    }
}

impl<D: BenchDevice> Testbed<D> {
    /// The first card's device: the clock every time of the run is read from.
    pub fn dev(&self) -> &D {
        self.cards[0].device()
    }

    /// What the JSON output says about where the run happened and its clock (only for
    /// `--device` runs: the simulator's output keeps its fields).
    pub fn describe(&self) -> Option<Value> {
        (self.backend != "simulator").then(|| {
            json!({
                "backend": self.backend,
                "devices": self.cards.iter().map(|c| c.device().name()).collect::<Vec<_>>(),
                "clock": self.clock.name(),
            })
        })
    }
}

/// Sum of the IOMMU faults of `devs`, if every one can count them.
pub fn iommu_faults<'a, D: BenchDevice + 'a>(devs: impl IntoIterator<Item = &'a D>) -> Option<u64> {
    devs.into_iter().map(|d| d.iommu_faults()).sum()
}

/// Adds the fields of [`Testbed::describe`] to a JSON object.
pub fn with_description(mut v: Value, d: Option<Value>) -> Value {
    if let (Value::Object(m), Some(Value::Object(extra))) = (&mut v, d) {
        m.extend(extra);
    }
    v
}

/// Refuses `--device` for a benchmark that cannot run on a card.
pub fn no_devices(devices: &[String], why: &str) -> Result<()> {
    if !devices.is_empty() {
        bail!("--device: {why}");
    }
    Ok(())
}
