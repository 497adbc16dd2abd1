//! The conformance scenario in Rust (tests/conformance/README.md): the same seventeen steps as the C
//! reference, printing the same transcript line for line. The library comes from `CUABI_LIBRARY`,
//! else `libcuabi.so.1` through the dynamic linker's search path.
//!
//! ```sh
//! cargo run --example conformance
//! ```

use cuabi::{
    Buffer, CaptureMode, CompileOptions, ConditionReset, ConditionalType, Context, Error, GraphOptions, ImageKind,
    Kernel, LaunchConfig, LaunchItem, LinkInput, LinkOptions, Module, NodeKind, Origin, PackedArgs, Status, Stream,
};
use std::process::ExitCode;

const N: u32 = 1 << 20;
const BLOCK: u32 = 256;
const BATCH_LAUNCHES: usize = 4;
const GRAPH_LAUNCHES: usize = 8;
const WHILE_ITERATIONS: u32 = 5;
const THREADS: usize = 4;
const THREAD_LAUNCHES: u32 = 1000;

const SOURCE: &str = "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template <typename T>
__global__ void scale(T* data, T factor, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}
";
/// The conditional-graph step's kernel: counts down and clears the while node's condition at zero.
const COUNT_DOWN_SOURCE: &str = "extern \"C\" __device__ __cudart_builtin__ void cudaGraphSetConditional(\
cudaGraphConditionalHandle handle, unsigned int value);
extern \"C\" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
}
";
const BROKEN: &str = "__global__ void broken( { }\n";
const NAME_EXPRESSIONS: [&str; 2] = ["scale<float>", "scale<double>"];
const LINK_KERNEL: &str = "extern \"C\" __device__ float twice(float x);
extern \"C\" __global__ void apply_twice(float* data, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = twice(data[i]);
}
";
const LINK_DEVICE: &str = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n";

/// What a step reports when a check does not hold: the transcript's "what differed".
type Step = Result<(), String>;

/// A failed call as "what differed", with cuabi's message on stderr.
fn failed(what: &str, error: &Error) -> String {
    eprintln!("{what}: {}", error.message());
    format!("{what} returned {}, expected CUABI_SUCCESS", error.name())
}

trait Expect<T> {
    /// The value, or the step's failure naming `what`.
    fn expect_ok(self, what: &str) -> Result<T, String>;
}

impl<T> Expect<T> for cuabi::Result<T> {
    fn expect_ok(self, what: &str) -> Result<T, String> {
        self.map_err(|error| failed(what, &error))
    }
}

/// Expects `result` to fail with `status`, its message containing `text`.
fn expect_refusal<T>(result: cuabi::Result<T>, status: Status, text: &str, what: &str) -> Step {
    match result {
        Ok(_) => Err(format!("{what} returned CUABI_SUCCESS, expected {}", status.name())),
        Err(error) if error.status() != status => {
            eprintln!("{what}: {}", error.message());
            Err(format!("{what} returned {}, expected {}", error.name(), status.name()))
        }
        Err(error) if !error.message().contains(text) => {
            Err(format!("{what}: the message has no '{text}': {}", error.message()))
        }
        Err(_) => Ok(()),
    }
}

fn need<'a, T>(value: &'a Option<T>, what: &str) -> Result<&'a T, String> {
    value.as_ref().ok_or_else(|| format!("needs {what} from an earlier step"))
}

/// Everything the steps share: what earlier steps made and what y should now hold.
#[derive(Default)]
struct Scenario {
    offline: Option<Module>,
    offline_again: Option<Module>,
    no_gpu: Option<&'static str>,
    context_failed: Option<&'static str>,
    context: Option<Context>,
    stream: Option<Stream>,
    x: Option<Buffer>,
    y: Option<Buffer>,
    x2: Option<Buffer>,
    y2: Option<Buffer>,
    module: Option<Module>,
    saxpy: Option<Kernel>,
    scale: Option<Kernel>,
    graph: Option<cuabi::Graph>,
    count_down_module: Option<Module>,
    count_down: Option<Kernel>,
    counter: Option<Buffer>,
    while_graph: Option<cuabi::Graph>,
    expect: Vec<f32>,
}

