//! Graph memcpy updates, turning nodes off and on, and DOT dumps.

use super::{expect_y, Gpu, Outcome, N};
use cuabi::{
    Buffer, CaptureMode, DotOptions, Graph, GraphOptions, HostMemory, HostMemoryOptions, MemcpyEnd, NodeKind, Status,
};

/// saxpy(1, x, y) then a fill of y's first 4 values with 2.0: node 0 a kernel, node 1 a memset.
fn saxpy_then_fill(gpu: &Gpu) -> Graph {
    let config = gpu.config();
    gpu.stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |stream| {
            gpu.saxpy.launch(&config, &[&1.0f32, &gpu.x, &gpu.y, &N])?;
            gpu.y.fill(0, 2.0f32, 4, Some(stream))
        })
        .unwrap()
}

pub(super) fn device_to_device_memcpy_nodes_take_new_buffers() -> Outcome {
    let gpu = Gpu::open()?;
    let bytes = N as usize * 4;
    let ones = Buffer::from_slice(&gpu.context, &vec![1.0f32; N as usize]).unwrap();
    let twos = Buffer::from_slice(&gpu.context, &vec![2.0f32; N as usize]).unwrap();
    let target = Buffer::zeroed(&gpu.context, bytes).unwrap();
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |stream| {
            target.copy_from(0, &ones, 0, bytes, Some(stream))
        })
        .unwrap();
    assert_eq!(graph.node_info(0).unwrap().kind, NodeKind::Memcpy);
    graph.launch(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    assert!(target.to_vec::<f32>().unwrap().iter().all(|&value| value == 1.0));

    graph.update_memcpy(0, MemcpyEnd::buffer(&target, 0), MemcpyEnd::buffer(&twos, 0), bytes).unwrap();
    drop(twos); // the graph keeps the new source alive
    graph.launch(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    assert!(target.to_vec::<f32>().unwrap().iter().all(|&value| value == 2.0));

    let error = graph.update_memcpy(0, MemcpyEnd::buffer(&target, 4), MemcpyEnd::buffer(&ones, 0), bytes).unwrap_err();
    assert_eq!(error.status(), Status::OutOfBounds, "{error}");
    assert!(error.message().contains("Fix:"), "{error}");
    let error = graph.update_memcpy(0, MemcpyEnd::buffer(&target, 0), MemcpyEnd::buffer(&ones, 0), 0).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "size 0: {error}");
    let host = vec![3.0f32; N as usize];
    // Safety: refused (a host source for a device-to-device node), so never read by a replay.
    let error = graph.update_memcpy(0, MemcpyEnd::buffer(&target, 0), unsafe { MemcpyEnd::host(host.as_ptr()) }, bytes);
    assert_eq!(error.unwrap_err().status(), Status::InvalidArgument, "direction");
    let error = graph.update_memcpy(1, MemcpyEnd::buffer(&target, 0), MemcpyEnd::buffer(&ones, 0), bytes).unwrap_err();
    assert_eq!(error.status(), Status::GraphNode, "{error}");
    let kernel_graph = saxpy_then_fill(&gpu);
    let error =
        kernel_graph.update_memcpy(0, MemcpyEnd::buffer(&target, 0), MemcpyEnd::buffer(&ones, 0), 4).unwrap_err();
    assert_eq!(error.status(), Status::GraphNode, "a kernel node: {error}");
    graph.launch(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    assert!(target.to_vec::<f32>().unwrap().iter().all(|&value| value == 2.0), "refused updates change nothing");
    Ok(())
}

pub(super) fn host_to_device_memcpy_nodes_take_new_host_memory() -> Outcome {
    let gpu = Gpu::open()?;
    let n = N as usize;
    let mut first = HostMemory::<f32>::new(&gpu.context, n, &HostMemoryOptions::new()).unwrap();
    let mut second = HostMemory::<f32>::new(&gpu.context, n, &HostMemoryOptions::new()).unwrap();
    first.fill(5.0);
    second.iter_mut().enumerate().for_each(|(i, value)| *value = i as f32);
    let target = Buffer::zeroed(&gpu.context, n * 4).unwrap();
    // Safety: `first` and `second` are declared before the graph, so they outlive every replay.
    let graph = gpu
        .stream
        .capture(CaptureMode::ThreadLocal, &GraphOptions::new(), |stream| unsafe {
            target.write_async(0, &first, stream)
        })
        .unwrap();
    assert_eq!(graph.node_info(0).unwrap().kind, NodeKind::Memcpy);
    graph.launch(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    assert!(target.to_vec::<f32>().unwrap().iter().all(|&value| value == 5.0));
    let source = unsafe { MemcpyEnd::host(second.as_ptr()) };
    graph.update_memcpy(0, MemcpyEnd::buffer(&target, 0), source, n * 4).unwrap();
    graph.launch(Some(&gpu.stream)).unwrap();
    gpu.stream.synchronize().unwrap();
    assert_eq!(target.to_vec::<f32>().unwrap(), *second);
    let error = graph.update_memcpy(0, MemcpyEnd::buffer(&gpu.y, 0), MemcpyEnd::buffer(&target, 0), n * 4);
    assert_eq!(error.unwrap_err().status(), Status::InvalidArgument, "device to device for a host-to-device node");
    drop(graph);
    Ok(())
}

pub(super) fn nodes_turn_off_and_back_on() -> Outcome {
    let gpu = Gpu::open()?;
    let graph = saxpy_then_fill(&gpu);
    assert!(graph.node_enabled(0).unwrap() && graph.node_enabled(1).unwrap());
    graph.set_node_enabled(1, false).unwrap();
    assert!(!graph.node_enabled(1).unwrap());
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| 1.0 + i);
    graph.set_node_enabled(0, false).unwrap();
    graph.set_node_enabled(1, true).unwrap();
    assert_eq!((graph.node_enabled(0).unwrap(), graph.node_enabled(1).unwrap()), (false, true));
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| if i < 4.0 { 2.0 } else { 1.0 + i });
    graph.set_node_enabled(0, true).unwrap();
    graph.launch(Some(&gpu.stream)).unwrap();
    expect_y(&gpu, |i| if i < 4.0 { 2.0 } else { 1.0 + 2.0 * i });
    assert_eq!(graph.node_enabled(2).unwrap_err().status(), Status::GraphNode);
    let error = graph.set_node_enabled(2, false).unwrap_err();
    assert_eq!(error.status(), Status::GraphNode);
    assert!(error.message().contains("Fix:"), "{error}");
    Ok(())
}

pub(super) fn graphs_dump_as_dot_text_and_files() -> Outcome {
    let gpu = Gpu::open()?;
    let graph = saxpy_then_fill(&gpu);
    let text = graph.dot(&DotOptions::new()).unwrap();
    assert!(text.contains("digraph") && text.contains("saxpy"), "{text}");
    let verbose = graph.dot(&DotOptions::new().verbose()).unwrap();
    assert!(verbose.contains("digraph") && verbose.len() > text.len(), "{verbose}");
    let path = std::env::temp_dir().join(format!("cuabi-rust-graph-{}.dot", std::process::id()));
    graph.write_dot(&path, &DotOptions::new()).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(written.contains("digraph") && written.contains("saxpy"), "{written}");
    let missing = std::path::Path::new("/nonexistent-cuabi-directory/graph.dot");
    let error = graph.write_dot(missing, &DotOptions::new()).unwrap_err();
    assert_eq!(error.status(), Status::Cuda, "{error}");
    assert!(error.message().contains("/nonexistent-cuabi-directory/graph.dot"), "{error}");
    let error = graph.write_dot("graph\0.dot", &DotOptions::new()).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument);
    assert!(error.message().contains("NUL"), "{error}");
    Ok(())
}
