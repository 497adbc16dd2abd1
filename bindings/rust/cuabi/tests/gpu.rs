//! The crate on a GPU: buffers, launches in both forms with their refusals, graphs (capture
//! scopes, inventory, updates, whole-graph updates, the graph cache), events, kernels' facts,
//! threads; pinned host memory, module globals, device attributes, launch priority, programmatic
//! dependent launch, kernel attributes, cluster occupancy, memcpy updates, node enabling and DOT
//! dumps. Without a GPU every test is reported as ignored with the driver's reason (the harness in
//! tests/gpu/harness.rs: libtest cannot ignore a test at run time on stable Rust). A test fn that
//! `main` does not list is dead code, which this file denies, so none is left out by mistake.
#![deny(dead_code)]

use cuabi::{
    Buffer, CaptureMode, CaptureStatus, CompileOptions, Context, Event, EventOptions, GraphOptions, Kernel,
    LaunchConfig, Module, NodeKind, PackedArgs, Param, Reinstantiate, Status, Stream,
};

mod sources;

#[path = "gpu/harness.rs"]
mod harness;
use harness::{Outcome, Skip};

// The 1.1 features, by area (tests/gpu/*.rs), and 1.2's batched launches, several GPUs and tensor maps.
#[path = "gpu/batch.rs"]
mod batch;
#[path = "gpu/conditional.rs"]
mod conditional;
#[path = "gpu/devices.rs"]
mod devices;
#[path = "gpu/graphs.rs"]
mod graphs;
#[path = "gpu/launches.rs"]
mod launches;
#[path = "gpu/memory.rs"]
mod memory;

const N: u32 = 4096;
const SOURCE: &str = concat!(
    sources::scenario_source!(),
    "struct Affine { float a; float b; };
extern \"C\" __global__ void affine(Affine f, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = f.a * y[i] + f.b;
}
"
);

/// The kernel's `Affine` parameter, passed by value.
#[derive(Clone, Copy)]
#[repr(C)]
struct Affine {
    a: f32,
    b: f32,
}
unsafe impl cuabi::DeviceCopy for Affine {}

/// A context, the module compiled for it, its saxpy kernel, a stream, and x[i] = i, y[i] = 1.
struct Gpu {
    context: Context,
    module: Module,
    saxpy: Kernel,
    stream: Stream,
    x: Buffer,
    y: Buffer,
}

impl Gpu {
    /// A Skip saying why on a machine without a GPU.
    fn open() -> Result<Gpu, Skip> {
        let context = match Context::new() {
            Ok(context) => context,
            Err(error) if error.is_no_gpu() => {
                return Err(Skip(format!("no GPU ({}): {}", error.name(), error.message())));
            }
            Err(error) => panic!("{error}"),
        };
        let options = CompileOptions::new().name_expression("scale<float>");
        let module = Module::compile(&context, SOURCE, &options).unwrap();
        let saxpy = module.kernel("saxpy").unwrap();
        let stream = Stream::new(&context).unwrap();
        let x = Buffer::from_slice(&context, &(0..N).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
        let y = Buffer::from_slice(&context, &vec![1.0f32; N as usize]).unwrap();
        Ok(Gpu { context, module, saxpy, stream, x, y })
    }

    fn config(&self) -> LaunchConfig<'_> {
        LaunchConfig::new().grid(N / 256).block(256).stream(&self.stream)
    }

    fn y(&self) -> Vec<f32> {
        self.stream.synchronize().unwrap();
        self.y.to_vec().unwrap()
    }
}

fn expect_y(gpu: &Gpu, want: impl Fn(f32) -> f32) {
    let y = gpu.y();
    for (i, value) in y.iter().enumerate() {
        assert_eq!(*value, want(i as f32), "y[{i}]");
    }
}

