//! `upstream-check`: what a maintainer checks before taking our series, run on a git
//! repository of the pristine kernel tarball (in the cache, never in ours): each topic applies
//! with `git am` in `series` order; each patch is `checkpatch.pl --strict` clean and builds on
//! its own with `CONFIG_RUST` and `CLIPPY=1`, adding no Rust warning (and `make rustfmtcheck`
//! passes where it touches Rust); the cover letter addresses everyone `get_maintainer.pl`
//! names; and each reproducer's KUnit case ends as `check.json` says, booted in QEMU before
//! the topic's fixes (with its test patches alone) and after them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use subprocess::Command;
use upstream::{Reproducer, Topic};
use workbench::inputs::{Fragment, Inputs, Tarball};
use workbench::kernel::Source;

/// Check our kernel series the way a maintainer would before taking them.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The version's series (`demo-kernel/upstream/7.3`): `series`, `check.config`, a folder
    /// a topic.
    #[arg(long)]
    upstream_dir: PathBuf,
    /// The series as `upstream-series` wrote them out for mailing, a folder a topic: what is
    /// checked.
    #[arg(long)]
    outgoing: PathBuf,
    /// Where the pristine git repository, the build trees, logs and boots go (in the cache).
    #[arg(long)]
    work_dir: PathBuf,
    /// The kernel's Debian source package (`linux-source-7.3`)...
    #[arg(long)]
    package: String,
    /// ...from this suite (`trixie-backports`), fetched with a private apt state...
    #[arg(long, requires = "packages_dir")]
    suite: Option<String>,
    /// ...into this folder of the cache.
    #[arg(long)]
    packages_dir: Option<PathBuf>,
    /// Parallel kbuild jobs (default: cores + 1).
    #[arg(long)]
    jobs: Option<usize>,
}

/// The name patches get in the pristine repository's commits: theirs, from `git am`.
const COMMITTER: [(&str, &str); 2] =
    [("GIT_COMMITTER_NAME", "upstream-check"), ("GIT_COMMITTER_EMAIL", "upstream-check@localhost")];

