//! What a launch through the safe crate costs compared with `cuabi_launch` called directly through
//! the raw function table, in the same process, on the same kernel, stream and arguments; and that
//! it allocates nothing. A third case launches 16 at a time: `cuabi::launch_batch` against
//! `cuabi_launch_batch` through the raw table, per launch.
//!
//! ```sh
//! launch_overhead [--reps N] [--launches N] [--batch N]     (defaults: 40, 10000, 250)
//! ```
//!
//! Methodology (as bench/bench_launch.cpp measures cuabi against the driver): the figure is the
//! host-side submission cost of one launch of a kernel with 4 parameters that does nothing at run
//! time. Launches are timed in batches smaller than the driver's launch queue, with the stream
//! synchronized between batches outside the timed region. Within each repetition every variant
//! runs once, back to back, in an order rotated per repetition; the report gives each variant's
//! median over repetitions and the paired ratio: the median over repetitions of (safe / raw in the
//! same repetition), with its interquartile range, which cancels drift between repetitions.
//! A global allocator wrapper counts allocations during the timed launches (the target is 0).
//! Without a GPU it prints why and exits 0.

use cuabi::{Buffer, CompileOptions, Context, Kernel, LaunchConfig, LaunchItem, Module, PackedArgs, Stream};
use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Counts every allocation of the process.
struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        System.dealloc(pointer, layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(pointer, layout, size)
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Takes its parameters and does nothing with them at run time (n is never negative).
const SOURCE: &str = "extern \"C\" __global__ void args4(float* y, const float* x, float a, int n) {
    if (n < 0) y[0] = a * x[0];
}
";

#[derive(Clone, Copy)]
struct Options {
    reps: usize,
    launches: usize,
    batch: usize,
}

fn options() -> Result<Options, String> {
    let mut options = Options { reps: 40, launches: 10000, batch: 250 };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|value| value.parse::<usize>().ok()).filter(|&value| value > 0);
        let value = value.ok_or_else(|| format!("{flag} needs a positive number"))?;
        match flag.as_str() {
            "--reps" => options.reps = value,
            "--launches" => options.launches = value,
            "--batch" => options.batch = value,
            _ => return Err(format!("unknown option {flag}. Fix: use --reps, --launches or --batch")),
        }
    }
    Ok(options)
}

/// The q-quantile by linear interpolation between order statistics (q = 0.5: the median).
fn quantile(mut values: Vec<f64>, q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let position = q * (values.len() - 1) as f64;
    let below = position as usize;
    if below + 1 >= values.len() {
        return values[below];
    }
    values[below] + (position - below as f64) * (values[below + 1] - values[below])
}

/// Everything the variants launch with.
struct Setup {
    context: Context,
    _module: Module,
    kernel: Kernel,
    stream: Stream,
    x: Buffer,
    y: Buffer,
}

fn setup() -> cuabi::Result<Setup> {
    let context = Context::new()?;
    let module = Module::compile(&context, SOURCE, &CompileOptions::new())?;
    let kernel = module.kernel("args4")?;
    let stream = Stream::new(&context)?;
    let (x, y) = (Buffer::zeroed(&context, 256)?, Buffer::zeroed(&context, 256)?);
    Ok(Setup { context, _module: module, kernel, stream, x, y })
}

/// One way of launching, called once per launch in the timed loops.
type Launch<'a> = Box<dyn FnMut() -> cuabi::Result<()> + 'a>;

/// A case (kernel and argument form) with its baseline (the raw call) and the safe crate's call,
/// each making `per_call` launches.
struct Case<'a> {
    name: &'static str,
    per_call: usize,
    variants: [(&'static str, Launch<'a>); 2],
}

/// Launches per call of the batch case.
const BATCH: usize = 16;

/// The bytes of (y, x, a, n) laid out at the kernel's parameter offsets, for the raw packed call.
fn packed_bytes(s: &Setup, a: f32, n: i32) -> cuabi::Result<Vec<u8>> {
    let params = s.kernel.params()?;
    let values: [&[u8]; 4] =
        [&s.y.device_ptr().0.to_ne_bytes(), &s.x.device_ptr().0.to_ne_bytes(), &a.to_ne_bytes(), &n.to_ne_bytes()];
    let mut bytes = vec![0u8; params.iter().map(|p| p.offset + p.size).max().unwrap_or(0)];
    for (param, value) in params.iter().zip(values) {
        bytes[param.offset..param.offset + param.size].copy_from_slice(value);
    }
    Ok(bytes)
}

