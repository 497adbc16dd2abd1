//! Pinned host memory (allocated and registered, stream copies, zero-copy kernels), module
//! globals as buffers, stream-ordered buffers and pools, managed buffers.

use super::{expect_y, Gpu, Outcome, N};
use cuabi::{
    Advice, Buffer, CompileOptions, HostMemory, HostMemoryOptions, LaunchConfig, Location, ManagedAttach, MemoryPool,
    MemoryPoolOptions, Module, PoolAttribute, Status,
};

pub(super) fn pinned_memory_is_zeroed_and_round_trips_through_stream_copies() -> Outcome {
    let gpu = Gpu::open()?;
    let n = N as usize;
    let mut up = HostMemory::<f32>::new(&gpu.context, n, &HostMemoryOptions::new()).unwrap();
    assert_eq!((up.len(), up.size()), (n, n * 4));
    assert!(up.iter().all(|&value| value == 0.0));
    for (i, value) in up.iter_mut().enumerate() {
        *value = i as f32 * 0.5;
    }
    let mut down = HostMemory::<f32>::new(&gpu.context, n, &HostMemoryOptions::new().portable()).unwrap();
    let device = Buffer::new(&gpu.context, n * 4).unwrap();
    // Safety: both pinned blocks outlive the stream's work, synchronized below before reading.
    unsafe {
        device.write_async(0, &up, &gpu.stream).unwrap();
        gpu.saxpy.launch(&gpu.config(), &[&1.0f32, &gpu.x, &device, &N]).unwrap();
        device.read_async(0, &mut down, &gpu.stream).unwrap();
    }
    gpu.stream.synchronize().unwrap();
    for (i, value) in down.iter().enumerate() {
        assert_eq!(*value, 1.5 * i as f32, "down[{i}]");
    }
    let error = up.device_ptr().unwrap_err();
    assert_eq!(error.status(), Status::Unsupported, "not device-mapped: {error}");
    assert!(!up.as_raw().is_null());
    Ok(())
}

pub(super) fn write_combined_and_device_mapped_allocations() -> Outcome {
    let gpu = Gpu::open()?;
    let mut combined = HostMemory::<u32>::new(&gpu.context, 1024, &HostMemoryOptions::new().write_combined()).unwrap();
    combined.copy_from_slice(&(0..1024).collect::<Vec<u32>>());
    let device = Buffer::from_slice(&gpu.context, &combined).unwrap();
    assert_eq!(device.to_vec::<u32>().unwrap(), (0..1024).collect::<Vec<u32>>());

    let mut mapped =
        HostMemory::<f32>::new(&gpu.context, N as usize, &HostMemoryOptions::new().device_mapped()).unwrap();
    mapped.fill(1.0);
    let address = mapped.device_ptr().unwrap();
    assert_ne!(address.0, 0);
    gpu.saxpy.launch(&gpu.config(), &[&2.0f32, &gpu.x, &address, &N]).unwrap();
    gpu.stream.synchronize().unwrap();
    assert!(mapped.iter().enumerate().all(|(i, &value)| value == 1.0 + 2.0 * i as f32), "zero-copy writes");
    Ok(())
}

pub(super) fn registered_memory_stays_borrowed_until_unregistered() -> Outcome {
    let gpu = Gpu::open()?;
    let mut values = vec![1.0f32; N as usize];
    let start = values.as_ptr();
    {
        let options = HostMemoryOptions::new().device_mapped();
        let mut pinned = HostMemory::register(&gpu.context, &mut values, &options).unwrap();
        assert_eq!((pinned.as_ptr(), pinned.len()), (start, N as usize));
        let address = pinned.device_ptr().unwrap();
        gpu.saxpy.launch(&gpu.config(), &[&3.0f32, &gpu.x, &address, &N]).unwrap();
        gpu.stream.synchronize().unwrap();
        assert_eq!(pinned[5], 16.0);
        pinned[0] = 9.0;
        let copy = Buffer::from_slice(&gpu.context, &pinned).unwrap();
        assert_eq!(copy.to_vec::<f32>().unwrap()[..2], [9.0, 4.0]);
    }
    assert_eq!((values[0], values[5]), (9.0, 16.0));
    // Unregistered on drop: the same memory registers again.
    drop(HostMemory::register(&gpu.context, &mut values[..16], &HostMemoryOptions::new()).unwrap());
    let refused = HostMemory::register(&gpu.context, &mut values, &HostMemoryOptions::new().write_combined());
    assert_eq!(refused.unwrap_err().status(), Status::InvalidArgument);
    let empty: &mut [f32] = &mut [];
    assert_eq!(
        HostMemory::register(&gpu.context, empty, &HostMemoryOptions::new()).unwrap_err().status(),
        Status::InvalidArgument
    );
    let error = HostMemory::<u8>::new(&gpu.context, 0, &HostMemoryOptions::new()).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument);
    assert!(error.message().contains("Fix:"), "{error}");
    Ok(())
}

const GLOBALS: &str = "__device__ float bias;
__constant__ float gain;
__device__ float table[4];
extern \"C\" __global__ void apply(float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = gain * y[i] + bias;
}
extern \"C\" __global__ void set_bias(float value) { bias = value; }
";

