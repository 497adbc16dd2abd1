//! Compile a kernel at run time, launch it on a million floats, read the result back.
//!
//! ```sh
//! CUABI_LIBRARY=/path/to/build/libcuabi.so.1 cargo run --example saxpy
//! ```
//!
//! Without a GPU it compiles nothing and says what is missing: cuabi's message ends in `Fix: ...`.

use cuabi::{Buffer, CompileOptions, Context, LaunchConfig, Module, Stream};
use std::process::ExitCode;

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn run() -> cuabi::Result<()> {
    let n: u32 = 1 << 20;
    let context = Context::new()?; // device 0
    println!("device: {}", context.device_info()?.name);
    let module = Module::compile(&context, SAXPY, &CompileOptions::new())?; // NVRTC, or a cache hit
    println!("module: {:?} from {:?}", module.info()?.image_kind, module.info()?.origin);
    let saxpy = module.kernel("saxpy")?;

    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let dx = Buffer::from_slice(&context, &x)?;
    let dy = Buffer::from_slice(&context, &vec![1.0f32; n as usize])?;

    let stream = Stream::new(&context)?;
    let config = LaunchConfig::new().grid(n.div_ceil(256)).block(256).stream(&stream);
    saxpy.launch(&config, &[&2.0f32, &dx, &dy, &n])?; // every limit and argument checked
    stream.synchronize()?;

    let y: Vec<f32> = dy.to_vec()?;
    println!("y[3] = {}", y[3]); // 7
    assert!(y.iter().enumerate().all(|(i, &v)| v == 1.0 + 2.0 * i as f32));

    // A mistake is caught before the driver sees it, with the values and a fix:
    if let Err(error) = saxpy.launch(&config, &[&2.0f64, &dx, &dy, &n]) {
        println!("refused: {error}");
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