fn raw_status(status: i32) -> cuabi::Result<()> {
    assert_eq!(status, 0, "a raw launch failed: {}", cuabi::status_name(status).unwrap_or("?"));
    Ok(())
}

/// Table and packed launches, and batches of 16 packed launches, each raw (baseline) and through
/// the safe crate.
fn cases<'a>(
    s: &'a Setup,
    config: &'a LaunchConfig<'a>,
    packed: &'a PackedArgs,
    bytes: &'a [u8],
    items: &'a [LaunchItem<'a>],
    raw_items: &'a [cuabi::sys::cuabi_launch_item],
) -> cuabi::Result<[Case<'a>; 3]> {
    let api = cuabi::raw_api()?;
    let launch_batch = api.cuabi_launch_batch.expect("the loaded library is 1.2 or later");
    let (launch, launch_packed) =
        (api.cuabi_launch.expect("every 1.x has it"), api.cuabi_launch_packed.expect("every 1.x has it"));
    let kernel = s.kernel.as_raw();
    let (a, n) = (1.0f32, 1i32);
    let (y, x) = (s.y.device_ptr().0, s.x.device_ptr().0);
    let arg = |value: *const u8, size: usize| cuabi::sys::cuabi_kernel_arg { value: value.cast(), size };
    Ok([
        Case {
            name: "table, 4 args",
            per_call: 1,
            variants: [
                (
                    "raw cuabi_launch",
                    Box::new(move || {
                        let table = [
                            arg((&y as *const u64).cast(), 8),
                            arg((&x as *const u64).cast(), 8),
                            arg((&a as *const f32).cast(), 4),
                            arg((&n as *const i32).cast(), 4),
                        ];
                        raw_status(unsafe { launch(kernel, config.as_raw(), table.as_ptr(), table.len()) })
                    }),
                ),
                ("cuabi::Kernel::launch", Box::new(move || s.kernel.launch(config, &[&s.y, &s.x, &a, &n]))),
            ],
        },
        Case {
            name: "packed, 4 args",
            per_call: 1,
            variants: [
                (
                    "raw cuabi_launch_packed",
                    Box::new(move || {
                        raw_status(unsafe {
                            launch_packed(kernel, config.as_raw(), bytes.as_ptr().cast(), bytes.len())
                        })
                    }),
                ),
                ("cuabi::Kernel::launch_packed", Box::new(move || s.kernel.launch_packed(config, packed))),
            ],
        },
        Case {
            name: "batch of 16",
            per_call: BATCH,
            variants: [
                (
                    "raw cuabi_launch_batch",
                    Box::new(move || {
                        let mut submitted = 0;
                        raw_status(unsafe { launch_batch(raw_items.as_ptr(), raw_items.len(), &mut submitted) })
                    }),
                ),
                ("cuabi::launch_batch", Box::new(move || Ok(cuabi::launch_batch(items)?))),
            ],
        },
    ])
}

/// Nanoseconds per launch of `launch` (which makes `per_call` launches) over `options.launches`
/// launches in batches of `options.batch`, and the allocations made while timing.
fn time(launch: &mut Launch<'_>, per_call: usize, stream: &Stream, options: &Options) -> cuabi::Result<(f64, u64)> {
    let options = Options {
        launches: (options.launches / per_call).max(1),
        batch: (options.batch / per_call).max(1),
        ..*options
    };
    let (mut elapsed, mut allocations, mut done) = (0.0, 0, 0);
    while done < options.launches {
        let batch = options.batch.min(options.launches - done);
        stream.synchronize()?;
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let start = Instant::now();
        for _ in 0..batch {
            launch()?;
        }
        elapsed += start.elapsed().as_nanos() as f64;
        allocations += ALLOCATIONS.load(Ordering::Relaxed) - before;
        done += batch;
    }
    stream.synchronize()?;
    Ok((elapsed / (options.launches * per_call) as f64, allocations))
}

