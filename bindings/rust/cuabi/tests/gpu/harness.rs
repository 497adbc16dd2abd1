//! The GPU tests' own harness (Cargo.toml: `harness = false` for this test target). On stable
//! Rust, libtest cannot decide at run time that a test is ignored, so a GPU test that returned
//! early on a machine without a GPU reported "ok". Here each test returns `Ok(())` when it ran,
//! or `Err(Skip)` saying why it cannot run on this machine, which is reported the way libtest
//! reports `#[ignore = "reason"]` ("ignored, reason") and counted as ignored in the summary line.
//!
//! Each test runs on a thread of its own, one after the other; a panic fails it. Arguments as
//! libtest takes them: filters (a test runs when its name contains one, or equals one with
//! `--exact`), `--list`, `--ignored` (runs nothing: no test is ignored before it runs), and
//! `--include-ignored`, `--nocapture`, `--show-output`, `-q`/`--quiet`, `--test-threads N`,
//! `--color C`, `--format F`, which change nothing here.

use std::time::Instant;

/// Why a test could not run on this machine (no GPU, or a GPU without the feature it tests).
pub struct Skip(pub String);

/// What a test returns: `Ok(())` after it ran and checked everything.
pub type Outcome = Result<(), Skip>;

pub struct Test {
    pub name: &'static str,
    pub run: fn() -> Outcome,
}

/// `tests![module::name, ...]`: the table of tests, each named by its path.
macro_rules! tests {
    ($($test:path),* $(,)?) => {
        &[$(harness::Test { name: stringify!($test), run: $test }),*]
    };
}
pub(crate) use tests;

struct Options {
    filters: Vec<String>,
    exact: bool,
    list: bool,
    only_ignored: bool,
}

fn parse(arguments: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options { filters: Vec::new(), exact: false, list: false, only_ignored: false };
    let mut arguments = arguments.peekable();
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--exact" => options.exact = true,
            "--list" => options.list = true,
            "--ignored" => options.only_ignored = true,
            "--include-ignored" | "--nocapture" | "--show-output" | "-q" | "--quiet" => {}
            "--test-threads" | "--color" | "--format" => {
                arguments.next().ok_or(format!("{argument} needs a value"))?;
            }
            _ if ["--test-threads=", "--color=", "--format="].iter().any(|prefix| argument.starts_with(prefix)) => {}
            _ if argument.starts_with('-') => return Err(format!("unknown option {argument}")),
            _ => options.filters.push(argument),
        }
    }
    Ok(options)
}

impl Options {
    fn selects(&self, name: &str) -> bool {
        !self.only_ignored
            && (self.filters.is_empty()
                || self
                    .filters
                    .iter()
                    .any(|filter| if self.exact { name == filter } else { name.contains(filter.as_str()) }))
    }
}

/// Runs the selected tests and returns the process's exit status: 0, or 101 when one failed
/// (libtest's).
pub fn run(tests: &[Test]) -> i32 {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(problem) => {
            eprintln!("error: {problem}");
            return 101;
        }
    };
    // stringify! may space a path out ("graphs :: name").
    let named: Vec<_> = tests.iter().map(|test| (test.name.replace(' ', ""), test.run)).collect();
    let selected: Vec<_> = named.iter().filter(|(name, _)| options.selects(name)).collect();
    if options.list {
        for (name, _) in &selected {
            println!("{name}: test");
        }
        println!("\n{} tests, 0 benchmarks", selected.len());
        return 0;
    }
    let started = Instant::now();
    let (mut passed, mut ignored, mut failed) = (0, 0, Vec::new());
    println!("\nrunning {} test{}", selected.len(), if selected.len() == 1 { "" } else { "s" });
    for (name, test) in &selected {
        let test = *test;
        let outcome = std::thread::Builder::new().name(name.clone()).spawn(test).expect("a thread for the test").join();
        match outcome {
            Ok(Ok(())) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Ok(Err(Skip(reason))) => {
                println!("test {name} ... ignored, {reason}");
                ignored += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(name.as_str());
            }
        }
    }
    if !failed.is_empty() {
        println!("\nfailures:");
        for name in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {passed} passed; {} failed; {ignored} ignored; 0 measured; {} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len(),
        named.len() - selected.len(),
        started.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        0
    } else {
        101
    }
}
