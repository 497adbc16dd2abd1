//! 1.2's several GPUs and tensor maps on real devices: a TMA copy kernel reads the tile a
//! TensorMap describes (zeros past the edge), and a copy between two devices is refused without
//! peer access, naming both, and correct with it. The two-device test skips on one device.

use super::{Outcome, Skip};
use cuabi::{
    Buffer, CompileOptions, Context, LaunchConfig, Module, PeerCopy, Status, TensorDataType, TensorMap, TensorMapParams,
};

/// The tensor-map kernels that the C suite and every binding compile alike, embedded at build time:
/// the GPU machine runs this test binary without the repository's toolchains.
const TMA_SOURCE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../tests/gpu/kernels/tma_copy.cu"));

fn context(ordinal: i32) -> Result<Context, Skip> {
    match Context::on_device(ordinal) {
        Ok(context) => Ok(context),
        Err(error) if error.is_no_gpu() => Err(Skip(format!("no GPU ({}): {}", error.name(), error.message()))),
        Err(error) if error.status() == Status::InvalidDevice => Err(Skip(format!("no device {ordinal}"))),
        Err(error) => panic!("{error}"),
    }
}

pub(super) fn a_tma_kernel_copies_the_tile_a_tensor_map_describes() -> Outcome {
    let context = context(0)?;
    let info = context.device_info().unwrap();
    if info.compute_capability.0 < 9 {
        return Err(Skip(format!("tensor maps need compute capability 9.0, not {:?}", info.compute_capability)));
    }
    let (width, height) = (64u32, 32u32);
    let values: Vec<f32> = (0..width * height).map(|i| ((i / width) * 1000 + i % width) as f32).collect();
    let tensor = Buffer::from_slice(&context, &values).unwrap();
    let params = TensorMapParams::new(TensorDataType::F32, &[64, 32], &[256], &[32, 8]);
    let map = TensorMap::tiled(&tensor, &params).unwrap();
    let module = Module::compile(&context, TMA_SOURCE, &CompileOptions::new()).unwrap();
    let kernel = module.kernel("copy_tile").unwrap();
    let out = Buffer::new(&context, 8 * 32 * 4).unwrap();
    for (x0, y0) in [(32i32, 16i32), (48, 28)] {
        kernel.launch(&LaunchConfig::new().grid(1).block(128), &[&map, &out, &x0, &y0]).unwrap();
        let tile: Vec<f32> = out.to_vec().unwrap();
        for y in 0..8 {
            for x in 0..32 {
                let (gx, gy) = (x0 as u32 + x, y0 as u32 + y);
                let want = if gx < width && gy < height { (gy * 1000 + gx) as f32 } else { 0.0 };
                assert_eq!(tile[(y * 32 + x) as usize], want, "element ({x}, {y}) of the tile at ({x0}, {y0})");
            }
        }
    }
    let too_large = TensorMapParams::new(TensorDataType::F32, &[64, 33], &[256], &[32, 8]);
    let error = TensorMap::tiled(&tensor, &too_large).unwrap_err();
    assert_eq!(error.status(), Status::OutOfBounds, "{error}");
    Ok(())
}

pub(super) fn copies_between_two_devices_need_peer_access_or_staging() -> Outcome {
    let first = context(0)?;
    let second = context(1)?;
    let data: Vec<u32> = (0..4096).map(|i| i * 2654435761u32).collect();
    let source = Buffer::from_slice(&first, &data).unwrap();
    let target = Buffer::zeroed(&second, data.len() * 4).unwrap();
    second.disable_peer_access(&first).unwrap();
    let refused = target.copy_from_peer(0, &source, 0, data.len() * 4, PeerCopy::Direct, None).unwrap_err();
    assert_eq!(refused.status(), Status::ContextMismatch, "{refused}");
    assert!(refused.message().contains("device 0 (") && refused.message().contains("device 1 ("), "{refused}");
    target.copy_from_peer(0, &source, 0, data.len() * 4, PeerCopy::Staged, None).unwrap();
    assert_eq!(target.to_vec::<u32>().unwrap(), data);
    if second.can_access_peer(&first).unwrap() {
        target.fill(0, 0u32, data.len(), None).unwrap();
        second.enable_peer_access(&first).unwrap();
        second.enable_peer_access(&first).unwrap();
        assert!(second.peer_access_enabled(&first).unwrap());
        target.copy_from_peer(0, &source, 0, data.len() * 4, PeerCopy::Direct, None).unwrap();
        assert_eq!(target.to_vec::<u32>().unwrap(), data);
        second.disable_peer_access(&first).unwrap();
        assert!(!second.peer_access_enabled(&first).unwrap());
    }
    Ok(())
}
