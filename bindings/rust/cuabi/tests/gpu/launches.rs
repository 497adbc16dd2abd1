//! Device attributes, launch priority, programmatic dependent launch, kernel attributes and
//! cluster occupancy.

use super::{expect_y, Gpu, Outcome, Skip, N, SOURCE};
use cuabi::{
    CachePreference, Carveout, CompileOptions, DeviceAttribute, Kernel, KernelAttribute, LaunchConfig, Module, Status,
};

pub(super) fn device_attributes_by_number_agree_with_device_info() -> Outcome {
    let gpu = Gpu::open()?;
    let info = gpu.context.device_info().unwrap();
    let attribute = |attribute| cuabi::device_attribute(info.ordinal, attribute).unwrap();
    assert_eq!(attribute(DeviceAttribute::MULTIPROCESSOR_COUNT), info.multiprocessor_count);
    assert_eq!(
        (attribute(DeviceAttribute::COMPUTE_CAPABILITY_MAJOR), attribute(DeviceAttribute::COMPUTE_CAPABILITY_MINOR)),
        info.compute_capability
    );
    assert_eq!(attribute(DeviceAttribute::WARP_SIZE), info.warp_size);
    assert_eq!(attribute(DeviceAttribute::MAX_THREADS_PER_BLOCK), info.max_threads_per_block);
    assert_eq!(attribute(DeviceAttribute::CLUSTER_LAUNCH) != 0, info.cluster_launch);
    assert!(attribute(DeviceAttribute::ASYNC_ENGINE_COUNT) >= 1);
    let count = cuabi::device_count().unwrap();
    for ordinal in [count, -1] {
        let error = cuabi::device_attribute(ordinal, DeviceAttribute::WARP_SIZE).unwrap_err();
        assert_eq!(error.status(), Status::InvalidDevice, "{error}");
    }
    let error = cuabi::device_attribute(info.ordinal, DeviceAttribute(100_000)).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "{error}");
    assert!(error.cu_result().is_some() && error.message().contains("Fix:"), "{error}");
    Ok(())
}

pub(super) fn launches_at_a_priority_run_and_clamp_out_of_range_priorities() -> Outcome {
    let gpu = Gpu::open()?;
    let args: [&dyn cuabi::KernelArg; 4] = [&1.0f32, &gpu.x, &gpu.y, &N];
    for priority in [-1, 0, i32::MIN, i32::MAX] {
        gpu.saxpy.launch(&gpu.config().priority(priority), &args).unwrap();
    }
    let mut packed = cuabi::PackedArgs::for_kernel(&gpu.saxpy).unwrap();
    packed.set_all(&args).unwrap();
    gpu.saxpy.launch_packed(&gpu.config().priority(-1), &packed).unwrap();
    gpu.stream.synchronize().unwrap();
    // Without a stream: the calling thread's per-thread stream, finished before returning.
    gpu.saxpy.launch(&LaunchConfig::new().grid(N / 256).block(256).priority(-1), &args).unwrap();
    expect_y(&gpu, |i| 1.0 + 6.0 * i);
    Ok(())
}

const DEPENDENT: &str = "extern \"C\" __global__ void produce(float* y, unsigned n) {
    asm volatile(\"griddepcontrol.launch_dependents;\");
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] + 1.0f;
}
extern \"C\" __global__ void consume(float* y, unsigned n) {
    asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * y[i];
}
";

pub(super) fn programmatic_dependent_launches_wait_for_the_kernel_before_them() -> Outcome {
    let gpu = Gpu::open()?;
    let (major, minor) = gpu.context.device_info().unwrap().compute_capability;
    if major < 9 {
        return Err(Skip(format!(
            "programmatic dependent launch needs sm_90 or newer; the device is sm_{major}{minor}"
        )));
    }
    let module = Module::compile(&gpu.context, DEPENDENT, &CompileOptions::new()).unwrap();
    let (produce, consume) = (module.kernel("produce").unwrap(), module.kernel("consume").unwrap());
    let dependent = gpu.config().programmatic_dependent(true);
    // y: 1 -> (1 + 1) * 2 = 4 -> (4 + 1) * 2 = 10 -> 22 -> 46; any consumer reading early breaks it.
    for _ in 0..4 {
        produce.launch(&gpu.config(), &[&gpu.y, &N]).unwrap();
        consume.launch(&dependent, &[&gpu.y, &N]).unwrap();
    }
    expect_y(&gpu, |_| 46.0);
    consume.launch(&dependent.clone().priority(-1), &[&gpu.y, &N]).unwrap();
    expect_y(&gpu, |_| 92.0);
    Ok(())
}

