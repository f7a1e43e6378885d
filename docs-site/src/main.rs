//! `docs-site`: builds, checks and serves the kernel's Rust documentation site.
//!
//! Exit codes: 0 ok, 1 the check failed (broken links, a crate rustdoc could not document),
//! 2 usage or environment error.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use docs_site::generate::{self, Options};
use docs_site::html::SrctreeLinks;
use docs_site::{linkcheck, serve, versions};
use report::results;

#[derive(Parser)]
#[command(about = "The kernel's Rust documentation as a searchable, link-checked site")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Document every crate of a built tree and assemble the site; prints its index.html
    Build(BuildArgs),
    /// Check every link of a site (ours or `make rustdoc`'s); exit 1 on any broken link
    Check {
        /// The site's folder
        dir: PathBuf,
        /// Broken links shown per kind
        #[arg(long, default_value_t = 10)]
        show: usize,
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
        /// Count the kernel documentation's own known mistakes as broken too
        #[arg(long)]
        strict: bool,
    },
    /// One site for several kernels' sites: a version switcher on every page, the API changes
    /// per crate from the first to the last version, and what out-of-tree modules use of them;
    /// prints its index.html
    Versions {
        /// A kernel, oldest first: LABEL:SRCTREE:OBJTREE:SITE (its site from `docs-site build`;
        /// rustdoc's JSON goes in SITE.work) (repeatable, two or more)
        #[arg(long = "version", required = true)]
        versions: Vec<String>,
        /// An out-of-tree module's source folder, for its porting list (repeatable)
        #[arg(long = "module")]
        modules: Vec<PathBuf>,
        /// Where the combined site goes (replaced whole by each build)
        #[arg(long)]
        out: PathBuf,
        /// rustdoc runs at a time (default: the number of CPUs)
        #[arg(long, short)]
        jobs: Option<usize>,
    },
    /// What an out-of-tree module uses of the API changes between two kernels (name-based)
    Porting {
        /// The module's source folder (its `.rs` files are read)
        #[arg(long)]
        module: PathBuf,
        /// A kernel, oldest first: LABEL:SRCTREE:OBJTREE:SITE, as for `versions` (repeatable)
        #[arg(long = "version", required = true)]
        versions: Vec<String>,
        /// rustdoc runs at a time (default: the number of CPUs)
        #[arg(long, short)]
        jobs: Option<usize>,
    },
    /// Serve a site on 127.0.0.1 for browsing
    Serve {
        /// The site's folder
        dir: PathBuf,
        /// The port (0: any free port)
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
}