fn offline_options() -> CompileOptions {
    NAME_EXPRESSIONS.iter().fold(CompileOptions::new().target("sm_90"), |options, e| options.name_expression(e))
}

// ---- CPU steps ---------------------------------------------------------------------------------

fn load(_: &mut Scenario) -> Step {
    cuabi::load(None).expect_ok("loading libcuabi")?;
    let abi = cuabi::abi_version().expect_ok("cuabi_abi_version")?;
    if abi != 1 {
        return Err(format!("cuabi_abi_version() is {abi}, expected 1"));
    }
    let version = cuabi::version().expect_ok("cuabi_version_number")?.number();
    if version < 10000 {
        return Err(format!("cuabi_version_number() is {version}, expected at least 10000"));
    }
    Ok(())
}

fn status_names(_: &mut Scenario) -> Step {
    for (code, expected) in [(0, "CUABI_SUCCESS"), (67, "CUABI_ERROR_ARGUMENT_SIZE"), (9999, "CUABI_UNKNOWN_STATUS")] {
        let name = cuabi::status_name(code).expect_ok("cuabi_status_name")?;
        if name != expected {
            return Err(format!("the name of status {code} is {name}, expected {expected}"));
        }
    }
    Ok(())
}

fn compile_error(_: &mut Scenario) -> Step {
    let error = match Module::compile_offline(BROKEN, &CompileOptions::new().target("sm_90")) {
        Ok(_) => return Err("compiling BROKEN returned CUABI_SUCCESS, expected CUABI_ERROR_COMPILE".into()),
        Err(error) => error,
    };
    if error.status() != Status::Compile {
        eprintln!("compiling BROKEN: {}", error.message());
        return Err(format!("compiling BROKEN returned {}, expected CUABI_ERROR_COMPILE", error.name()));
    }
    if !error.message().contains("Fix:") {
        return Err(format!("the message has no 'Fix:': {}", error.message()));
    }
    match error.compile_log() {
        Some(log) if !log.is_empty() => Ok(()),
        _ => Err("the compile log is empty".into()),
    }
}

fn offline_templates(s: &mut Scenario) -> Step {
    let module = s.offline.insert(Module::compile_offline(SOURCE, &offline_options()).expect_ok("compiling SOURCE")?);
    let info = module.info().expect_ok("cuabi_module_get_info")?;
    if info.image_kind != ImageKind::Cubin {
        return Err(format!("image kind {:?}, expected 2 (CUBIN)", info.image_kind));
    }
    if info.image_size == 0 {
        return Err("the image is empty".into());
    }
    for (expression, lowered) in NAME_EXPRESSIONS.iter().zip(["_Z5scaleIfEvPT_S0_j", "_Z5scaleIdEvPT_S0_j"]) {
        let name = module.lowered_name(expression).expect_ok("cuabi_module_get_lowered_name")?;
        if name != lowered {
            return Err(format!("{expression} lowered to {name}, expected {lowered}"));
        }
    }
    expect_refusal(module.lowered_name("scale<int>"), Status::KernelNotFound, "", "the lowered name of scale<int>")
}

fn memory_cache(s: &mut Scenario) -> Step {
    let module =
        s.offline_again.insert(Module::compile_offline(SOURCE, &offline_options()).expect_ok("compiling SOURCE")?);
    let info = module.info().expect_ok("cuabi_module_get_info")?;
    if info.origin != Origin::MemoryCache {
        return Err(format!("origin {:?}, expected 1 (memory cache)", info.origin));
    }
    Ok(())
}

fn ranges(_: &mut Scenario) -> Step {
    cuabi::range("conformance").expect_ok("cuabi_range_push")?.end().expect_ok("cuabi_range_pop")?;
    let range = cuabi::Range::start("conformance").expect_ok("cuabi_range_start")?;
    std::thread::spawn(move || range.end())
        .join()
        .map_err(|_| "the ending thread panicked")?
        .expect_ok("cuabi_range_end")?;
    expect_refusal(cuabi::ranges::pop(), Status::Range, "", "cuabi_range_pop() with none open")?;
    let catalog = cuabi::ranges::catalog().expect_ok("reading the catalog")?;
    if catalog.len() < 13 {
        return Err(format!("the catalog has {} entries, expected at least 13", catalog.len()));
    }
    match catalog.iter().position(|entry| !entry.name.starts_with("cuabi.")) {
        Some(index) => Err(format!("catalog entry {index} is named {}", catalog[index].name)),
        None => Ok(()),
    }
}

