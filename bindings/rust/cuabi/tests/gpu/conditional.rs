//! Conditional graph nodes on a GPU: a while loop a kernel ends, if and switch nodes taking the
//! body their condition names, the inventory, and refusals that end the capture.

use super::{expect_y, Gpu, Outcome, N};
use cuabi::{
    Buffer, CaptureMode, CaptureStatus, CompileOptions, ConditionReset, ConditionalType, GraphOptions, Kernel,
    LaunchConfig, Module, NodeKind, Status,
};

const KERNELS: &str = "extern \"C\" __device__ __cudart_builtin__ void cudaGraphSetConditional(\
cudaGraphConditionalHandle handle, unsigned int value);
extern \"C\" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
}
extern \"C\" __global__ void set_condition(cudaGraphConditionalHandle condition, unsigned value) {
    cudaGraphSetConditional(condition, value);
}
extern \"C\" __global__ void add_value(unsigned* out, unsigned value) { *out += value; }
";

fn kernels(gpu: &Gpu) -> (Module, Kernel, Kernel, Kernel) {
    let module = Module::compile(&gpu.context, KERNELS, &CompileOptions::new()).unwrap();
    let (count_down, set, add) = (
        module.kernel("count_down").unwrap(),
        module.kernel("set_condition").unwrap(),
        module.kernel("add_value").unwrap(),
    );
    (module, count_down, set, add)
}

pub(super) fn a_while_node_runs_saxpy_until_a_kernel_clears_the_condition() -> Outcome {
    let gpu = Gpu::open()?;
    let (_module, count_down, _, _) = kernels(&gpu);
    let counter = Buffer::from_slice(&gpu.context, &[5u32]).unwrap();
    let config = gpu.config();
    let one = LaunchConfig::new().grid(1).block(1).stream(&gpu.stream);
    let mut made = None;
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |stream| {
            let condition = stream.create_condition(1, ConditionReset::EveryReplay)?;
            made = Some(condition);
            stream.capture_while(condition, |_| {
                gpu.saxpy.launch(&config, &[&1.0f32, &gpu.x, &gpu.y, &N])?;
                count_down.launch(&one, &[&counter, &condition])
            })
        })
        .unwrap();
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |x| 1.0 + 5.0 * x);
    assert_eq!(counter.to_vec::<u32>().unwrap(), vec![0]);
    let node = graph.node_info(0).unwrap();
    assert_eq!(graph.node_count().unwrap(), 1);
    assert_eq!(node.kind, NodeKind::Conditional);
    assert_eq!(node.conditional_type, Some(ConditionalType::While));
    assert_eq!(node.conditional_body_count, 1);
    assert_eq!(node.condition, made);
    assert_eq!(node.conditional_body_nodes, 2);
    Ok(())
}

pub(super) fn if_and_switch_nodes_run_the_body_their_condition_names() -> Outcome {
    let gpu = Gpu::open()?;
    if cuabi::driver_version().map_or(true, |version| version < 12080) {
        return Err(super::Skip("if-else and switch nodes need a CUDA 12.8 driver".into()));
    }
    let (_module, _, set, add) = kernels(&gpu);
    let out = Buffer::from_slice(&gpu.context, &[0u32]).unwrap();
    let one = LaunchConfig::new().grid(1).block(1).stream(&gpu.stream);
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |stream| {
            let condition = stream.create_condition(0, ConditionReset::EveryReplay)?;
            set.launch(&one, &[&condition, &0u32])?;
            stream.capture_if(
                condition,
                |_| add.launch(&one, &[&out, &1u32]),
                Some(&mut |_: &cuabi::Stream| add.launch(&one, &[&out, &10u32])),
            )?;
            let choice = stream.create_condition(2, ConditionReset::EveryReplay)?;
            stream.capture_switch(
                choice,
                &mut [
                    &mut |_: &cuabi::Stream| add.launch(&one, &[&out, &100u32]),
                    &mut |_: &cuabi::Stream| add.launch(&one, &[&out, &200u32]),
                    &mut |_: &cuabi::Stream| add.launch(&one, &[&out, &400u32]),
                ],
            )
        })
        .unwrap();
    graph.launch(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    assert_eq!(out.to_vec::<u32>().unwrap(), vec![410], "the else body and case 2");
    Ok(())
}

pub(super) fn refused_conditionals_end_the_capture_and_say_why() -> Outcome {
    let gpu = Gpu::open()?;
    let capture = gpu.stream.begin_capture(CaptureMode::ThreadLocal).unwrap();
    let condition = gpu.stream.create_condition(1, ConditionReset::Never).unwrap();
    let error = gpu.stream.capture_conditional(condition, ConditionalType::Unknown(9), 1, |_, _| Ok(())).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "{error}");
    assert!(error.message().contains("conditional type 9"), "{error}");
    assert_eq!(gpu.stream.capture_status().unwrap(), CaptureStatus::None);
    drop(capture);
    let capture = gpu.stream.begin_capture(CaptureMode::ThreadLocal).unwrap();
    let forged = cuabi::Condition::from_value(0x1234567);
    let error = gpu.stream.capture_while(forged, |_| Ok(())).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "{error}");
    assert!(error.message().contains("Fix:"), "{error}");
    assert_eq!(gpu.stream.capture_status().unwrap(), CaptureStatus::None);
    drop(capture);
    let error = gpu.stream.create_condition(1, ConditionReset::Never).unwrap_err();
    assert_eq!(error.status(), Status::Capture, "not capturing: {error}");
    Ok(())
}
