//! `make bench`: `decode-stacktrace` against the kernel's `scripts/decode_stacktrace.sh` on
//! the same oops log, `vmlinux` and modules, in one run: wall time (median of a few runs each)
//! and how many frame lines each resolves to `file:line`. Also the wall time of one
//! boot-and-oops scenario. Ratios, not thresholds.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use qemu::Guest;
use subprocess::Command;

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        eprintln!("{name} is not set: run this with `make bench`, which builds the demo kernel");
        std::process::exit(2)
    })
}

/// Output lines naming a `file.rs:N`, `file.c:N` or `file.h:N` (our inlined lines aside).
fn resolved(output: &str) -> usize {
    output
        .lines()
        .filter(|l| !l.trim_start().starts_with("(inlined)"))
        .filter(|l| {
            [".rs:", ".c:", ".h:"].iter().any(|ext| {
                l.match_indices(ext)
                    .any(|(at, _)| l[at + ext.len()..].starts_with(|c: char| c.is_ascii_digit()))
            })
        })
        .count()
}

fn median(cmd: &Command, runs: usize) -> (Duration, String) {
    let mut times = Vec::new();
    let mut output = String::new();
    for _ in 0..runs {
        let start = Instant::now();
        let out = cmd.run().expect("runs");
        times.push(start.elapsed());
        output = out.stdout;
    }
    times.sort();
    (times[runs / 2], output)
}

fn main() {
    let (src, obj, ext) = (var("KERNEL_SRC"), var("KERNEL_OBJ"), var("EXTMOD_DIR"));
    let ours = subprocess::testing::user_binary("decode-stacktrace");
    let dir = tempfile::tempdir().unwrap();
    let modules = ext.join("rust_oops");
    let (_, built) = kbuild::Objtree::open_built(&obj).unwrap();
    let guest = Guest {
        busybox: qemu::guest_busybox(&built.arch),
        modules: vec![modules.join("rust_oops_null.ko"), modules.join("rust_oops_panic.ko")],
        steps: vec![
            "insmod /lib/modules/rust_oops_null.ko".into(),
            "insmod /lib/modules/rust_oops_panic.ko".into(),
        ],
    };
    let start = Instant::now();
    let boot = qemu::boot_guest(&built.arch, &built.image, &guest, dir.path(), |_| {}, &mut |_| {})
        .unwrap();
    let log = boot.log.clone();
    let scenario = start.elapsed();
    eprintln!("bench: {}", boot.describe());

    let upstream = Command::new("bash", dir.path())
        .arg("-c")
        .arg(format!(
            "{} {} {} {} < {}",
            src.join("scripts/decode_stacktrace.sh").display(),
            obj.join("vmlinux").display(),
            src.display(),
            modules.display(),
            log.display()
        ))
        .timeout(Duration::from_secs(300));
    let ours_cmd = Command::new(&ours, dir.path())
        .arg(obj.join("vmlinux"))
        .arg(&src)
        .arg(&modules)
        .arg("--log")
        .arg(&log);
    let (t_up, out_up) = median(&upstream, 3);
    let (t_ours, out_ours) = median(&ours_cmd, 5);
    let frames = log_frames(&std::fs::read_to_string(&log).unwrap());

    println!(
        "oops decoding: {frames} frame lines in one boot's log (rust_oops_null, rust_oops_panic)"
    );
    println!(
        "{:<36} {:>22} {:>22}  ours vs upstream",
        "", "decode_stacktrace.sh", "decode-stacktrace"
    );
    println!(
        "{:<36} {:>19.0} ms {:>19.1} ms  {:.0}x faster",
        "wall time, median",
        t_up.as_secs_f64() * 1000.0,
        t_ours.as_secs_f64() * 1000.0,
        t_up.as_secs_f64() / t_ours.as_secs_f64()
    );
    println!(
        "{:<36} {:>22} {:>22}",
        "lines with file:line",
        resolved(&out_up),
        resolved(&out_ours)
    );
    println!(
        "{:<36} {:>22} {:>20.1} s",
        "boot + oops scenario, wall time",
        "",
        scenario.as_secs_f64()
    );
}

/// How many lines of the log are frames.
fn log_frames(log: &str) -> usize {
    log.lines()
        .map(oops::strip_prefixes)
        .filter(|l| {
            let text = l.strip_prefix("RIP: 0010:").unwrap_or(l);
            l.starts_with("RIP: 0010:") || l.starts_with(' ') && oops::parse_frame(text).is_some()
        })
        .count()
}