fn link(_: &mut Scenario) -> Step {
    let compile = CompileOptions::new().target("sm_90").lto_ir();
    let kernel = Module::compile_offline(LINK_KERNEL, &compile).expect_ok("compiling LINK_KERNEL")?;
    let device = Module::compile_offline(LINK_DEVICE, &compile).expect_ok("compiling LINK_DEVICE")?;
    let options = LinkOptions::new().target("sm_90").lto();
    let linked = Module::link_offline(&[LinkInput::Module(&kernel), LinkInput::Module(&device)], &options)
        .expect_ok("cuabi_module_link_offline")?;
    let info = linked.info().expect_ok("cuabi_module_get_info")?;
    if info.image_kind != ImageKind::Cubin {
        return Err(format!("the linked image kind is {:?}, expected 2 (CUBIN)", info.image_kind));
    }
    let names = linked.kernel_names().expect_ok("cuabi_module_get_kernel_names")?;
    if names != ["apply_twice"] {
        return Err(format!("the linked kernels are {names:?}, expected apply_twice"));
    }
    expect_refusal(
        Module::link_offline(&[LinkInput::Module(&kernel)], &options),
        Status::Link,
        "Fix:",
        "linking LINK_KERNEL alone",
    )
}

fn context(s: &mut Scenario) -> Step {
    let context = match Context::new() {
        Ok(context) => s.context.insert(context),
        Err(error) if error.is_no_gpu() => {
            s.no_gpu = Some(error.name());
            if !error.message().contains("Fix:") {
                return Err(format!("the message has no 'Fix:': {}", error.message()));
            }
            return Ok(());
        }
        Err(error) => {
            s.context_failed = Some(error.name());
            return Err(failed("cuabi_context_create", &error));
        }
    };
    let info = context.device_info().expect_ok("cuabi_context_get_device_info")?;
    if info.name.is_empty() {
        return Err("the device has no name".into());
    }
    let (major, minor) = info.compute_capability;
    if major * 10 + minor < 75 {
        return Err(format!("compute capability {major}.{minor}, expected at least 7.5"));
    }
    Ok(())
}

// ---- GPU steps ---------------------------------------------------------------------------------

/// Compares a buffer of N floats with `want`; reports the first difference.
fn check_floats(what: &str, buffer: &Buffer, want: impl Fn(usize) -> f32) -> Step {
    let got = buffer.to_vec::<f32>().expect_ok("cuabi_buffer_read")?;
    match (0..N as usize).find(|&i| got[i] != want(i)) {
        Some(i) => Err(format!("{what}[{i}] is {}, expected {}", got[i], want(i))),
        None => Ok(()),
    }
}

fn check_y(s: &Scenario) -> Step {
    check_floats("y", need(&s.y, "y")?, |i| s.expect[i])
}

/// y = a * x + y on the host, in f32, as the kernel computes it, `times` times.
fn expect_saxpy(expect: &mut [f32], a: f32, times: usize) {
    for _ in 0..times {
        for (i, y) in expect.iter_mut().enumerate() {
            *y += a * i as f32;
        }
    }
}

fn floats(first: f32, step: f32) -> Vec<f32> {
    (0..N).map(|i| first + step * i as f32).collect()
}

fn buffers(s: &mut Scenario) -> Step {
    let context = need(&s.context, "the context")?;
    let x = s.x.insert(Buffer::from_slice(context, &floats(0.0, 1.0)).expect_ok("writing x")?);
    check_floats("x", x, |i| i as f32)?;
    s.y = Some(Buffer::from_slice(context, &floats(1.0, 0.0)).expect_ok("writing y")?);
    s.expect = floats(1.0, 0.0);
    check_y(s)
}

fn stream_config(s: &Scenario) -> Result<LaunchConfig<'_>, String> {
    Ok(LaunchConfig::new().grid(N / BLOCK).block(BLOCK).stream(need(&s.stream, "the stream")?))
}