fn table_and_packed_launches_compute_saxpy() -> Outcome {
    let gpu = Gpu::open()?;
    gpu.saxpy.launch(&gpu.config(), &[&2.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    expect_y(&gpu, |i| 1.0 + 2.0 * i);
    let mut packed = PackedArgs::for_kernel(&gpu.saxpy).unwrap();
    assert_eq!(
        packed.params(),
        &[
            Param { offset: 0, size: 4 },
            Param { offset: 8, size: 8 },
            Param { offset: 16, size: 8 },
            Param { offset: 24, size: 4 }
        ]
    );
    packed.set_all(&[&2.0f32, &gpu.x, &gpu.y.device_ptr(), &N]).unwrap();
    gpu.saxpy.launch_packed(&gpu.config(), &packed).unwrap();
    expect_y(&gpu, |i| 1.0 + 4.0 * i);
    packed.set(0, &-4.0f32).unwrap();
    gpu.saxpy.launch_packed(&gpu.config(), &packed).unwrap();
    expect_y(&gpu, |_| 1.0);
    let mut bytes = vec![0u8; 28];
    bytes[0..4].copy_from_slice(&1.0f32.to_ne_bytes());
    bytes[8..16].copy_from_slice(&gpu.x.device_ptr().0.to_ne_bytes());
    bytes[16..24].copy_from_slice(&gpu.y.device_ptr().0.to_ne_bytes());
    bytes[24..28].copy_from_slice(&N.to_ne_bytes());
    gpu.saxpy.launch_packed_bytes(&gpu.config(), &bytes).unwrap();
    expect_y(&gpu, |i| 1.0 + i);
    let counters = gpu.context.counters().unwrap();
    assert!(counters.launches >= 4 && counters.launches_packed >= 3, "{counters:?}");
    Ok(())
}

fn synchronous_launch_without_a_stream_finishes_before_returning() -> Outcome {
    let gpu = Gpu::open()?;
    let config = LaunchConfig::new().grid(N / 256).block(256);
    gpu.saxpy.launch(&config, &[&3.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    assert_eq!(gpu.y.to_vec::<f32>().unwrap()[5], 16.0);
    Ok(())
}

fn struct_arguments_pass_by_value() -> Outcome {
    let gpu = Gpu::open()?;
    let affine = gpu.module.kernel("affine").unwrap();
    affine.launch(&gpu.config(), &[&Affine { a: 3.0, b: 0.5 }, &gpu.y, &N]).unwrap();
    expect_y(&gpu, |_| 3.5);
    let error = affine.launch(&gpu.config(), &[&1.0f32, &gpu.y, &N]).unwrap_err();
    assert_eq!(error.status(), Status::ArgumentSize, "{error}");
    Ok(())
}

fn refused_launches_carry_status_and_message_and_run_nothing() -> Outcome {
    let gpu = Gpu::open()?;
    let args: [&dyn cuabi::KernelArg; 4] = [&2.0f32, &gpu.x, &gpu.y, &N];
    let error = gpu.saxpy.launch(&gpu.config().block((1024, 2, 1)), &args).unwrap_err();
    assert_eq!(error.status(), Status::LaunchBlock);
    assert!(error.message().contains("2048") && error.message().contains("Fix:"), "{error}");
    let error = gpu.saxpy.launch(&gpu.config(), &[&2.0f64, &gpu.x, &gpu.y, &N]).unwrap_err();
    assert_eq!(error.status(), Status::ArgumentSize);
    assert!(error.message().contains("parameter 0"), "{error}");
    assert_eq!(gpu.saxpy.launch(&gpu.config(), &args[..3]).unwrap_err().status(), Status::ArgumentCount);
    assert_eq!(gpu.saxpy.launch(&gpu.config().grid(0), &args).unwrap_err().status(), Status::LaunchGrid);
    let too_big = gpu.context.device_info().unwrap().max_shared_memory_per_block_optin as u32 + 1;
    let error = gpu.saxpy.launch(&gpu.config().shared_memory(too_big), &args).unwrap_err();
    assert_eq!(error.status(), Status::LaunchSharedMemory, "{error}");
    let error = gpu.saxpy.launch_packed_bytes(&gpu.config(), &[0u8; 20]).unwrap_err();
    assert_eq!(error.status(), Status::ArgumentSize, "{error}");
    expect_y(&gpu, |_| 1.0);
    Ok(())
}

fn kernels_found_by_name_expression_and_their_facts() -> Outcome {
    let gpu = Gpu::open()?;
    let scale = gpu.module.kernel("scale<float>").unwrap();
    scale.launch(&gpu.config(), &[&gpu.y, &0.5f32, &N]).unwrap();
    expect_y(&gpu, |_| 0.5);
    let error = gpu.module.kernel("scale<int>").unwrap_err();
    assert_eq!(error.status(), Status::KernelNotFound);
    assert!(error.message().contains("Fix:"), "{error}");
    assert_eq!(gpu.saxpy.param_count().unwrap(), 4);
    assert_eq!(gpu.saxpy.param_info(3).unwrap(), Param { offset: 24, size: 4 });
    assert_eq!(gpu.saxpy.param_info(4).unwrap_err().status(), Status::OutOfBounds);
    let attributes = gpu.saxpy.attributes().unwrap();
    let info = gpu.context.device_info().unwrap();
    assert!(attributes.max_threads_per_block > 0 && attributes.max_threads_per_block <= info.max_threads_per_block);
    assert_eq!(attributes.binary_version, info.compute_capability.0 * 10 + info.compute_capability.1);
    assert!(gpu.saxpy.max_active_blocks_per_sm(256, 0).unwrap() > 0);
    let suggestion = gpu.saxpy.suggest_block_size(0).unwrap();
    assert!(suggestion.block_threads > 0 && suggestion.min_grid_blocks > 0, "{suggestion:?}");
    assert!(!gpu.saxpy.native().unwrap().is_null());
    assert_ne!(gpu.module.info().unwrap().origin, cuabi::Origin::Image);
    Ok(())
}

fn a_module_loaded_from_an_image_launches() -> Outcome {
    let gpu = Gpu::open()?;
    let image = gpu.module.image().unwrap();
    let loaded = Module::load_image(&gpu.context, &image).unwrap();
    assert_eq!(loaded.info().unwrap().origin, cuabi::Origin::Image);
    loaded.kernel("saxpy").unwrap().launch(&gpu.config(), &[&1.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    expect_y(&gpu, |i| 1.0 + i);
    let error = Module::load_image(&gpu.context, b"not an image").unwrap_err();
    assert_eq!(error.status(), Status::InvalidImage, "{error}");
    Ok(())
}

fn buffers_copy_fill_and_check_bounds() -> Outcome {
    let gpu = Gpu::open()?;
    let bytes = N as usize * 4;
    let zeroed = Buffer::zeroed(&gpu.context, bytes).unwrap();
    assert_eq!(zeroed.size(), bytes);
    assert!(zeroed.to_vec::<u32>().unwrap().iter().all(|&v| v == 0));
    zeroed.fill(16, 0x1234u16, 4, None).unwrap();
    let halves = zeroed.to_vec::<u16>().unwrap();
    assert_eq!(&halves[6..14], &[0, 0, 0x1234, 0x1234, 0x1234, 0x1234, 0, 0]);
    zeroed.copy_from(0, &gpu.x, 4, 8, Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    let mut head = [0f32; 2];
    zeroed.read(0, &mut head).unwrap();
    assert_eq!(head, [1.0, 2.0]);
    zeroed.write(4, &[9.0f32]).unwrap();
    zeroed.read(0, &mut head).unwrap();
    assert_eq!(head, [1.0, 9.0]);
    let error = zeroed.write(bytes - 2, &[1.0f32]).unwrap_err();
    assert_eq!(error.status(), Status::OutOfBounds);
    assert!(error.message().contains("Fix:"), "{error}");
    assert_eq!(zeroed.fill(1, 7u32, 1, None).unwrap_err().status(), Status::InvalidArgument);
    let staged = vec![5.0f32; N as usize];
    let mut back = vec![0f32; N as usize];
    unsafe {
        zeroed.write_async(0, &staged, &gpu.stream).unwrap();
        zeroed.read_async(0, &mut back, &gpu.stream).unwrap();
    }
    gpu.stream.synchronize().unwrap();
    assert_eq!(back, staged);
    let alias = unsafe { Buffer::wrap(&gpu.context, zeroed.device_ptr().offset(4), 8) }.unwrap();
    let mut two = [0f32; 2];
    alias.read(0, &mut two).unwrap();
    assert_eq!(two, [5.0, 5.0]);
    assert_eq!(alias.device_ptr(), zeroed.device_ptr().offset(4));
    assert_eq!(Buffer::new(&gpu.context, 0).unwrap_err().status(), Status::InvalidArgument);
    Ok(())
}

fn events_time_and_order_streams() -> Outcome {
    let gpu = Gpu::open()?;
    let (start, end) = (Event::new(&gpu.context).unwrap(), Event::new(&gpu.context).unwrap());
    start.record(Some(&gpu.stream)).unwrap();
    gpu.saxpy.launch(&gpu.config(), &[&1.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    end.record(Some(&gpu.stream)).unwrap();
    let other = Stream::with_priority(&gpu.context, -1).unwrap();
    other.wait_event(&end).unwrap();
    gpu.saxpy
        .launch(&LaunchConfig::new().grid(N / 256).block(256).stream(&other), &[&1.0f32, &gpu.x, &gpu.y, &N])
        .unwrap();
    other.synchronize().unwrap();
    assert!(other.is_done().unwrap() && end.is_done().unwrap());
    end.synchronize().unwrap();
    assert!(start.elapsed_ms(&end).unwrap() >= 0.0);
    assert_eq!(gpu.y.to_vec::<f32>().unwrap()[7], 15.0);
    let untimed = Event::with_options(&gpu.context, &EventOptions::new().disable_timing().blocking_sync()).unwrap();
    untimed.record(None).unwrap();
    untimed.synchronize().unwrap();
    assert_eq!(start.elapsed_ms(&untimed).unwrap_err().status(), Status::InvalidArgument);
    assert!(!gpu.stream.native().unwrap().is_null() && !gpu.context.native().unwrap().is_null());
    Ok(())
}

fn graphs_capture_replay_inventory_and_update() -> Outcome {
    let gpu = Gpu::open()?;
    let config = gpu.config();
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new().upload(), |stream| {
            gpu.saxpy.launch(&config, &[&1.0f32, &gpu.x, &gpu.y, &N])?;
            gpu.y.fill(0, 2.0f32, 4, Some(stream))
        })
        .unwrap();
    let nodes = graph.nodes().unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0].kind, NodeKind::Kernel);
    // The graph's own handle of the kernel (not the one it was launched with), stable and live.
    assert!(!nodes[0].kernel.is_null());
    assert_eq!(graph.node_info(0).unwrap().kernel, nodes[0].kernel);
    let mut count = 0;
    let get_param_count = cuabi::raw_api().unwrap().cuabi_kernel_get_param_count.unwrap();
    assert_eq!(unsafe { get_param_count(nodes[0].kernel, &mut count) }, 0);
    assert_eq!(count, 4);
    assert_eq!((nodes[0].grid.x, nodes[0].block.x), (N / 256, 256));
    assert_eq!((nodes[0].param_count, nodes[0].param_bytes), (Some(4), 28));
    assert_eq!(nodes[1].kind, NodeKind::Memset);
    assert_eq!((nodes[1].memset_value, nodes[1].memset_element_size), (2.0f32.to_bits(), 4));
    assert_eq!(graph.node_kernel_name(0).unwrap(), "saxpy");
    assert_eq!(graph.node_kernel_name(1).unwrap_err().status(), Status::GraphNode);
    assert_eq!(graph.node_params(0).unwrap(), gpu.saxpy.params().unwrap());
    graph.upload(Some(&gpu.stream)).unwrap();
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| if i < 4.0 { 2.0 } else { 1.0 + i });
    graph.update_kernel_args(0, &[&2.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    graph.update_memset_value(1, 3.0f32.to_bits()).unwrap();
    graph.launch(None).unwrap();
    expect_y(&gpu, |i| if i < 4.0 { 3.0 } else { 1.0 + 3.0 * i });
    let mut packed = PackedArgs::for_graph_node(&graph, 0).unwrap();
    packed.set_all(&[&-3.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    graph.update_kernel_args_packed(0, &packed).unwrap();
    graph.update_kernel_geometry(0, N / 512, 512, 0).unwrap();
    assert_eq!(graph.node_info(0).unwrap().block.x, 512);
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| if i < 4.0 { 3.0 } else { 1.0 });
    let error = graph.update_kernel_args(0, &[&1.0f64, &gpu.x, &gpu.y, &N]).unwrap_err();
    assert_eq!(error.status(), Status::ArgumentSize, "{error}");
    assert_eq!(graph.update_kernel_args(1, &[&1.0f32]).unwrap_err().status(), Status::GraphNode);
    assert_eq!(graph.update_kernel_geometry(0, 1, (1024, 2, 1), 0).unwrap_err().status(), Status::LaunchBlock);
    assert_eq!(graph.node_info(2).unwrap_err().status(), Status::GraphNode);
    let (cu_graph, cu_exec) = graph.native().unwrap();
    assert!(!cu_graph.is_null() && !cu_exec.is_null());
    assert!(gpu.context.counters().unwrap().graph_launches >= 3);
    Ok(())
}

fn a_graph_keeps_retained_buffers_alive() -> Outcome {
    let gpu = Gpu::open()?;
    let target = Buffer::zeroed(&gpu.context, N as usize * 4).unwrap();
    let config = gpu.config();
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |_| {
            gpu.saxpy.launch(&config, &[&1.0f32, &gpu.x, &target, &N])
        })
        .unwrap();
    graph.retain_buffer(&target).unwrap();
    let address = target.device_ptr();
    drop(target);
    graph.launch(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    // The memory is still the graph's: wrapping it finds a live allocation with the replay's values.
    let view = unsafe { Buffer::wrap(&gpu.context, address, N as usize * 4) }.unwrap();
    assert_eq!(view.to_vec::<f32>().unwrap()[9], 9.0);
    Ok(())
}

fn capture_scopes_abort_on_error_early_return_and_panic() -> Outcome {
    let gpu = Gpu::open()?;
    let config = gpu.config();
    let error = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |_| {
            gpu.saxpy.launch(&config, &[&1.0f32, &gpu.x, &gpu.y, &N])?;
            PackedArgs::new(Vec::new()).set(0, &1u32).map(|_| ())
        })
        .unwrap_err();
    assert_eq!(error.status(), Status::OutOfBounds);
    assert_eq!(gpu.stream.capture_status().unwrap(), CaptureStatus::None);
    {
        let capture = gpu.stream.begin_capture(CaptureMode::Relaxed).unwrap();
        assert_eq!(capture.stream().capture_status().unwrap(), CaptureStatus::Active);
        assert_eq!(gpu.stream.begin_capture(CaptureMode::Relaxed).unwrap_err().status(), Status::Capture);
    }
    assert_eq!(gpu.stream.capture_status().unwrap(), CaptureStatus::None);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _capture = gpu.stream.begin_capture(CaptureMode::ThreadLocal).unwrap();
        panic!("inside a capture");
    }));
    assert!(panicked.is_err());
    assert_eq!(gpu.stream.capture_status().unwrap(), CaptureStatus::None);
    gpu.stream.begin_capture(CaptureMode::ThreadLocal).unwrap().abort().unwrap();
    gpu.stream.abort_capture().unwrap();
    // A refused launch inside a capture ends it too, with the launch's own status.
    let capture = gpu.stream.begin_capture(CaptureMode::ThreadLocal).unwrap();
    let error = gpu.saxpy.launch(&config.clone().block((1024, 2, 1)), &[&1.0f32, &gpu.x, &gpu.y, &N]).unwrap_err();
    assert_eq!(error.status(), Status::LaunchBlock);
    assert_eq!(capture.end(&GraphOptions::new()).unwrap_err().status(), Status::Capture);
    expect_y(&gpu, |_| 1.0);
    Ok(())
}

fn whole_graph_updates_in_place_or_by_reinstantiating() -> Outcome {
    let gpu = Gpu::open()?;
    let config = gpu.config();
    let capture = |launches: usize, a: f32| {
        let scope = gpu.stream.begin_capture(CaptureMode::ThreadLocal).unwrap();
        for _ in 0..launches {
            gpu.saxpy.launch(&config, &[&a, &gpu.x, &gpu.y, &N]).unwrap();
        }
        scope
    };
    let graph = capture(2, 1.0).end(&GraphOptions::new()).unwrap();
    let info = capture(2, 2.0).end_update(&graph, Reinstantiate::Forbid).unwrap();
    assert!(!info.reinstantiated && info.reason.is_empty(), "{info:?}");
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| 1.0 + 4.0 * i);
    let error = capture(3, 1.0).end_update(&graph, Reinstantiate::Forbid).unwrap_err();
    assert_eq!(error.status(), Status::GraphUpdate, "{error}");
    assert_eq!(graph.node_count().unwrap(), 2);
    let info = capture(3, 1.0).end_update(&graph, Reinstantiate::Allow).unwrap();
    assert!(info.reinstantiated && !info.reason.is_empty(), "{info:?}");
    assert_eq!(graph.node_count().unwrap(), 3);
    assert!(gpu.context.counters().unwrap().graph_reinstantiations >= 1);
    Ok(())
}

fn the_graph_cache_finds_graphs_by_key_and_capacity_class() -> Outcome {
    let gpu = Gpu::open()?;
    use cuabi::graph_cache;
    let key = format!("cuabi-rust-test-{}", std::process::id());
    assert!(graph_cache::lookup(&gpu.context, key.as_bytes(), 1000).unwrap().is_none());
    let config = gpu.config();
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |_| {
            gpu.saxpy.launch(&config, &[&1.0f32, &gpu.x, &gpu.y, &N])
        })
        .unwrap();
    graph_cache::insert(&gpu.context, key.as_bytes(), 1000, &graph).unwrap();
    drop(graph);
    let found = graph_cache::lookup(&gpu.context, key.as_bytes(), 1024).unwrap().expect("same capacity class");
    found.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| 1.0 + i);
    assert!(graph_cache::lookup(&gpu.context, key.as_bytes(), 1025).unwrap().is_none());
    let stats = graph_cache::stats().unwrap();
    assert!(stats.hits >= 1 && stats.insertions >= 1 && stats.entries >= 1, "{stats:?}");
    graph_cache::clear(Some(&gpu.context)).unwrap();
    assert!(graph_cache::lookup(&gpu.context, key.as_bytes(), 1000).unwrap().is_none());
    graph_cache::set_capacity(256).unwrap();
    Ok(())
}

fn threads_share_a_context_and_a_kernel() -> Outcome {
    let gpu = Gpu::open()?;
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                let stream = Stream::new(&gpu.context).unwrap();
                let y = Buffer::zeroed(&gpu.context, N as usize * 4).unwrap();
                let config = LaunchConfig::new().grid(N / 256).block(256).stream(&stream);
                for _ in 0..200 {
                    gpu.saxpy.launch(&config, &[&1.0f32, &gpu.x, &y, &N]).unwrap();
                }
                stream.synchronize().unwrap();
                let values = y.to_vec::<f32>().unwrap();
                assert!(values.iter().enumerate().all(|(i, &v)| v == 200.0 * i as f32));
            });
        }
    });
    Ok(())
}