/// Runs every repetition and prints the report; true when each safe variant is within 2 % of its
/// baseline (1 % for batches; paired median) and no timed launch allocated.
fn measure(s: &Setup, options: &Options) -> cuabi::Result<bool> {
    let config = LaunchConfig::new().grid(1).block(32).stream(&s.stream);
    let mut packed = PackedArgs::for_kernel(&s.kernel)?;
    packed.set_all(&[&s.y, &s.x, &1.0f32, &1i32])?;
    let bytes = packed_bytes(s, 1.0, 1)?;
    let items = [LaunchItem::new(&s.kernel, &config, &packed); BATCH];
    let raw_item = cuabi::sys::cuabi_launch_item {
        kernel: s.kernel.as_raw(),
        config: config.as_raw(),
        args: std::ptr::null(),
        arg_count: 0,
        packed: bytes.as_ptr().cast(),
        packed_size: bytes.len(),
    };
    let raw_items = [raw_item; BATCH];
    let mut cases = cases(s, &config, &packed, &bytes, &items, &raw_items)?;
    let mut samples = vec![[Vec::new(), Vec::new()]; cases.len()];
    let mut allocations = 0;
    for case in cases.iter_mut() {
        for (_, launch) in case.variants.iter_mut() {
            time(launch, case.per_call, &s.stream, &Options { launches: 1000, ..*options })?;
            // warm-up
        }
    }
    for rep in 0..options.reps {
        for (case, case_samples) in cases.iter_mut().zip(samples.iter_mut()) {
            for turn in 0..2 {
                let variant = (turn + rep) % 2; // rotate which runs first
                let (ns, allocated) = time(&mut case.variants[variant].1, case.per_call, &s.stream, options)?;
                case_samples[variant].push(ns);
                allocations += allocated;
            }
        }
    }
    println!(
        "cuabi {} (Rust binding {}), device: {}",
        cuabi::version()?,
        cuabi::BINDING_VERSION,
        s.context.device_info()?.name
    );
    println!(
        "{} reps x {} launches per variant, batches of {}; grid 1 x block 32\n",
        options.reps, options.launches, options.batch
    );
    println!(
        "{:<16} {:<30} {:>10} {:>10} {:>10}  paired ratio [IQR]",
        "case", "variant", "median ns", "min ns", "max ns"
    );
    let mut within = true;
    for (case, [raw, safe]) in cases.iter().zip(&samples) {
        for (index, values) in [raw, safe].into_iter().enumerate() {
            let ratios: Vec<f64> = values.iter().zip(raw).map(|(v, r)| v / r).collect();
            let (median, q1, q3) =
                (quantile(ratios.clone(), 0.5), quantile(ratios.clone(), 0.25), quantile(ratios, 0.75));
            println!(
                "{:<16} {:<30} {:>10.1} {:>10.1} {:>10.1}  {median:.3} [{q1:.3}, {q3:.3}]",
                case.name,
                case.variants[index].0,
                quantile(values.clone(), 0.5),
                quantile(values.clone(), 0.0),
                quantile(values.clone(), 1.0)
            );
            within &= index == 0 || median <= if case.per_call > 1 { 1.01 } else { 1.02 };
        }
    }
    let launches = (options.reps * options.launches * 6) as u64;
    println!("\nallocations during {launches} timed launches: {allocations}");
    println!(
        "{}",
        if within && allocations == 0 {
            "within target: paired ratio <= 1.02 (batches 1.01), no allocation"
        } else {
            "OUTSIDE target (paired ratio <= 1.02, batches 1.01, no allocation)"
        }
    );
    Ok(within && allocations == 0)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("launch_overhead: {message}");
            return ExitCode::FAILURE;
        }
    };
    let setup = match setup() {
        Ok(setup) => setup,
        Err(error) if error.is_no_gpu() => {
            println!("skip: no GPU ({}): {}", error.name(), error.message());
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("launch_overhead: {error}");
            return ExitCode::FAILURE;
        }
    };
    match measure(&setup, &options) {
        Ok(within) if within => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("launch_overhead: {error}");
            ExitCode::FAILURE
        }
    }
}
