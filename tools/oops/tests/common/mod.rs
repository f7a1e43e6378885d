//! What the tests compare against golden files: a readable summary of a parsed log.

/// A readable summary of what was parsed.
pub fn summary(log: &str) -> String {
    let mut out = String::new();
    for r in oops::parse_log(log) {
        out += &format!("report lines {}-{}: {}\n", r.lines.0, r.lines.1, r.title);
        if let Some(oops) = &r.oops {
            out += &format!("  oops #{:?}: {oops}\n", r.oops_number);
        }
        if let Some(p) = &r.rust_panic {
            out += &format!("  rust panic at {}: {:?}\n", p.location, p.message);
        }
        if let Some(task) = &r.task {
            out += &format!("  task: {task}\n");
        }
        if let Some(rip) = &r.rip {
            out += &format!("  RIP {}\n", show(rip));
        }
        if let Some(lr) = &r.lr {
            out += &format!("  lr {}\n", show(lr));
        }
        for f in &r.frames {
            out += &format!("  frame {}\n", show(f));
        }
        out += &format!("  modules {:?} complete {} noise {:?}\n", r.modules, r.complete, r.noise);
    }
    out
}

fn show(f: &oops::Frame) -> String {
    let what = match (&f.symbol, f.address) {
        (Some(s), _) => format!("{s}+{:#x}/{:#x}", f.offset, f.size),
        (None, Some(a)) => format!("{a:#x}"),
        (None, None) => "?".to_owned(),
    };
    let module = f.module.as_deref().map(|m| format!(" [{m}]")).unwrap_or_default();
    let source = f.source.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
    format!("{}{what}{module}{source}", if f.reliable { "" } else { "? " })
}