fn launch_table(s: &mut Scenario) -> Step {
    let context = need(&s.context, "the context")?;
    let options = NAME_EXPRESSIONS.iter().fold(CompileOptions::new(), |options, e| options.name_expression(e));
    let module = s.module.insert(Module::compile(context, SOURCE, &options).expect_ok("compiling SOURCE")?);
    s.saxpy = Some(module.kernel("saxpy").expect_ok("cuabi_module_get_kernel")?);
    s.stream = Some(Stream::new(context).expect_ok("cuabi_stream_create")?);
    let (x, y, saxpy) = (need(&s.x, "x")?, need(&s.y, "y")?, need(&s.saxpy, "saxpy")?);
    saxpy.launch(&stream_config(s)?, &[&2.0f32, x, y, &N]).expect_ok("cuabi_launch")?;
    need(&s.stream, "the stream")?.synchronize().expect_ok("cuabi_stream_synchronize")?;
    expect_saxpy(&mut s.expect, 2.0, 1);
    check_y(s)
}

fn launch_packed(s: &mut Scenario) -> Step {
    let (x, y, saxpy) = (need(&s.x, "x")?, need(&s.y, "y")?, need(&s.saxpy, "saxpy")?);
    let mut args = PackedArgs::for_kernel(saxpy).expect_ok("cuabi_kernel_get_param_info")?;
    args.set_all(&[&2.0f32, x, y, &N]).expect_ok("packing the arguments")?;
    saxpy.launch_packed(&stream_config(s)?, &args).expect_ok("cuabi_launch_packed")?;
    need(&s.stream, "the stream")?.synchronize().expect_ok("cuabi_stream_synchronize")?;
    expect_saxpy(&mut s.expect, 2.0, 1);
    check_y(s)
}

fn launch_checks(s: &mut Scenario) -> Step {
    let (x, y, saxpy) = (need(&s.x, "x")?, need(&s.y, "y")?, need(&s.saxpy, "saxpy")?);
    let wide_block = stream_config(s)?.block((1024, 2, 1));
    let result = saxpy.launch(&wide_block, &[&2.0f32, x, y, &N]);
    expect_refusal(result, Status::LaunchBlock, "2048", "block (1024,2,1)")?;
    let result = saxpy.launch(&stream_config(s)?, &[&2.0f64, x, y, &N]);
    expect_refusal(result, Status::ArgumentSize, "parameter 0", "8 bytes for parameter 0")?;
    need(&s.stream, "the stream")?.synchronize().expect_ok("cuabi_stream_synchronize")?;
    check_y(s)
}

fn template_kernel(s: &mut Scenario) -> Step {
    let module = need(&s.module, "the module")?;
    s.scale = Some(module.kernel("scale<float>").expect_ok("cuabi_module_get_kernel")?);
    let (scale, y) = (need(&s.scale, "scale<float>")?, need(&s.y, "y")?);
    scale.launch(&stream_config(s)?, &[y, &0.5f32, &N]).expect_ok("cuabi_launch")?;
    need(&s.stream, "the stream")?.synchronize().expect_ok("cuabi_stream_synchronize")?;
    s.expect.iter_mut().for_each(|value| *value *= 0.5);
    check_y(s)
}