pub(super) fn module_globals_are_buffers_that_keep_the_module_alive() -> Outcome {
    let gpu = Gpu::open()?;
    let module = Module::compile(&gpu.context, GLOBALS, &CompileOptions::new()).unwrap();
    let gain = module.global("gain").unwrap();
    assert_eq!(gain.size(), 4);
    gain.write(0, &[2.0f32]).unwrap();
    let bias = module.global("bias").unwrap();
    bias.fill(0, 0.5f32, 1, Some(&gpu.stream)).unwrap();
    module.kernel("apply").unwrap().launch(&gpu.config(), &[&gpu.y, &N]).unwrap();
    expect_y(&gpu, |_| 2.5);

    let one = LaunchConfig::new().stream(&gpu.stream);
    module.kernel("set_bias").unwrap().launch(&one, &[&7.0f32]).unwrap();
    gpu.stream.synchronize().unwrap();
    assert_eq!(bias.to_vec::<f32>().unwrap(), [7.0]);
    assert_eq!(module.global("bias").unwrap().device_ptr(), bias.device_ptr());

    let table = module.global("table").unwrap();
    assert_eq!(table.size(), 16);
    table.write(0, &[1.0f32; 4]).unwrap();
    gpu.saxpy.launch(&gpu.config(), &[&2.0f32, &gpu.x, &table, &4u32]).unwrap();
    gpu.stream.synchronize().unwrap();
    let error = gain.write(0, &[1.0f32, 2.0]).unwrap_err();
    assert_eq!(error.status(), Status::OutOfBounds, "{error}");
    let error = module.global("missing").unwrap_err();
    assert_eq!(error.status(), Status::NotFound, "{error}");
    assert!(error.message().contains("Fix:"), "{error}");
    drop(module);
    assert_eq!(table.to_vec::<f32>().unwrap(), [1.0, 3.0, 5.0, 7.0]);
    Ok(())
}

/// A stream-ordered buffer allocated, used and freed inside a capture: the graph replays three
/// times, each exact.
pub(super) fn a_stream_ordered_buffer_lives_inside_a_replayed_graph() -> Outcome {
    let gpu = Gpu::open()?;
    let bytes = N as usize * 4;
    let config = gpu.config();
    let graph = gpu
        .stream
        .capture(cuabi::CaptureMode::ThreadLocal, &cuabi::GraphOptions::new(), |stream| {
            let scratch = Buffer::new_async(&gpu.context, bytes, None, Some(stream))?;
            scratch.fill(0, 1.0f32, N as usize, Some(stream))?;
            gpu.saxpy.launch(&config, &[&2.0f32, &gpu.x, &scratch, &N])?; // scratch = 2x + 1
            gpu.saxpy.launch(&config, &[&1.0f32, &scratch, &gpu.y, &N])?; // y += scratch
            scratch.free_async(Some(stream))
        })
        .unwrap();
    for round in 1..=3 {
        graph.launch(Some(&gpu.stream)).unwrap();
        expect_y(&gpu, |i| 1.0 + round as f32 * (2.0 * i + 1.0));
    }
    Ok(())
}

/// A pool keeps freed memory under its release threshold until trimmed; memory that is not
/// stream-ordered cannot be freed on a stream.
pub(super) fn pools_keep_memory_until_trimmed() -> Outcome {
    let gpu = Gpu::open()?;
    let pool = MemoryPool::new(&gpu.context, &MemoryPoolOptions::new().release_threshold(64 << 20)).unwrap();
    assert_eq!(pool.attribute(PoolAttribute::ReleaseThreshold).unwrap(), 64 << 20);
    let held = Buffer::zeroed_async(&gpu.context, 32 << 20, Some(&pool), Some(&gpu.stream)).unwrap();
    held.free_async(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    assert!(pool.attribute(PoolAttribute::ReservedCurrent).unwrap() >= 32 << 20);
    assert!(pool.attribute(PoolAttribute::UsedHigh).unwrap() >= 32 << 20);
    pool.trim(0).unwrap();
    assert_eq!(pool.attribute(PoolAttribute::ReservedCurrent).unwrap(), 0);
    pool.set_release_threshold(0).unwrap();
    let default = MemoryPool::default_for(&gpu.context).unwrap();
    let _ = default.attribute(PoolAttribute::UsedCurrent).unwrap();
    let error = Buffer::new(&gpu.context, 64).unwrap().free_async(None).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "{error}");
    assert!(error.message().contains("not allocated in stream order"), "{error}");
    Ok(())
}

/// A managed buffer written on the host, computed on after a prefetch to the device, read on the
/// host after a prefetch back; advice accepted, bad locations refused.
pub(super) fn managed_buffers_prefetch_both_ways() -> Outcome {
    let gpu = Gpu::open()?;
    let n = N as usize;
    let data = Buffer::managed(&gpu.context, n * 4, ManagedAttach::Global).unwrap();
    let host = data.host_ptr().unwrap().cast::<f32>();
    // Safety: managed memory of n floats, not in use by the GPU until the prefetch below.
    unsafe { std::slice::from_raw_parts_mut(host, n).fill(5.0) };
    data.advise(0, n * 4, Advice::SetPreferredLocation, Location::Device(0)).unwrap();
    data.prefetch(0, n * 4, Location::Device(0), Some(&gpu.stream)).unwrap();
    gpu.saxpy.launch(&gpu.config(), &[&3.0f32, &gpu.x, &data, &N]).unwrap();
    data.prefetch(0, n * 4, Location::Host, Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    // Safety: the stream is synchronized; nothing else uses the memory.
    let values = unsafe { std::slice::from_raw_parts(host, n) };
    for (i, value) in values.iter().enumerate() {
        assert_eq!(*value, 3.0 * i as f32 + 5.0, "data[{i}]");
    }
    let error = data.prefetch(n * 4 - 4, 8, Location::Host, None).unwrap_err();
    assert_eq!(error.status(), Status::OutOfBounds, "{error}");
    let error = data.advise(0, 64, Advice::SetAccessedBy, Location::Device(4096)).unwrap_err();
    assert_eq!(error.status(), Status::InvalidDevice, "{error}");
    assert_eq!(gpu.y.host_ptr().unwrap_err().status(), Status::Unsupported);
    Ok(())
}
