//! `layout-check`: compares the layout of every struct and union that Rust's `bindings` and
//! `uapi` crates declare with the C definition of the same name, both read from the DWARF of a
//! built kernel (vmlinux and modules), and says where each difference starts and why; with
//! `--bindgen`, also reruns the kernel's bindgen commands with their layout tests.
//!
//! Exit status: 0 when every layout matches, 1 when one does not (or a layout test fails), 2 on
//! errors and when nothing was compared (no Rust type, or none with a C definition).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use layout_check::html::render_html;
use layout_check::{Definitions, bindgen, compare, model, text};
use report::results;

/// Check that Rust's bindgen types have C's layout.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Compare every bindings/uapi type with C, from DWARF.
    Check {
        /// vmlinux, then modules: `.ko` files, or folders searched for them (the objtree, an
        /// out-of-tree module's build folder).
        #[arg(required = true)]
        images: Vec<PathBuf>,
        /// Print the results as JSON.
        #[arg(long)]
        json: bool,
        /// Also write an HTML report here.
        #[arg(long)]
        html: Option<PathBuf>,
        /// Also rerun this objtree's bindgen commands with bindgen's layout tests, and compile
        /// them (about 20 s a crate).
        #[arg(long, value_name = "OBJTREE")]
        bindgen: Option<PathBuf>,
        /// Show declarations relative to this source tree (default: the `source` link kbuild
        /// puts beside vmlinux, if any).
        #[arg(long)]
        srctree: Option<PathBuf>,
    },
    /// Show one type's C and Rust layouts, as read from DWARF.
    Show {
        /// The type's name (`task_struct`).
        name: String,
        /// vmlinux, then modules (files or folders).
        #[arg(required = true)]
        images: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    match run(&Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("layout-check: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// The ELF files to read: files as given, folders searched for `.ko` files.
fn image_files(images: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in images {
        if path.is_dir() {
            files.extend(symbolizer::find_modules(path).into_iter().map(|(_, p)| p));
        } else if path.is_file() {
            files.push(path.clone());
        } else {
            anyhow::bail!("{} does not exist: build the kernel first", path.display());
        }
    }
    Ok(files)
}

/// Reads both sides from every image: Rust's types first (they say which C names matter).
fn read(images: &[PathBuf]) -> anyhow::Result<Definitions> {
    let files = image_files(images)?;
    let step = progress::start(&format!("reading DWARF of {} files", files.len()));
    let read = match layout_check::read_images(&files, false) {
        Ok(read) => read,
        Err(e) => {
            step.failed();
            return Err(e.into());
        }
    };
    step.done(&format!("{} Rust types, {} C names", read.defs.rust.len(), read.defs.c.len()));
    Ok(read.defs)
}

fn run(cli: &Cli) -> anyhow::Result<bool> {
    match &cli.command {
        Cmd::Show { name, images } => {
            let defs = read(images)?;
            let mut any = false;
            for t in defs.c.get(name).into_iter().flatten() {
                println!("C: {}", model::render(t));
                any = true;
            }
            for ((krate, n), t) in &defs.rust {
                if n == name {
                    println!("Rust ({krate}): {}", model::render(t));
                    any = true;
                }
            }
            if !any {
                anyhow::bail!("no struct or union {name} in the DWARF of these files");
            }
            Ok(true)
        }
        Cmd::Check { images, json, html, bindgen: objtree, srctree } => {
            let mut defs = read(images)?;
            let srctree = srctree.clone().or_else(|| {
                let link = images[0].parent()?.join("source");
                std::fs::canonicalize(link).ok()
            });
            if let Some(srctree) = &srctree {
                layout_check::shorten_decls(&mut defs, &mut Default::default(), srctree);
            }
            let step = progress::start("comparing layouts");
            let report = compare(&defs);
            step.done(&format!("{} types compared", report.summary.compared));
            if report.summary.compared == 0 {
                anyhow::bail!(
                    "none of the {} Rust types of the bindings and uapi crates has a C definition in the DWARF of {}: nothing compared; are these the vmlinux and modules the bindings were generated for, built with CONFIG_DEBUG_INFO?",
                    report.summary.rust_types,
                    images[0].display()
                );
            }
            let layout_tests = match objtree {
                None => None,
                Some(objtree) => {
                    let work = tempfile::tempdir().context("cannot make a work folder")?;
                    let step = progress::start("bindgen's layout tests");
                    let outcomes = bindgen::run(objtree, work.path(), &mut |m| step.message(m))?;
                    let failed: usize = outcomes.iter().map(|o| o.failed.len()).sum();
                    step.done(&format!("{failed} failed"));
                    Some(outcomes)
                }
            };
            let failed_tests: Vec<bindgen::LayoutTest> =
                layout_tests.iter().flatten().flat_map(|o| o.failed.clone()).collect();
            if *json {
                let result = layout_check::result::to_result(&report, layout_tests.as_deref());
                print!("{}", results::to_json(results::ToolResult::LayoutCheck(result)));
            } else {
                print!("{}", text::render(&report));
                if let Some(outcomes) = &layout_tests {
                    for o in outcomes {
                        println!(
                            "bindgen's layout tests for {}: {} assertions, {} failed (each type's first failing one)",
                            o.krate,
                            o.assertions,
                            o.failed.len()
                        );
                        for t in &o.failed {
                            let show = |v: Option<u64>| v.map_or("?".to_owned(), |v| v.to_string());
                            println!(
                                "  {}: clang {}, Rust {}",
                                t.assertion,
                                show(t.clang),
                                show(t.rust)
                            );
                        }
                    }
                }
            }
            if let Some(path) = html {
                let text = render_html(
                    "layout-check: Rust's bindings against C",
                    &report,
                    layout_tests.as_ref().map(|_| failed_tests.as_slice()),
                );
                let tmp = path.with_extension("html.tmp");
                std::fs::write(&tmp, text)
                    .with_context(|| format!("cannot write {}", tmp.display()))?;
                std::fs::rename(&tmp, path)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                eprintln!("layout-check: HTML report {}", path.display());
            }
            Ok(report.ok() && failed_tests.is_empty())
        }
    }
}