fn launch_batch(s: &mut Scenario) -> Step {
    // Field by field: the items borrow the kernel and the stream while the expected values change.
    let Scenario { x, y, saxpy, stream, expect, .. } = s;
    let (x, y, saxpy, stream) = (need(x, "x")?, need(y, "y")?, need(saxpy, "saxpy")?, need(stream, "the stream")?);
    let mut args = PackedArgs::for_kernel(saxpy).expect_ok("cuabi_kernel_get_param_info")?;
    args.set_all(&[&1.0f32, x, y, &N]).expect_ok("packing the arguments")?;
    let config = LaunchConfig::new().grid(N / BLOCK).block(BLOCK).stream(stream);
    let too_large = config.clone().block((1024, 2, 1));
    let mut items = [LaunchItem::new(saxpy, &config, &args); BATCH_LAUNCHES];
    cuabi::launch_batch(&items).map_err(|refused| failed("cuabi_launch_batch", &refused.error))?;
    stream.synchronize().expect_ok("cuabi_stream_synchronize")?;
    expect_saxpy(expect, 1.0, BATCH_LAUNCHES);
    check_floats("y", y, |i| expect[i])?;
    // Item 1 of 3 is refused: item 0 runs, item 2 does not.
    items[1] = LaunchItem::new(saxpy, &too_large, &args);
    let refused = match cuabi::launch_batch(&items[..3]) {
        Ok(()) => return Err("the batch with item 1's block (1024,2,1) succeeded".to_owned()),
        Err(refused) => refused,
    };
    let text = "cuabi_launch_batch item 1 of 3: ";
    expect_refusal::<()>(Err(refused.error), Status::LaunchBlock, text, "item 1's block (1024,2,1)")?;
    if refused.index != 1 {
        return Err(format!("the refused item's index is {}, not 1", refused.index));
    }
    stream.synchronize().expect_ok("cuabi_stream_synchronize")?;
    expect_saxpy(expect, 1.0, 1);
    check_floats("y", y, |i| expect[i])
}

/// Captures GRAPH_LAUNCHES saxpy launches (a = 1, x, y); checks the inventory.
fn capture_graph(s: &Scenario) -> Result<cuabi::Graph, String> {
    let (x, y, saxpy) = (need(&s.x, "x")?, need(&s.y, "y")?, need(&s.saxpy, "saxpy")?);
    let config = stream_config(s)?;
    let stream = need(&s.stream, "the stream")?;
    let graph = stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |_| {
            (0..GRAPH_LAUNCHES).try_for_each(|_| saxpy.launch(&config, &[&1.0f32, x, y, &N]))
        })
        .expect_ok("capturing the launches")?;
    let nodes = graph.nodes().expect_ok("reading the inventory")?;
    if nodes.len() != GRAPH_LAUNCHES {
        return Err(format!("the graph has {} nodes, expected {GRAPH_LAUNCHES}", nodes.len()));
    }
    match nodes.iter().position(|node| node.kind != NodeKind::Kernel) {
        Some(index) => Err(format!("node {index} is of kind {:?}, expected 1 (kernel)", nodes[index].kind)),
        None => Ok(graph),
    }
}

fn graph(s: &mut Scenario) -> Step {
    let context = need(&s.context, "the context")?;
    s.x2 = Some(Buffer::from_slice(context, &floats(1.0, 0.0)).expect_ok("writing x2")?);
    s.y2 = Some(Buffer::from_slice(context, &floats(0.0, 0.0)).expect_ok("writing y2")?);
    s.graph = Some(capture_graph(s)?);
    let (graph, stream) = (need(&s.graph, "the graph")?, need(&s.stream, "the stream")?);
    graph.launch(Some(stream)).expect_ok("cuabi_graph_launch")?;
    stream.synchronize().expect_ok("cuabi_stream_synchronize")?;
    expect_saxpy(&mut s.expect, 1.0, GRAPH_LAUNCHES);
    check_y(s)?;
    let (x2, y2) = (need(&s.x2, "x2")?, need(&s.y2, "y2")?);
    // The graph reaches x2 and y2 only through kernel arguments: it must be told to keep them.
    graph.retain_buffer(x2).expect_ok("cuabi_graph_retain_buffer")?;
    graph.retain_buffer(y2).expect_ok("cuabi_graph_retain_buffer")?;
    graph.update_kernel_args(0, &[&1.0f32, x2, y2, &N]).expect_ok("cuabi_graph_update_kernel_args")?;
    graph.launch(Some(stream)).expect_ok("cuabi_graph_launch")?;
    stream.synchronize().expect_ok("cuabi_stream_synchronize")?;
    expect_saxpy(&mut s.expect, 1.0, GRAPH_LAUNCHES - 1);
    check_y(s)?;
    check_floats("y2", need(&s.y2, "y2")?, |_| 1.0)
}

