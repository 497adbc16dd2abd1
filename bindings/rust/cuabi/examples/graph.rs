//! Capture launches into a CUDA graph, look at its nodes, replay it, point one node at other
//! buffers, and keep the graph in the graph cache for the next time.
//!
//! ```sh
//! CUABI_LIBRARY=/path/to/build/libcuabi.so.1 cargo run --example graph
//! ```

use cuabi::{Buffer, CaptureMode, CompileOptions, Context, GraphOptions, LaunchConfig, Module, Stream};
use std::process::ExitCode;

const SOURCE: &str = r#"
extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn run() -> cuabi::Result<()> {
    let n: u32 = 1 << 16;
    let context = Context::new()?;
    let module = Module::compile(&context, SOURCE, &CompileOptions::new())?;
    let axpy = module.kernel("axpy")?;
    let stream = Stream::new(&context)?;
    let x = Buffer::from_slice(&context, &vec![1.0f32; n as usize])?;
    let y = Buffer::zeroed(&context, n as usize * 4)?;
    let config = LaunchConfig::new().grid(n / 256).block(256).stream(&stream);

    // The graph cache finds a graph again by a key of your choosing and a size class.
    let key = b"examples/graph: four axpy";
    let graph = match cuabi::graph_cache::lookup(&context, key, n.into())? {
        Some(graph) => graph,
        None => {
            // Everything enqueued inside the closure is recorded, not run. An error or a panic in
            // it aborts the capture: the stream never stays capturing.
            let graph = stream.capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |_| {
                for a in [1.0f32, 2.0, 3.0, 4.0] {
                    axpy.launch(&config, &[&a, &x, &y, &n])?;
                }
                Ok(())
            })?;
            // x and y reach the graph only as kernel arguments: it must keep them alive itself,
            // since the cached graph may outlive this function's handles.
            graph.retain_buffer(&x)?;
            graph.retain_buffer(&y)?;
            cuabi::graph_cache::insert(&context, key, n.into(), &graph)?;
            graph
        }
    };
    for (index, node) in graph.nodes()?.iter().enumerate() {
        println!(
            "node {index}: {:?} {} grid {:?} block {:?}",
            node.kind,
            graph.node_kernel_name(index)?,
            node.grid,
            node.block
        );
    }

    graph.launch(Some(&stream))?; // one call replays all four launches
    stream.synchronize()?;
    println!("after one replay: y[0] = {}", y.to_vec::<f32>()?[0]); // 10

    // Point the first node at other buffers; the graph must keep them alive for its replays.
    let (x2, y2) =
        (Buffer::from_slice(&context, &vec![5.0f32; n as usize])?, Buffer::zeroed(&context, n as usize * 4)?);
    graph.retain_buffer(&x2)?;
    graph.retain_buffer(&y2)?;
    graph.update_kernel_args(0, &[&1.0f32, &x2, &y2, &n])?;
    graph.launch(Some(&stream))?;
    stream.synchronize()?;
    println!("after the update: y[0] = {}, y2[0] = {}", y.to_vec::<f32>()?[0], y2.to_vec::<f32>()?[0]); // 19, 5
    println!("graph cache: {:?}", cuabi::graph_cache::stats()?);
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
