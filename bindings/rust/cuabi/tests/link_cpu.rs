//! Linking with nvJitLink without a GPU (since 1.2): two LTO-IR modules, one of them also as
//! bytes, linked into a CUBIN whose kernels are listed; an undefined symbol; input checks.

use cuabi::{CompileOptions, ImageKind, LinkInput, LinkInputKind, LinkOptions, Module, Status};
use std::path::Path;

const KERNEL: &str = "extern \"C\" __device__ float twice(float x);\n\
extern \"C\" __global__ void apply_twice(float* data, unsigned n) {\n\
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n\
    if (i < n) data[i] = twice(data[i]);\n\
}\n";
const DEVICE: &str = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n";

fn lto_ir(source: &str) -> Module {
    let module = Module::compile_offline(source, &CompileOptions::new().target("sm_90").lto_ir().no_cache()).unwrap();
    assert_eq!(module.info().unwrap().image_kind, ImageKind::LtoIr);
    module
}

fn options() -> LinkOptions {
    LinkOptions::new().target("sm_90").lto().no_cache()
}

#[test]
fn two_lto_ir_modules_link_into_a_cubin_whose_kernels_are_listed() {
    let (kernel, device) = (lto_ir(KERNEL), lto_ir(DEVICE));
    let linked = Module::link_offline(&[LinkInput::Module(&kernel), LinkInput::Module(&device)], &options()).unwrap();
    assert_eq!(linked.info().unwrap().image_kind, ImageKind::Cubin);
    assert_eq!(linked.kernel_names().unwrap(), ["apply_twice"]);
    assert!(!linked.info().unwrap().loaded);
}

/// `source` with a variable of a name no run has used: on a machine with a driver, nvJitLink
/// serves a link it made before from the driver's JIT cache (CUDA_CACHE_PATH) without linking
/// again, and writes no info log then.
fn unique_source(source: &str) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{source}__device__ int link_nonce_{}_{now};\n", std::process::id())
}

#[test]
fn bytes_with_a_name_and_link_options_are_passed_on() {
    let (kernel, device) = (lto_ir(KERNEL), lto_ir(&unique_source(DEVICE)));
    let bytes = device.image().unwrap();
    let input = LinkInput::Bytes { kind: LinkInputKind::LtoIr, data: &bytes, name: Some("twice.ltoir") };
    let linked = Module::link_offline(
        &[LinkInput::Module(&kernel), input],
        &options().optimization_level(3).max_registers(64).extra_option("-verbose").in_process(),
    )
    .unwrap();
    assert_eq!(linked.kernel_names().unwrap(), ["apply_twice"]);
    assert!(!linked.log().unwrap().is_empty(), "-verbose gives an info log");
}

#[test]
fn an_undefined_symbol_is_a_link_error_with_the_log() {
    let kernel = lto_ir(KERNEL);
    let error = Module::link_offline(&[LinkInput::Module(&kernel)], &options()).unwrap_err();
    assert_eq!(error.status(), Status::Link, "{error}");
    assert!(error.message().contains("Fix:"), "{error}");
    assert!(error.compile_log().unwrap_or("").contains("twice"), "{error:?}");
}

#[test]
fn inputs_are_checked() {
    let garbage = [0x13u8; 64];
    let error = Module::link_offline(
        &[LinkInput::Bytes { kind: LinkInputKind::LtoIr, data: &garbage, name: None }],
        &options(),
    )
    .unwrap_err();
    assert_eq!(error.status(), Status::InvalidImage, "{error}");
    let error = Module::link_offline(
        &[LinkInput::File { kind: LinkInputKind::Fatbin, path: Path::new("/nonexistent/x.fatbin") }],
        &options(),
    )
    .unwrap_err();
    assert_eq!(error.status(), Status::NotFound, "{error}");
    let error = Module::link_offline(&[], &options()).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "{error}");
    let kernel = lto_ir(KERNEL);
    let error = Module::link_offline(&[LinkInput::Module(&kernel)], &LinkOptions::new().target("sm_90")).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "LTO-IR needs lto(): {error}");
    let error = kernel.kernel_names().unwrap_err();
    assert_eq!(error.status(), Status::Unsupported, "{error}");
    for kind in
        [LinkInputKind::Cubin, LinkInputKind::Ptx, LinkInputKind::Fatbin, LinkInputKind::Object, LinkInputKind::Library]
    {
        let error =
            Module::link_offline(&[LinkInput::Bytes { kind, data: &garbage, name: None }], &options()).unwrap_err();
        assert_eq!(error.status(), Status::InvalidImage, "{kind:?}: {error}");
    }
    assert_eq!(cuabi::MAX_LINK_INPUTS, 4096);
}

#[test]
fn relocatable_compiles_link_without_lto() {
    let compile = CompileOptions::new().target("sm_90").relocatable().no_cache();
    let kernel = Module::compile_offline(KERNEL, &compile).unwrap();
    let device = Module::compile_offline(DEVICE, &compile).unwrap();
    let linked = Module::link_offline(
        &[LinkInput::Module(&kernel), LinkInput::Module(&device)],
        &LinkOptions::new().target("sm_90").no_cache(),
    )
    .unwrap();
    assert_eq!(linked.kernel_names().unwrap(), ["apply_twice"]);
}

#[test]
fn ptx_output_comes_from_lto() {
    let (kernel, device) = (lto_ir(KERNEL), lto_ir(DEVICE));
    let linked =
        Module::link_offline(&[LinkInput::Module(&kernel), LinkInput::Module(&device)], &options().ptx()).unwrap();
    assert_eq!(linked.info().unwrap().image_kind, ImageKind::Ptx);
    assert_eq!(linked.kernel_names().unwrap_err().status(), Status::Unsupported);
}