/// A while node whose body is saxpy(1, x, y) and count_down(counter, condition).
fn capture_while(s: &Scenario) -> Result<cuabi::Graph, String> {
    let (x, y, saxpy) = (need(&s.x, "x")?, need(&s.y, "y")?, need(&s.saxpy, "saxpy")?);
    let (count_down, counter) = (need(&s.count_down, "count_down")?, need(&s.counter, "the counter")?);
    let stream = need(&s.stream, "the stream")?;
    let config = stream_config(s)?;
    let one = LaunchConfig::new().grid(1).block(1).stream(stream);
    stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |stream| {
            let condition = stream.create_condition(1, ConditionReset::EveryReplay)?;
            stream.capture_while(condition, |_| {
                saxpy.launch(&config, &[&1.0f32, x, y, &N])?;
                count_down.launch(&one, &[counter, &condition])
            })
        })
        .expect_ok("capturing the while node")
}

fn conditional_graph(s: &mut Scenario) -> Step {
    let context = need(&s.context, "the context")?;
    let module =
        Module::compile(context, COUNT_DOWN_SOURCE, &CompileOptions::new()).expect_ok("cuabi_module_compile")?;
    s.count_down = Some(module.kernel("count_down").expect_ok("cuabi_module_get_kernel")?);
    s.count_down_module = Some(module);
    s.counter = Some(Buffer::from_slice(context, &[WHILE_ITERATIONS]).expect_ok("writing the counter")?);
    s.while_graph = Some(capture_while(s)?);
    let (graph, stream) = (need(&s.while_graph, "the graph")?, need(&s.stream, "the stream")?);
    let nodes = graph.nodes().expect_ok("reading the inventory")?;
    if nodes.len() != 1 {
        return Err(format!("the graph has {} nodes, expected 1", nodes.len()));
    }
    let node = &nodes[0];
    if node.kind != NodeKind::Conditional
        || node.conditional_type != Some(ConditionalType::While)
        || node.conditional_body_nodes != 2
    {
        return Err(format!(
            "node 0 is of kind {:?}, type {:?} with {} body nodes, expected 14, 2 with 2",
            node.kind, node.conditional_type, node.conditional_body_nodes
        ));
    }
    graph.launch(Some(stream)).expect_ok("cuabi_graph_launch")?;
    stream.synchronize().expect_ok("cuabi_stream_synchronize")?;
    expect_saxpy(&mut s.expect, 1.0, WHILE_ITERATIONS as usize);
    check_y(s)?;
    let counter = need(&s.counter, "the counter")?.to_vec::<u32>().expect_ok("reading the counter")?;
    match counter[0] {
        0 => Ok(()),
        left => Err(format!("the counter is {left} after the replay, expected 0")),
    }
}

/// One thread of the threads step: its own stream and buffers, THREAD_LAUNCHES launches.
fn worker(context: &Context, saxpy: &Kernel) -> Step {
    let stream = Stream::new(context).expect_ok("cuabi_stream_create")?;
    let x = Buffer::new(context, N as usize * 4).expect_ok("cuabi_buffer_create")?;
    let y = Buffer::new(context, N as usize * 4).expect_ok("cuabi_buffer_create")?;
    x.fill(0, 1.0f32, N as usize, Some(&stream)).expect_ok("cuabi_buffer_fill")?;
    y.fill(0, 0u32, N as usize, Some(&stream)).expect_ok("cuabi_buffer_fill")?;
    let config = LaunchConfig::new().grid(N / BLOCK).block(BLOCK).stream(&stream);
    for _ in 0..THREAD_LAUNCHES {
        saxpy.launch(&config, &[&1.0f32, &x, &y, &N]).expect_ok("cuabi_launch")?;
    }
    stream.synchronize().expect_ok("cuabi_stream_synchronize")?;
    check_floats("y", &y, |_| THREAD_LAUNCHES as f32)
}

fn threads(s: &mut Scenario) -> Step {
    let (context, saxpy) = (need(&s.context, "the context")?, need(&s.saxpy, "saxpy")?);
    let results: Vec<Step> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS).map(|_| scope.spawn(|| worker(context, saxpy))).collect();
        handles.into_iter().map(|handle| handle.join().unwrap_or_else(|_| Err("panicked".into()))).collect()
    });
    match results.iter().position(Result::is_err) {
        Some(index) => Err(format!("thread {index}: {}", results[index].clone().unwrap_err())),
        None => Ok(()),
    }
}

