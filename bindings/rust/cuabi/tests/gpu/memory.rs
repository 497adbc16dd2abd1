//! Pinned host memory (allocated and registered, stream copies, zero-copy kernels) and module
//! globals as buffers.

use super::{expect_y, Gpu, Outcome, N};
use cuabi::{Buffer, CompileOptions, HostMemory, HostMemoryOptions, LaunchConfig, Module, Status};

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
