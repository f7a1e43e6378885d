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
use docs_site::{linkcheck, serve};

#[derive(Parser)]
#[command(about = "The kernel's Rust documentation as a searchable, link-checked site")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Document every crate of a built tree and assemble the site; prints its index.html
    Build {
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
    },
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
    /// Serve a site on 127.0.0.1 for browsing
    Serve {
        /// The site's folder
        dir: PathBuf,
        /// The port (0: any free port)
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
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
        Command::Build {
            srctree,
            objtree,
            extmod_dirs,
            out,
            work,
            core_upstream,
            srctree_url,
            config_name,
            jobs,
            doctests,
            check,
        } => {
            let out = std::path::absolute(&out).context("the --out path")?;
            let work = match work {
                Some(w) => w,
                None => PathBuf::from(format!("{}.work", out.display())),
            };
            let options = Options {
                srctree,
                objtree,
                extmod_dirs,
                out,
                work,
                core_upstream,
                srctree_links: srctree_url.map_or(SrctreeLinks::SourceView, SrctreeLinks::BaseUrl),
                config_name,
                jobs: jobs.unwrap_or_else(threads),
                doctests,
                rustdoc: PathBuf::from("rustdoc"),
            };
            let summary =
                generate::generate(&options).context("building the documentation site")?;
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
            if check {
                let report = match summary.links {
                    Some(report) => report,
                    None => {
                        let dir = summary.index.parent().expect("index.html is in the site");
                        let site =
                            linkcheck::scan_site(dir, threads()).context("reading the site")?;
                        let mut report = linkcheck::check(&site);
                        linkcheck::set_aside_known(&mut report, linkcheck::KNOWN_UPSTREAM);
                        report
                    }
                };
                eprint!("docs-site: links: {}", linkcheck::render(&report, 10));
                if !report.broken.is_empty() {
                    code = ExitCode::from(1);
                }
            }
            println!("{}", summary.index.display());
            Ok(code)
        }
        Command::Check { dir, show, json, strict } => {
            if !dir.is_dir() {
                anyhow::bail!("{}: no such directory", dir.display());
            }
            let site = linkcheck::scan_site(&dir, threads())
                .with_context(|| format!("reading {}", dir.display()))?;
            let mut report = linkcheck::check(&site);
            if !strict {
                linkcheck::set_aside_known(&mut report, linkcheck::KNOWN_UPSTREAM);
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", linkcheck::render(&report, show));
            }
            Ok(if report.broken.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
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