/// Drops every handle, the context first. Rust cannot drop a value twice; the equivalent of a
/// double destroy is the raw destroy of each handle after its drop, which must be harmless.
fn teardown(s: &mut Scenario) -> Step {
    let api = cuabi::raw_api().expect_ok("the raw table")?;
    let buffer = need(&s.x, "x")?.as_raw();
    let graph = need(&s.graph, "the graph")?.as_raw();
    let (kernel, module, stream) = (
        need(&s.saxpy, "saxpy")?.as_raw(),
        need(&s.module, "the module")?.as_raw(),
        need(&s.stream, "the stream")?.as_raw(),
    );
    let context = need(&s.context, "the context")?.as_raw();
    drop_all(s);
    // Safety: the handles are stale, which cuabi's destroy functions and getters accept.
    unsafe {
        api.cuabi_context_destroy.ok_or("no cuabi_context_destroy")?(context);
        api.cuabi_graph_destroy.ok_or("no cuabi_graph_destroy")?(graph);
        api.cuabi_kernel_destroy.ok_or("no cuabi_kernel_destroy")?(kernel);
        api.cuabi_module_destroy.ok_or("no cuabi_module_destroy")?(module);
        api.cuabi_stream_destroy.ok_or("no cuabi_stream_destroy")?(stream);
        api.cuabi_buffer_destroy.ok_or("no cuabi_buffer_destroy")?(buffer);
        let mut size = 0;
        let status = api.cuabi_buffer_get_size.ok_or("no cuabi_buffer_get_size")?(buffer, &mut size);
        if status != Status::InvalidHandle.code() {
            return Err(format!(
                "cuabi_buffer_get_size on a destroyed buffer returned {}, expected CUABI_ERROR_INVALID_HANDLE",
                cuabi::status_name(status).unwrap_or("?")
            ));
        }
    }
    Ok(())
}

/// Drops every handle the scenario holds, in teardown's order: context, graph, kernels, modules,
/// stream, buffers.
fn drop_all(s: &mut Scenario) {
    drop(s.context.take());
    drop((s.graph.take(), s.while_graph.take()));
    drop((s.saxpy.take(), s.scale.take(), s.count_down.take()));
    drop((s.module.take(), s.offline.take(), s.offline_again.take(), s.count_down_module.take()));
    drop(s.stream.take());
    drop((s.x.take(), s.y.take(), s.x2.take(), s.y2.take(), s.counter.take()));
}

// ---- the run -----------------------------------------------------------------------------------

type StepFn = fn(&mut Scenario) -> Step;

const STEPS: [(&str, StepFn, bool); 18] = [
    ("load", load, false),
    ("status-names", status_names, false),
    ("compile-error", compile_error, false),
    ("offline-templates", offline_templates, false),
    ("memory-cache", memory_cache, false),
    ("ranges", ranges, false),
    ("link", link, false),
    ("context", context, false),
    ("buffers", buffers, true),
    ("launch-table", launch_table, true),
    ("launch-packed", launch_packed, true),
    ("launch-checks", launch_checks, true),
    ("template-kernel", template_kernel, true),
    ("launch-batch", launch_batch, true),
    ("graph", graph, true),
    ("conditional-graph", conditional_graph, true),
    ("threads", threads, true),
    ("teardown", teardown, true),
];

fn main() -> ExitCode {
    let mut s = Scenario::default();
    let (mut passed, mut failures, mut skipped) = (0, 0, 0);
    for (name, run, needs_gpu) in STEPS {
        if let (true, Some(status)) = (needs_gpu, s.no_gpu) {
            println!("skip {name}: no GPU ({status})");
            skipped += 1;
        } else if let (true, Some(status)) = (needs_gpu, s.context_failed) {
            println!("FAIL {name}: no context ({status})");
            failures += 1;
        } else {
            match run(&mut s) {
                Ok(()) => {
                    println!("ok   {name}");
                    passed += 1;
                }
                Err(why) => {
                    println!("FAIL {name}: {why}");
                    failures += 1;
                }
            }
        }
    }
    drop_all(&mut s);
    println!("{passed} passed, {failures} failed, {skipped} skipped");
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