/// checkpatch's check that a `Fixes:` commit exists: the pristine repository, made from a
/// tarball, has no history, so every commit id is unknown to it.
const CHECKPATCH_IGNORE: &str = "UNKNOWN_COMMIT_ID";

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse();
    match run(&args) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(failures) => {
            eprintln!("upstream-check: {failures} check(s) failed");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("upstream-check: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The checks' state: where things are and what failed so far.
struct Check {
    linux: PathBuf,
    work: PathBuf,
    jobs: usize,
    fragment: Fragment,
    tarball: Tarball,
    failures: Vec<String>,
}

fn run(args: &Args) -> Result<usize> {
    let started = Instant::now();
    // The series as they are mailed, written out by `upstream-series`: those files are the
    // ones applied and checked.
    let topics = upstream::load(&args.upstream_dir)?;
    let (topics, sender) = written_out(topics, &args.outgoing)?;
    println!("series written out by {sender} in {}", args.outgoing.display());
    let source = match (&args.suite, &args.packages_dir) {
        (Some(suite), Some(dir)) => {
            Source::Apt { package: args.package.clone(), suite: suite.clone(), dir: dir.clone() }
        }
        _ => Source::Tarball(PathBuf::from(format!("/usr/src/{}.tar.xz", args.package))),
    };
    let tarball = source.tarball()?;
    let fragment = workbench::inputs::load_fragment(&args.upstream_dir.join("check.config"))?;
    let inputs =
        Inputs { tarball: Tarball::read(&tarball)?, patches: Vec::new(), fragments: Vec::new() };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut check = Check {
        linux: args.work_dir.join("linux"),
        work: args.work_dir.clone(),
        jobs: args.jobs.unwrap_or(cores + 1),
        fragment,
        tarball: inputs.tarball.clone(),
        failures: Vec::new(),
    };
    let pristine = pristine_repo(&inputs, &check.linux)?;
    println!("pristine {}: {pristine}", check.linux.display());

    check.checkout(&pristine)?;
    // An incremental build prints only the warnings of the crates it compiles: a baseline that
    // did not compile them all would call an old warning new when a patch makes its crate build.
    let forgotten = forget_rust_objects(&check.objtree("check"))?;
    if forgotten > 0 {
        println!(
            "pristine build: {forgotten} Rust objects removed, so that each crate's warnings show"
        );
    }
    let baseline = check.build("check", &[], "pristine")?;
    println!("pristine build: {} Rust warnings with CLIPPY=1", baseline.len());

    let mut start = pristine;
    for topic in &topics {
        start = check_topic(&mut check, topic, &start, &baseline)?;
    }
    println!("done in {}", progress::format_duration(started.elapsed()));
    for f in &check.failures {
        println!("FAILED: {f}");
    }
    Ok(check.failures.len())
}

/// `topics` as `make upstream-series` wrote them out into `outgoing/NAME/`, and their sender:
/// each mail must be the kept one with the sender added, all by one sender.
fn written_out(topics: Vec<Topic>, outgoing: &Path) -> Result<(Vec<Topic>, String)> {
    let mut senders = BTreeSet::new();
    let mut read = |kept: &Path, dir: &Path| -> Result<PathBuf> {
        let path = dir.join(kept.file_name().context("a patch file")?);
        let kept_text =
            std::fs::read_to_string(kept).with_context(|| kept.display().to_string())?;
        let written = std::fs::read_to_string(&path).with_context(|| {
            format!("{}: write the series out with `make upstream-series`", path.display())
        })?;
        senders.insert(
            upstream::written_out_by(&kept_text, &written)
                .with_context(|| path.display().to_string())?,
        );
        Ok(path)
    };
    let mut out = Vec::new();
    for mut topic in topics {
        let dir = outgoing.join(&topic.name);
        topic.cover_letter = read(&topic.cover_letter, &dir)?;
        topic.patches = topic.patches.iter().map(|p| read(p, &dir)).collect::<Result<_>>()?;
        out.push(topic);
    }
    if senders.len() != 1 {
        bail!(
            "{}: the series are written out by {senders:?}, not by one sender",
            outgoing.display()
        );
    }
    Ok((out, senders.into_iter().next().unwrap_or_default()))
}

/// Makes `linux` a git repository of the pristine tarball (one commit), unless it is one of
/// this tarball already, and returns that commit.
fn pristine_repo(inputs: &Inputs, linux: &Path) -> Result<String> {
    let head = git(linux, &["rev-parse", "--verify", "--quiet", "pristine"]);
    if matches!(workbench::srctree::prepare(inputs, linux)?, workbench::srctree::Prepared::UpToDate)
        && let Ok(head) = head
    {
        return Ok(head);
    }
    let step = progress::start(&format!("committing the pristine tree in {}", linux.display()));
    git(linux, &["init", "-q"])?;
    let stamp = format!(":(exclude){}", workbench::STAMP);
    git(linux, &["add", "-A", "-f", "--", ".", &stamp])?;
    let subject = format!("Linux, pristine, from {}", inputs.tarball.path.display());
    git_env(
        linux,
        &["commit", "-q", "--no-verify", "-m", &subject],
        &[
            ("GIT_AUTHOR_NAME", "upstream-check"),
            ("GIT_AUTHOR_EMAIL", "upstream-check@localhost"),
            ("GIT_AUTHOR_DATE", "2000-01-01T00:00:00Z"),
            ("GIT_COMMITTER_DATE", "2000-01-01T00:00:00Z"),
        ],
    )?;
    git(linux, &["tag", "-f", "pristine"])?;
    let head = git(linux, &["rev-parse", "HEAD"])?;
    step.done(&head);
    Ok(head)
}

/// One topic: its reproducers before, each patch applied, built and checked, the recipients,
/// its reproducers after. Returns the commit after it, where the next topic starts.
fn check_topic(
    check: &mut Check,
    topic: &Topic,
    start: &str,
    baseline: &[String],
) -> Result<String> {
    println!("== {} ({} patches)", topic.name, topic.patches.len());
    for r in &topic.reproducers {
        // A new feature's test has nothing to run before it.
        let Some(before) = &r.before else { continue };
        check.checkout(start)?;
        for name in &r.test_patches {
            let patch = topic.patches.iter().find(|p| p.ends_with(name)).expect("checked on load");
            check.am(patch)?;
        }
        let label = format!("{} before", topic.name);
        check.reproduce(r, before, &label)?;
    }

    check.checkout(start)?;
    // Every warning seen so far: an incremental build prints only those of the crates it
    // rebuilds, so an old warning may come back after a build that did not show it.
    let mut known: BTreeSet<String> = baseline.iter().cloned().collect();
    for patch in &topic.patches {
        let name = patch.file_name().unwrap_or_default().to_string_lossy().into_owned();
        check.am(patch)?;
        check.checkpatch(patch, &name)?;
        let now = check.build("check", &[], &name)?;
        let new: Vec<&String> = now.iter().filter(|w| !known.contains(*w)).collect();
        if new.is_empty() {
            println!("  {name}: checkpatch --strict clean, builds, no new Rust warning");
        } else {
            check.fail(format!("{name}: new Rust warnings with CLIPPY=1: {new:?}"));
        }
        known.extend(now);
        let touched = git(&check.linux, &["diff", "--name-only", "HEAD~1", "HEAD"])?;
        if touched.lines().any(|f| f.ends_with(".rs")) {
            check.rustfmtcheck(&name)?;
        }
    }
    let end = git(&check.linux, &["rev-parse", "HEAD"])?;
    check.recipients(topic)?;
    for r in &topic.reproducers {
        let label = format!("{} after", topic.name);
        check.reproduce(r, &r.after, &label)?;
    }
    Ok(end)
}

impl Check {
    /// The build tree of a variant (`check`, `module`).
    fn objtree(&self, variant: &str) -> PathBuf {
        self.work.join(format!("objtree-{variant}"))
    }

    fn fail(&mut self, what: String) {
        println!("  FAILED: {what}");
        self.failures.push(what);
    }

    fn checkout(&self, commit: &str) -> Result<()> {
        git(&self.linux, &["checkout", "-q", "-f", "--detach", commit])?;
        Ok(())
    }

    fn am(&self, patch: &Path) -> Result<()> {
        let path = patch.display().to_string();
        if let Err(e) = git_env(&self.linux, &["am", "-q", "--keep-cr", &path], &COMMITTER) {
            let _ = git(&self.linux, &["am", "--abort"]);
            bail!("{path} does not apply with git am: {e:#}");
        }
        Ok(())
    }

    fn checkpatch(&mut self, patch: &Path, name: &str) -> Result<()> {
        let out = Command::new("perl", &self.linux)
            .arg("scripts/checkpatch.pl")
            .args(["--strict", "--terse", "--no-summary", "--ignore", CHECKPATCH_IGNORE])
            .arg(patch)
            .timeout(Duration::from_secs(300))
            .run()?;
        let complaints: Vec<&str> = out.stdout.lines().filter(|l| !l.trim().is_empty()).collect();
        if !complaints.is_empty() {
            self.fail(format!("{name}: checkpatch --strict: {}", complaints.join("; ")));
        }
        Ok(())
    }

    fn rustfmtcheck(&mut self, name: &str) -> Result<()> {
        let out = kbuild::make::kernel_make(&self.linux, &self.objtree("check"))
            .arg("rustfmtcheck")
            .timeout(Duration::from_secs(600))
            .run()?;
        if out.success() {
            println!("  {name}: make rustfmtcheck clean");
        } else {
            self.fail(format!("{name}: make rustfmtcheck: {}", subprocess::format_tail(&out.tail)));
        }
        Ok(())
    }

    fn recipients(&mut self, topic: &Topic) -> Result<()> {
        let out = Command::new("perl", &self.linux)
            .arg("scripts/get_maintainer.pl")
            .args(["--no-git", "--no-git-fallback", "--no-fixes", "--no-rolestats"])
            .args(&topic.patches)
            .timeout(Duration::from_secs(300))
            .run_checked()?;
        let wanted = upstream::maintainers(&out.stdout);
        let cover = std::fs::read_to_string(&topic.cover_letter)
            .with_context(|| topic.cover_letter.display().to_string())?;
        let missing = upstream::missing_recipients(&cover, &wanted);
        if missing.is_empty() {
            println!(
                "  recipients: the {} that get_maintainer.pl names are in the cover letter",
                wanted.len()
            );
        } else {
            self.fail(format!("{}: the cover letter does not address {missing:?}", topic.name));
        }
        Ok(())
    }

    /// Configures (once) and builds the `variant` tree at the checked-out commit with
    /// `CLIPPY=1`, and returns the Rust warnings of its log.
    fn build(&self, variant: &str, config: &[String], label: &str) -> Result<Vec<String>> {
        let objtree = self.objtree(variant);
        let mut fragments = vec![self.fragment.clone()];
        if !config.is_empty() {
            let path = self.work.join(format!("{variant}.config"));
            std::fs::create_dir_all(&self.work)?;
            std::fs::write(&path, config.join("\n") + "\n")?;
            fragments.push(workbench::inputs::load_fragment(&path)?);
        }
        let inputs = Inputs { tarball: self.tarball.clone(), patches: Vec::new(), fragments };
        workbench::objtree::configure(&inputs, &self.linux, &objtree)?;
        let log = self.work.join("logs").join(format!("{variant}-{}.log", slug(label)));
        workbench::build::build_with(&self.linux, &objtree, self.jobs, &["CLIPPY=1"], &log)
            .with_context(|| format!("building {label} ({variant})"))?;
        let text = std::fs::read_to_string(&log).with_context(|| log.display().to_string())?;
        Ok(upstream::rust_warnings(&text))
    }

    /// Builds the reproducer's tree at the checked-out commit, boots it with its modules, and
    /// judges its case.
    fn reproduce(&mut self, r: &Reproducer, expect: &upstream::Expect, label: &str) -> Result<()> {
        self.build(&r.variant, &r.config, label)?;
        let objtree = self.objtree(&r.variant);
        let dir = self.work.join("boots").join(slug(&format!("{label} {}", r.name)));
        std::fs::create_dir_all(&dir)?;
        let modules: Vec<PathBuf> = r.modules.iter().map(|m| objtree.join(m)).collect();
        let mut steps: Vec<String> = if r.steps.is_empty() {
            modules
                .iter()
                .filter_map(|m| m.file_name())
                .map(|f| format!("insmod /lib/modules/{}", f.to_string_lossy()))
                .collect()
        } else {
            r.steps.clone()
        };
        if steps.is_empty() {
            steps.push("true".to_owned());
        }
        let (_, built) = kbuild::Objtree::open_built(&objtree)?;
        let guest = qemu::Guest { busybox: qemu::guest_busybox(&built.arch), modules, steps };
        let step = progress::start(&format!("booting: {label}: {}", r.name));
        let boot = qemu::boot_guest(
            &built.arch,
            &built.image,
            &guest,
            &dir,
            |c| {
                c.append = "kunit.enable=1".to_owned();
                c.timeout = Duration::from_secs(900);
            },
            &mut |_| {},
        )?;
        step.done(&boot.describe());
        let console = std::fs::read_to_string(dir.join("console.log"))?;
        let suite = kunit::parse_suite(&console, &r.suite);
        let case = r.case.as_deref().unwrap_or(&r.suite);
        match upstream::judge(&suite, r.case.as_deref(), &console, expect) {
            Ok(how) => println!("  {label}: {}: {case} {how}", r.name),
            Err(why) => self.fail(format!(
                "{label}: {}: {why} (console: {})",
                r.name,
                dir.join("console.log").display()
            )),
        }
        Ok(())
    }
}

fn slug(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    git_env(dir, args, &[])
}

fn git_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<String> {
    let mut cmd = Command::new("git", dir).args(args).timeout(Duration::from_secs(1800));
    for (k, v) in env {
        cmd = cmd.env(k, v);
    }
    let out = cmd.run_checked()?;
    Ok(out.stdout.trim().to_owned())
}

/// Removes every object under `objtree` that rustc (or clippy-driver) made, as kbuild's `.cmd`
/// files say (`kbuild::scan_rust_builds`), so that the next build compiles each Rust crate again.
/// Returns how many it removed.
fn forget_rust_objects(objtree: &Path) -> Result<usize> {
    let scan = match kbuild::scan_rust_builds(objtree) {
        Ok(scan) => scan,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("reading {}", objtree.display())),
    };
    let mut removed = 0;
    for build in &scan.builds {
        let object = build.working_dir(objtree).join(&build.target);
        match std::fs::remove_file(&object) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {}", object.display())),
        }
    }
    Ok(removed)
}
