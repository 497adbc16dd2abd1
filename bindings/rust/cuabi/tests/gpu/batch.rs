//! Batched launches on a GPU: dependent launches compute the right result, a refused launch stops
//! the batch at its index, and a batch inside a capture becomes its kernel nodes in order.

use super::{expect_y, Gpu, Outcome, N};
use cuabi::{CaptureMode, GraphOptions, LaunchConfig, LaunchItem, NodeKind, PackedArgs, Status};

/// saxpy with a = 1..=count on the same y: each launch reads what the one before wrote.
fn saxpy_args(gpu: &Gpu, count: usize) -> Vec<PackedArgs> {
    (1..=count)
        .map(|a| {
            let mut args = PackedArgs::for_kernel(&gpu.saxpy).unwrap();
            args.set_all(&[&(a as f32), &gpu.x, &gpu.y, &N]).unwrap();
            args
        })
        .collect()
}

pub(super) fn a_batch_of_dependent_launches_computes_saxpy_in_order() -> Outcome {
    let gpu = Gpu::open()?;
    let config = gpu.config();
    let args = saxpy_args(&gpu, 16);
    let items: Vec<LaunchItem<'_>> = args.iter().map(|a| LaunchItem::new(&gpu.saxpy, &config, a)).collect();
    let before = gpu.context.counters().unwrap();
    cuabi::launch_batch(&items).unwrap();
    expect_y(&gpu, |i| 1.0 + 136.0 * i); // 1 + 2 + ... + 16
    let after = gpu.context.counters().unwrap();
    assert_eq!(after.launches - before.launches, 16);
    assert_eq!(after.launches_packed - before.launches_packed, 16);
    Ok(())
}

pub(super) fn a_refused_launch_stops_the_batch_at_its_index() -> Outcome {
    let gpu = Gpu::open()?;
    let config = gpu.config();
    let too_large = LaunchConfig::new().grid(1).block((1024, 2, 1)).stream(&gpu.stream);
    let args = saxpy_args(&gpu, 8);
    let items: Vec<LaunchItem<'_>> = args
        .iter()
        .enumerate()
        .map(|(k, a)| LaunchItem::new(&gpu.saxpy, if k == 5 { &too_large } else { &config }, a))
        .collect();
    let refused = cuabi::launch_batch(&items).unwrap_err();
    assert_eq!(refused.index, 5);
    assert_eq!(refused.error.status(), Status::LaunchBlock, "{refused}");
    assert!(refused.error.message().starts_with("cuabi_launch_batch item 5 of 8: "), "{refused}");
    expect_y(&gpu, |i| 1.0 + 15.0 * i); // 1 + 2 + 3 + 4 + 5: launches 0..5 ran, 6 and 7 did not
    Ok(())
}

pub(super) fn a_batch_inside_a_capture_becomes_its_nodes_in_order() -> Outcome {
    let gpu = Gpu::open()?;
    let config = gpu.config();
    let args = saxpy_args(&gpu, 4);
    let items: Vec<LaunchItem<'_>> = args.iter().map(|a| LaunchItem::new(&gpu.saxpy, &config, a)).collect();
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |_| Ok(cuabi::launch_batch(&items)?))
        .unwrap();
    let nodes = graph.nodes().unwrap();
    assert_eq!(nodes.len(), 4);
    assert!(nodes.iter().all(|node| node.kind == NodeKind::Kernel));
    expect_y(&gpu, |_| 1.0); // captured, not run
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| 1.0 + 10.0 * i);
    Ok(())
}
