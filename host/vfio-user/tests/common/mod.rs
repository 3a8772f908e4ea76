//! Set-up shared by the vfio-user integration tests.

use std::path::PathBuf;

use fasthsl_sim::SimConfig;
use fasthsl_topology::Topology;
use fasthsl_vfio_user::{Clock, ServeConfig, Server};

/// Ends the whole test process if it is still running after `secs` seconds: a blocking
/// read on a stuck client or server must fail the test, not hang it. Children see
/// their pipes and sockets close and exit too.
pub fn watchdog(secs: u64) {
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(secs));
        eprintln!("watchdog: still running after {secs} s, giving up");
        std::process::exit(101);
    });
}

/// Serves a simulated full:`nodes` cluster whose clock the clients drive, on a path of
/// its own in the temp dir (`tag` and the process id): the socket itself for one node,
/// a directory of `node<i>.sock` otherwise. Returns the server and that path.
pub fn serve(nodes: usize, tag: &str) -> (Server, PathBuf) {
    let name = format!("fasthsl-vu-{tag}-{}", std::process::id());
    let path = if nodes == 1 {
        std::env::temp_dir().join(format!("{name}.sock"))
    } else {
        let dir = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir
    };
    let server = Server::start(ServeConfig {
        topology: Topology::full(nodes).unwrap(),
        sim: SimConfig::default(),
        clock: Clock::Driven,
        socket: path.clone(),
    })
    .unwrap();
    (server, path)
}