fn handles_may_be_dropped_in_any_order() -> Outcome {
    let gpu = Gpu::open()?;
    let Gpu { context, module, saxpy, stream, x, y } = gpu;
    drop(context);
    drop(module);
    saxpy.launch(&LaunchConfig::new().grid(N / 256).block(256).stream(&stream), &[&1.0f32, &x, &y, &N]).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap()[2], 3.0);
    let raw = y.as_raw();
    let size = std::mem::ManuallyDrop::new(y).size();
    let adopted = unsafe { Buffer::from_raw(raw) }.unwrap();
    assert_eq!(adopted.size(), size);
    drop((x, adopted, stream, saxpy));
    Ok(())
}

fn main() {
    std::process::exit(harness::run(harness::tests![
        table_and_packed_launches_compute_saxpy,
        synchronous_launch_without_a_stream_finishes_before_returning,
        struct_arguments_pass_by_value,
        refused_launches_carry_status_and_message_and_run_nothing,
        kernels_found_by_name_expression_and_their_facts,
        a_module_loaded_from_an_image_launches,
        buffers_copy_fill_and_check_bounds,
        events_time_and_order_streams,
        graphs_capture_replay_inventory_and_update,
        a_graph_keeps_retained_buffers_alive,
        capture_scopes_abort_on_error_early_return_and_panic,
        whole_graph_updates_in_place_or_by_reinstantiating,
        the_graph_cache_finds_graphs_by_key_and_capacity_class,
        threads_share_a_context_and_a_kernel,
        handles_may_be_dropped_in_any_order,
        graphs::device_to_device_memcpy_nodes_take_new_buffers,
        graphs::host_to_device_memcpy_nodes_take_new_host_memory,
        graphs::nodes_turn_off_and_back_on,
        graphs::graphs_dump_as_dot_text_and_files,
        launches::device_attributes_by_number_agree_with_device_info,
        launches::launches_at_a_priority_run_and_clamp_out_of_range_priorities,
        launches::programmatic_dependent_launches_wait_for_the_kernel_before_them,
        launches::kernel_attributes_are_typed_and_checked,
        launches::cluster_occupancy_and_non_portable_cluster_sizes,
        memory::pinned_memory_is_zeroed_and_round_trips_through_stream_copies,
        memory::write_combined_and_device_mapped_allocations,
        memory::registered_memory_stays_borrowed_until_unregistered,
        memory::module_globals_are_buffers_that_keep_the_module_alive,
        memory::a_stream_ordered_buffer_lives_inside_a_replayed_graph,
        memory::pools_keep_memory_until_trimmed,
        memory::managed_buffers_prefetch_both_ways,
        batch::a_batch_of_dependent_launches_computes_saxpy_in_order,
        batch::a_refused_launch_stops_the_batch_at_its_index,
        batch::a_batch_inside_a_capture_becomes_its_nodes_in_order,
        devices::a_tma_kernel_copies_the_tile_a_tensor_map_describes,
        devices::copies_between_two_devices_need_peer_access_or_staging,
        conditional::a_while_node_runs_saxpy_until_a_kernel_clears_the_condition,
        conditional::if_and_switch_nodes_run_the_body_their_condition_names,
        conditional::refused_conditionals_end_the_capture_and_say_why,
    ]));
}