/// `docs-site build`'s arguments.
#[derive(clap::Args)]
struct BuildArgs {
    /// The kernel source tree
    #[arg(long)]
    srctree: PathBuf,
    /// The built objtree (the srctree for an in-tree build)
    #[arg(long)]
    objtree: PathBuf,
    /// An out-of-tree module's build directory (repeatable)
    #[arg(long = "extmod-dir")]
    extmod_dirs: Vec<PathBuf>,
    /// Where the site goes (replaced whole by each build)
    #[arg(long)]
    out: PathBuf,
    /// Where documented crates are kept between builds (default: <out>.work)
    #[arg(long)]
    work: Option<PathBuf>,
    /// Link `core` to its documentation on doc.rust-lang.org instead of shipping it
    #[arg(long)]
    core_upstream: bool,
    /// Base URL for `srctree/` links instead of the site's own source view
    #[arg(long)]
    srctree_url: Option<String>,
    /// The configuration's name for the landing page
    #[arg(long, default_value = "the objtree's .config")]
    config_name: String,
    /// rustdoc runs at a time (default: the number of CPUs)
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Boot the kernel in QEMU to run its doctests (KUnit) and show the results
    #[arg(long)]
    doctests: bool,
    /// Check the site's links when it is built; exit 1 on any broken link
    #[arg(long)]
    check: bool,
    /// Print the result as JSON (`report::results`' schema) instead of the index's path
    #[arg(long)]
    json: bool,
    /// Share the documentation that does not depend on the tree (`core`: the toolchain's
    /// sources, the same target and flags) with other trees' builds, through this folder
    #[arg(long)]
    shared_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("docs-site: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Build(args) => build(args),
        Command::Check { dir, show, json, strict } => {
            if !dir.is_dir() {
                anyhow::bail!("{}: no such directory", dir.display());
            }
            let site = linkcheck::scan_site(&dir, threads())
                .with_context(|| format!("reading {}", dir.display()))?;
            if site.pages.is_empty() {
                anyhow::bail!(
                    "no HTML page under {}: no link to check; is it a site docs-site built (`make docs` prints its index.html)?",
                    dir.display()
                );
            }
            let mut report = linkcheck::check(&site);
            if !strict {
                match versions::is_combined(&dir) {
                    Some(labels) => versions::set_aside_known(&mut report, &labels),
                    None => linkcheck::set_aside_known(&mut report, linkcheck::KNOWN_UPSTREAM),
                }
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", linkcheck::render(&report, show));
            }
            Ok(if report.broken.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Versions { versions, modules, out, jobs } => {
            let options = versions::Options {
                versions: parse_versions(&versions)?,
                modules,
                out: std::path::absolute(&out).context("the --out path")?,
                jobs: jobs.unwrap_or_else(threads),
                rustdoc: PathBuf::from("rustdoc"),
            };
            let summary = versions::build(&options).context("building the combined site")?;
            for (label, size) in &summary.sites {
                eprintln!("docs-site: Linux {label}: {}", docs_site::site::format_size(*size));
            }
            eprintln!(
                "docs-site: combined site {} ({} of its own, the rest hard links), in {} \
                 (rustdoc JSON: {} made, {}){}",
                if summary.reused { "reused" } else { "assembled" },
                docs_site::site::format_size(summary.own_size),
                progress::format_duration(summary.total_time),
                summary.json_built,
                progress::format_duration(summary.json_time),
                if summary.reused { ", nothing changed" } else { "" },
            );
            for (krate, counts) in &summary.counts {
                eprintln!("docs-site: changes in {krate}: {counts}");
            }
            for text in &summary.porting {
                eprint!("docs-site: porting {text}");
            }
            eprint!(
                "docs-site: links of the combined pages: {}",
                linkcheck::render(&summary.links, 10)
            );
            println!("{}", summary.index.display());
            Ok(if summary.links.broken.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Porting { module, versions, jobs } => {
            let options = versions::Options {
                versions: parse_versions(&versions)?,
                modules: Vec::new(),
                out: PathBuf::new(),
                jobs: jobs.unwrap_or_else(threads),
                rustdoc: PathBuf::from("rustdoc"),
            };
            let text = versions::porting_text(&options, &module)
                .with_context(|| format!("the porting list of {}", module.display()))?;
            print!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve { dir, port } => {
            let server = serve::Server::bind(&dir, port)?;
            println!("http://{}/index.html", server.addr());
            eprintln!("docs-site: serving {} (Ctrl-C to stop)", dir.display());
            server.run();
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Builds the site, prints what became of it, checks its links when asked.
fn build(args: BuildArgs) -> anyhow::Result<ExitCode> {
    let out = std::path::absolute(&args.out).context("the --out path")?;
    let work = match args.work {
        Some(w) => w,
        None => PathBuf::from(format!("{}.work", out.display())),
    };
    let options = Options {
        srctree: args.srctree,
        objtree: args.objtree,
        extmod_dirs: args.extmod_dirs,
        out,
        work,
        core_upstream: args.core_upstream,
        srctree_links: args.srctree_url.map_or(SrctreeLinks::SourceView, SrctreeLinks::BaseUrl),
        config_name: args.config_name,
        jobs: args.jobs.unwrap_or_else(threads),
        doctests: args.doctests,
        rustdoc: PathBuf::from("rustdoc"),
        shared: args.shared_dir,
    };
    let summary = generate::generate(&options).context("building the documentation site")?;
    let failed = generate::failed(&summary);
    for (name, why) in &failed {
        eprintln!("docs-site: {name} is missing from the site: {why}");
    }
    for problem in &summary.problems {
        eprintln!("docs-site: warning: {problem}");
    }
    eprintln!(
        "docs-site: {} crates ({} failed), {}, in {} (rustdoc {}){}",
        summary.crates.len(),
        failed.len(),
        docs_site::site::format_size(summary.size),
        progress::format_duration(summary.total_time),
        progress::format_duration(summary.rustdoc_time),
        summary
            .doctests
            .as_ref()
            .map(|d| format!("; doctests in the kernel: {}", d.summary_line()))
            .unwrap_or_default()
    );
    if !summary.unlinked.is_empty() {
        eprint!("docs-site: {}", docs_site::mend::render(&summary.unlinked, 10));
    }
    let mut code = if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    let links = if args.check { Some(links_of(&summary)?) } else { None };
    if let Some(report) = &links {
        eprint!("docs-site: links: {}", linkcheck::render(report, 10));
        if !report.broken.is_empty() {
            code = ExitCode::from(1);
        }
    }
    if args.json {
        let result = docs_site::result::to_result(&summary, links.as_ref());
        print!("{}", results::to_json(results::ToolResult::DocsSite(result)));
    } else {
        println!("{}", summary.index.display());
    }
    Ok(code)
}

/// The link check of the site just built: the one made as it was swapped into place, or that
/// its manifest kept, else a new one.
fn links_of(summary: &generate::Summary) -> anyhow::Result<linkcheck::Report> {
    if let Some(report) = &summary.links {
        // Kept by an older build, perhaps, whose list of upstream's mistakes was another.
        let mut report = report.clone();
        linkcheck::set_aside_known(&mut report, linkcheck::KNOWN_UPSTREAM);
        return Ok(report);
    }
    let dir = summary.index.parent().expect("index.html is in the site");
    let site = linkcheck::scan_site(dir, threads()).context("reading the site")?;
    let mut report = linkcheck::check(&site);
    linkcheck::set_aside_known(&mut report, linkcheck::KNOWN_UPSTREAM);
    Ok(report)
}

/// `LABEL:SRCTREE:OBJTREE:SITE` arguments as versions (the work folder is `SITE.work`, as
/// `docs-site build` makes it by default).
fn parse_versions(args: &[String]) -> anyhow::Result<Vec<versions::VersionInput>> {
    args.iter()
        .map(|arg| {
            let parts: Vec<&str> = arg.split(':').collect();
            let [label, srctree, objtree, site] = parts.as_slice() else {
                anyhow::bail!(
                    "--version {arg}: expected LABEL:SRCTREE:OBJTREE:SITE (4 parts separated by `:`)"
                );
            };
            let site = std::path::absolute(site).context("the site's path")?;
            Ok(versions::VersionInput {
                label: (*label).to_owned(),
                srctree: PathBuf::from(srctree),
                objtree: PathBuf::from(objtree),
                work: PathBuf::from(format!("{}.work", site.display())),
                site,
            })
        })
        .collect()
}
