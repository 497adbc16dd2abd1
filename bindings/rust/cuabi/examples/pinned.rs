//! Pinned host memory and stream copies: a pipeline of chunks over two streams, so that one
//! stream's copies overlap with the other stream's kernel. Also the launch priority of 1.1.
//!
//! ```sh
//! CUABI_LIBRARY=/path/to/build/libcuabi.so.1 cargo run --example pinned
//! ```

use cuabi::{Buffer, CompileOptions, Context, HostMemory, HostMemoryOptions, LaunchConfig, Module, Stream};
use std::process::ExitCode;
use std::time::Instant;

const SQUARE: &str = r#"
extern "C" __global__ void square(float* data, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * data[i];
}
"#;

const CHUNK: usize = 1 << 20; // floats per chunk
const CHUNKS: usize = 16;

fn run() -> cuabi::Result<()> {
    let context = Context::new()?;
    let square = Module::compile(&context, SQUARE, &CompileOptions::new())?.kernel("square")?;
    // Page-locked: the copy engines read and write it directly, and copies on a stream return at once.
    let mut input = HostMemory::<f32>::new(&context, CHUNK * CHUNKS, &HostMemoryOptions::new())?;
    let mut output = HostMemory::<f32>::new(&context, CHUNK * CHUNKS, &HostMemoryOptions::new())?;
    for (i, value) in input.iter_mut().enumerate() {
        *value = (i % 1000) as f32;
    }
    let device = Buffer::new(&context, CHUNK * CHUNKS * 4)?;
    let streams = [Stream::new(&context)?, Stream::new(&context)?];

    let started = Instant::now();
    for (chunk, (input, output)) in input.chunks(CHUNK).zip(output.chunks_mut(CHUNK)).enumerate() {
        let stream = &streams[chunk % 2];
        let offset = chunk * CHUNK * 4;
        let config = LaunchConfig::new().grid((CHUNK / 256) as u32).block(256).stream(stream);
        // Safety: `input` and `output` outlive the streams' work (synchronized below, before they
        // are read or dropped), and nothing touches them meanwhile.
        unsafe {
            device.write_async(offset, input, stream)?;
            square.launch(&config, &[&device.device_ptr().offset(offset as u64), &(CHUNK as u32)])?;
            device.read_async(offset, output, stream)?;
        }
    }
    for stream in &streams {
        stream.synchronize()?;
    }
    let elapsed = started.elapsed();
    assert!(output.iter().zip(input.iter()).all(|(out, x)| *out == x * x));
    let gib = (2 * CHUNK * CHUNKS * 4) as f64 / f64::from(1 << 30);
    println!(
        "{CHUNKS} chunks up, squared and down over 2 streams: {elapsed:?} ({:.1} GiB/s)",
        gib / elapsed.as_secs_f64()
    );

    // A launch may run at a priority of its own (lower is more urgent), without a stream of its own.
    let urgent = LaunchConfig::new().grid(1).block(256).stream(&streams[0]).priority(-1);
    square.launch(&urgent, &[&device, &256u32])?;
    streams[0].synchronize()?;
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