pub(super) fn kernel_attributes_are_typed_and_checked() -> Outcome {
    let gpu = Gpu::open()?;
    for carveout in [Carveout::Percent(0), Carveout::Percent(50), Carveout::Percent(100), Carveout::NoPreference] {
        gpu.saxpy.set_attribute(KernelAttribute::SharedMemoryCarveout(carveout)).unwrap();
    }
    for preference in [CachePreference::Shared, CachePreference::L1, CachePreference::Equal, CachePreference::None] {
        gpu.saxpy.set_attribute(KernelAttribute::CacheConfig(preference)).unwrap();
    }
    let error = gpu.saxpy.set_attribute(KernelAttribute::SharedMemoryCarveout(Carveout::Percent(101))).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "{error}");
    assert!(error.message().contains("101") && error.message().contains("Fix:"), "{error}");
    gpu.saxpy.launch(&gpu.config(), &[&1.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    expect_y(&gpu, |i| 1.0 + i);
    Ok(())
}

/// A saxpy of its own module (a distinct source), so that its attributes are this test's alone.
fn own_saxpy(gpu: &Gpu) -> Kernel {
    let source = format!("{SOURCE}// cluster occupancy test\n");
    Module::compile(&gpu.context, &source, &CompileOptions::new()).unwrap().kernel("saxpy").unwrap()
}

pub(super) fn cluster_occupancy_and_non_portable_cluster_sizes() -> Outcome {
    let gpu = Gpu::open()?;
    let kernel = own_saxpy(&gpu);
    let shape = |cluster: u32| LaunchConfig::new().block(256).cluster(cluster);
    if !gpu.context.device_info().unwrap().cluster_launch {
        assert_eq!(kernel.max_active_clusters(&shape(2)).unwrap_err().status(), Status::LaunchCluster);
        let error = kernel.set_attribute(KernelAttribute::NonPortableClusterSize(true)).unwrap_err();
        assert_eq!(error.status(), Status::Unsupported, "{error}");
        return Err(Skip("the device has no thread block clusters: only their refusal was checked".into()));
    }
    assert!(kernel.max_active_clusters(&shape(2)).unwrap() >= 1);
    assert!(kernel.max_active_clusters(&shape(8)).unwrap() >= 1);
    let error = kernel.max_active_clusters(&shape(16)).unwrap_err();
    assert_eq!(error.status(), Status::LaunchCluster, "16 blocks is non-portable: {error}");
    assert_eq!(kernel.max_active_clusters(&shape(2).block(2048)).unwrap_err().status(), Status::LaunchBlock);

    kernel.set_attribute(KernelAttribute::NonPortableClusterSize(true)).unwrap();
    assert!(kernel.max_active_clusters(&shape(16)).unwrap() >= 1);
    assert_eq!(kernel.max_active_clusters(&shape(32)).unwrap_err().status(), Status::LaunchCluster);
    let wide = gpu.config().cluster(16);
    kernel.launch(&wide, &[&1.0f32, &gpu.x, &gpu.y, &N]).unwrap();
    expect_y(&gpu, |i| 1.0 + i);
    kernel.set_attribute(KernelAttribute::NonPortableClusterSize(false)).unwrap();
    let error = kernel.launch(&wide, &[&1.0f32, &gpu.x, &gpu.y, &N]).unwrap_err();
    assert_eq!(error.status(), Status::LaunchCluster, "the next launch re-reads the limit: {error}");
    expect_y(&gpu, |i| 1.0 + i);
    Ok(())
}
