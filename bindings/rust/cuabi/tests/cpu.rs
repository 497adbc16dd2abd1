//! What the crate does without a GPU: loading, errors, offline compiles, the kernel cache,
//! ranges, NVRTC facts, argument packing and launch configs, and the GPU calls failing with the
//! driver's reason.

use cuabi::{
    CompileOptions, Context, ContextOptions, ImageKind, ImageVerification, Module, Origin, PackedArgs, Param, Status,
};

mod sources;

const SOURCE: &str = sources::scenario_source!();
const BROKEN: &str = "__global__ void broken( { }\n";

fn offline_options() -> CompileOptions {
    CompileOptions::new().target("sm_90").name_expression("scale<float>").name_expression("scale<double>")
}

#[test]
fn library_loads_with_abi_1_and_reports_its_version() {
    assert_eq!(cuabi::abi_version().unwrap(), 1);
    let version = cuabi::version().unwrap();
    assert!(version.number() >= 10000, "{version}");
    assert_eq!(version.major, cuabi::BINDING_VERSION.major);
    assert!(!cuabi::library_path().unwrap().as_os_str().is_empty());
}

#[test]
fn loading_another_file_after_the_first_is_refused() {
    cuabi::abi_version().unwrap();
    let error = cuabi::load(Some(std::path::Path::new("/elsewhere/libcuabi.so.1"))).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument);
    assert!(error.message().contains("already loaded") && error.message().contains("Fix: "), "{error}");
}

#[test]
fn status_names_agree_with_the_library_for_every_code() {
    assert_eq!(cuabi::status_name(0).unwrap(), "CUABI_SUCCESS");
    assert_eq!(cuabi::status_name(67).unwrap(), "CUABI_ERROR_ARGUMENT_SIZE");
    assert_eq!(cuabi::status_name(9999).unwrap(), "CUABI_UNKNOWN_STATUS");
    for code in 1..=200 {
        let status = Status::from_code(code);
        let library_name = cuabi::status_name(code).unwrap();
        match status {
            Status::Unknown(unknown) => {
                assert_eq!(unknown, code);
                assert_eq!(library_name, "CUABI_UNKNOWN_STATUS", "the library knows {code}, the binding does not");
            }
            known => {
                assert_eq!(known.code(), code);
                assert_eq!(known.name(), library_name);
            }
        }
    }
    assert_eq!(Status::from_code(9999).to_string(), "CUABI_UNKNOWN_STATUS (9999)");
}

#[test]
fn compile_error_carries_status_message_and_log() {
    let error = Module::compile_offline(BROKEN, &CompileOptions::new().target("sm_90")).unwrap_err();
    assert_eq!(error.status(), Status::Compile);
    assert_eq!(error.code(), 40);
    assert_eq!(error.name(), "CUABI_ERROR_COMPILE");
    assert!(error.message().contains("Fix:"), "{error}");
    let log = error.compile_log().expect("a compile error has a log");
    assert!(log.contains("error"), "{log}");
    assert!(error.to_string().starts_with("CUABI_ERROR_COMPILE: "), "{error}");
    assert!(error.to_string().contains(log));
    assert_eq!(cuabi::last_compile_log().unwrap(), log);
    let as_std: Box<dyn std::error::Error> = Box::new(error);
    assert!(as_std.to_string().contains("Fix:"));
}

#[test]
fn offline_compile_gives_a_cubin_with_lowered_template_names() {
    let module = Module::compile_offline(SOURCE, &offline_options()).unwrap();
    let info = module.info().unwrap();
    assert_eq!(info.image_kind, ImageKind::Cubin);
    assert!(info.image_size > 0);
    assert!(!info.loaded);
    assert_eq!(info.target, "sm_90");
    assert_eq!(info.name_expression_count, 2);
    assert_eq!(module.image().unwrap().len() as u64, info.image_size);
    assert_eq!(module.lowered_name("scale<float>").unwrap(), "_Z5scaleIfEvPT_S0_j");
    assert_eq!(module.lowered_name("scale<double>").unwrap(), "_Z5scaleIdEvPT_S0_j");
    assert_eq!(module.lowered_name("scale<int>").unwrap_err().status(), Status::KernelNotFound);
    assert_eq!(module.log().unwrap(), "");
    let error = module.kernel("saxpy").unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "{error}");
}

#[test]
fn no_pch_leaves_the_cache_key_alone_as_it_leaves_the_image() {
    let source = "#include <cuda/std/limits>\nextern \"C\" __global__ void pch_limits(int* out) { *out = cuda::std::numeric_limits<int>::max(); }\n";
    let with = Module::compile_offline(source, &CompileOptions::new().target("sm_90")).unwrap();
    let without = Module::compile_offline(source, &CompileOptions::new().target("sm_90").no_pch()).unwrap();
    let (with, without) = (with.info().unwrap(), without.info().unwrap());
    assert_eq!(with.cache_key, without.cache_key);
    assert_eq!(without.origin, Origin::MemoryCache);
}

#[test]
fn the_same_compile_again_comes_from_the_memory_cache() {
    let first = Module::compile_offline(SOURCE, &offline_options()).unwrap();
    let second = Module::compile_offline(SOURCE, &offline_options()).unwrap();
    let (first, second) = (first.info().unwrap(), second.info().unwrap());
    assert_eq!(second.origin, Origin::MemoryCache);
    assert_eq!(first.cache_key, second.cache_key);
    assert_eq!(second.cache_key.len(), 32);
    assert!(cuabi::cache::stats().unwrap().memory_hits >= 1);
}

#[test]
fn compile_options_reach_nvrtc() {
    let source = "#include \"answer.cuh\"\n#ifndef WANTED\n#error WANTED is not defined\n#endif\n\
                  extern \"C\" __global__ void k(int* out) { *out = ANSWER; }\n";
    let base = CompileOptions::new().target("sm_90").header("answer.cuh", "#define ANSWER 42\n");
    let error = Module::compile_offline(source, &base).unwrap_err();
    assert_eq!(error.status(), Status::Compile);
    assert!(error.compile_log().unwrap_or_default().contains("WANTED is not defined"), "{error}");
    let module = Module::compile_offline(source, &base.clone().define("WANTED").line_info(true).fmad(false)).unwrap();
    assert_eq!(module.info().unwrap().image_kind, ImageKind::Cubin);
    let ptx = Module::compile_offline(source, &base.define("WANTED").ptx().target("compute_90")).unwrap();
    assert_eq!(ptx.info().unwrap().image_kind, ImageKind::Ptx);
    assert!(String::from_utf8_lossy(&ptx.image().unwrap()).contains(".entry k"));
}

#[test]
fn text_with_a_nul_byte_is_refused_before_cuabi_sees_it() {
    let error =
        Module::compile_offline("__global__ void k() {}\0", &CompileOptions::new().target("sm_90")).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument);
    assert!(error.message().contains("NUL") && error.message().contains("Fix: "), "{error}");
    assert_eq!(cuabi::range("a\0b").unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn bad_option_is_an_invalid_argument_from_cuabi() {
    let error = Module::compile_offline(SOURCE, &CompileOptions::new()).unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument, "offline compiles need a target: {error}");
    assert!(error.message().contains("Fix:"), "{error}");
}

/// The library checks the policy before the ordinal and before it looks for a driver: each policy
/// passes (a code the library does not know would be InvalidArgument), so the negative ordinal
/// is what refuses the context, GPU or not.
#[test]
fn every_image_verification_policy_is_one_the_library_accepts() {
    assert_eq!(ContextOptions::new(), ContextOptions::new().image_verification(ImageVerification::Default));
    for policy in
        [ImageVerification::Default, ImageVerification::Untrusted, ImageVerification::All, ImageVerification::None]
    {
        let error = Context::with_options(&ContextOptions::new().device(-1).image_verification(policy)).unwrap_err();
        assert_eq!(error.status(), Status::InvalidDevice, "{policy:?}: {error}");
        assert!(error.message().contains("Fix:"), "{error}");
    }
}

#[test]
fn ranges_nest_end_on_other_threads_and_refuse_a_pop_without_push() {
    {
        let _outer = cuabi::range("conformance").unwrap();
        let inner = cuabi::range_in("cuabi.tests", "inner").unwrap();
        inner.end().unwrap();
    }
    let error = cuabi::ranges::pop().unwrap_err();
    assert_eq!(error.status(), Status::Range);
    assert!(error.message().contains("Fix:"), "{error}");
    let range = cuabi::Range::start("across threads").unwrap();
    std::thread::spawn(move || range.end()).join().unwrap().unwrap();
    drop(cuabi::Range::start_in("cuabi.tests", "dropped").unwrap());
    assert_eq!(cuabi::range("").unwrap_err().status(), Status::InvalidArgument);
}

#[test]
fn catalog_lists_cuabis_own_ranges() {
    let catalog = cuabi::ranges::catalog().unwrap();
    assert!(catalog.len() >= 13, "{catalog:?}");
    assert!(catalog.iter().all(|entry| entry.name.starts_with("cuabi.") && !entry.description.is_empty()));
    assert!(catalog.iter().any(|entry| entry.name == "cuabi.compile"), "{catalog:?}");
    let enabled = std::env::var("CUABI_NVTX").map_or(true, |value| value != "0");
    assert_eq!(cuabi::ranges::enabled().unwrap(), enabled);
    assert!(!cuabi::ranges::profiler_attached().unwrap() || enabled);
}

#[test]
fn gpu_calls_without_a_gpu_fail_with_the_drivers_reason() {
    match cuabi::Context::new() {
        Err(error) => {
            assert!(error.is_no_gpu(), "{error}");
            assert!(error.message().contains("Fix:"), "{error}");
            let again = cuabi::device_count().unwrap_err();
            assert_eq!(again.status(), error.status());
            assert!(cuabi::driver_version().is_err() || error.status() == Status::NoDevice);
        }
        Ok(context) => {
            let info = context.device_info().unwrap();
            assert!(!info.name.is_empty());
            assert!(cuabi::device_count().unwrap() >= 1);
            assert!(cuabi::driver_version().unwrap() >= 12000);
        }
    }
}

#[test]
fn nvrtc_facts() {
    let (major, _minor) = cuabi::nvrtc::version().unwrap();
    assert!(major >= 12);
    let archs = cuabi::nvrtc::supported_archs().unwrap();
    assert!(archs.contains(&90), "{archs:?}");
    assert!(archs.windows(2).all(|pair| pair[0] < pair[1]), "{archs:?}");
    assert!(cuabi::nvrtc::path().unwrap().to_string_lossy().contains("nvrtc"));
    for directory in cuabi::nvrtc::include_dirs().unwrap() {
        assert!(directory.is_absolute(), "{}", directory.display());
    }
}

#[test]
fn nvjitlink_facts() {
    let path = cuabi::nvjitlink::path().unwrap();
    assert!(path.to_string_lossy().contains("libnvJitLink.so"), "{}", path.display());
    let (major, minor) = cuabi::nvjitlink::version().unwrap();
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        file.ends_with(&format!(".so.{major}")) || file.ends_with(".so"),
        "{file} is not nvJitLink {major}.{minor}"
    );
    assert!(major >= 12, "{major}.{minor}");
}

#[test]
fn cache_statistics_and_maintenance() {
    Module::compile_offline(SOURCE, &offline_options()).unwrap();
    let stats = cuabi::cache::stats().unwrap();
    assert!(stats.memory_entries >= 1);
    assert!(stats.memory_max_bytes > 0);
    let directory = cuabi::cache::directory().unwrap();
    if stats.disk_enabled {
        assert!(directory.is_absolute(), "{}", directory.display());
        // Other processes may share the directory (and leave what verify removes): count only.
        let verified = cuabi::cache::verify().unwrap();
        assert!(verified.checked >= u64::from(stats.disk_writable), "{verified:?}");
        cuabi::cache::prune(u64::MAX).unwrap();
    } else {
        assert!(cuabi::cache::degradation_reason().unwrap().is_some());
    }
    let jit = cuabi::cache::driver_jit_info().unwrap();
    assert!(jit.enabled || std::env::var("CUDA_CACHE_DISABLE").is_ok());
    assert!(!cuabi::cache::driver_jit_path().unwrap().as_os_str().is_empty());
}

// Marks the child process of `remote_tier_statistics`: the remote tier is configured once per
// process, from the environment it starts with.
const REMOTE_CHILD: &str = "CUABI_RUST_TEST_REMOTE_CHILD";

#[test]
fn remote_tier_statistics() {
    if std::env::var_os(REMOTE_CHILD).is_some() {
        return; // the child runs remote_tier_statistics_child only
    }
    let stats = cuabi::cache::stats().unwrap();
    assert!(!stats.remote_configured && !stats.remote_breaker_open, "{stats:?}");
    assert_eq!((stats.remote_hits, stats.remote_errors), (0, 0), "{stats:?}");
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["remote_tier_statistics_child", "--exact", "--nocapture"])
        .env(REMOTE_CHILD, "1")
        .env("CUABI_CACHE_REMOTE", "rediss://127.0.0.1:1")
        .output()
        .unwrap();
    let output = String::from_utf8_lossy(&child.stdout).into_owned() + &String::from_utf8_lossy(&child.stderr);
    assert!(child.status.success() && output.contains("1 passed"), "the child with a remote failed:\n{output}");
}

// A remote whose every operation is skipped (TLS is refused at configuration, no network needed):
// the compile goes on locally and the statistics say so.
#[test]
fn remote_tier_statistics_child() {
    if std::env::var_os(REMOTE_CHILD).is_none() {
        return; // run by remote_tier_statistics in a child process
    }
    let options = offline_options().define(&format!("RUST_REMOTE_CHILD={}", std::process::id()));
    Module::compile_offline(SOURCE, &options).unwrap();
    let stats = cuabi::cache::stats().unwrap();
    assert!(stats.remote_configured && !stats.remote_breaker_open, "{stats:?}");
    assert!(stats.remote_errors >= 1 && stats.remote_hits == 0 && stats.remote_publishes == 0, "{stats:?}");
}

#[test]
fn cache_bundle_export_readonly_layer_and_import() {
    let options = offline_options().define("RUST_BUNDLE=1");
    let module = Module::compile_offline(SOURCE, &options).unwrap();
    let key = module.info().unwrap().cache_key;
    if !cuabi::cache::stats().unwrap().disk_writable {
        return; // nothing on disk to export
    }
    let directory = std::env::temp_dir().join(format!("cuabi-rust-bundle-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let bundle = directory.join("kernels.cuabibundle");
    // Only this test's entry: the layer stays for the rest of the process.
    let exported = cuabi::cache::export(&bundle, Some(&key)).unwrap();
    assert_eq!(exported.entries, 1, "{exported:?}");
    cuabi::cache::add_readonly_layer(&bundle).unwrap();
    assert!(cuabi::cache::stats().unwrap().readonly_layers >= 1);
    let imported = cuabi::cache::import(&bundle).unwrap();
    assert_eq!((imported.entries, imported.other), (1, 0));
    let garbage = directory.join("garbage");
    std::fs::write(&garbage, vec![0u8; 4096]).unwrap();
    assert_eq!(cuabi::cache::import(&garbage).unwrap_err().status(), Status::CacheIo);
    let relative = cuabi::cache::add_readonly_layer(std::path::Path::new("relative/path")).unwrap_err();
    assert_eq!(relative.status(), Status::InvalidArgument);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn graph_cache_capacity_classes_and_statistics() {
    use cuabi::graph_cache::{capacity_class, stats};
    assert_eq!(capacity_class(0).unwrap(), 1);
    assert_eq!(capacity_class(5).unwrap(), 8);
    assert_eq!(capacity_class(1 << 20).unwrap(), 1 << 20);
    assert_eq!(capacity_class((1 << 63) + 1).unwrap(), u64::MAX);
    assert!(stats().unwrap().capacity > 0);
}

#[test]
fn launch_config_defaults_are_the_headers() {
    let config = cuabi::LaunchConfig::new();
    let raw = config.as_raw();
    assert_eq!(raw.struct_size as usize, std::mem::size_of::<cuabi::sys::cuabi_launch_config>());
    assert_eq!((raw.grid, raw.block, raw.cluster), ([1, 1, 1], [1, 1, 1], [0, 0, 0]));
    assert_eq!((raw.flags, raw.shared_memory_bytes), (0, 0));
    assert!(raw.stream.is_null());
    let built = config.grid((4, 2)).block(256).cluster([2, 1, 1]).shared_memory(1024).cooperative().synchronize();
    let raw = built.as_raw();
    assert_eq!((raw.grid, raw.block, raw.cluster), ([4, 2, 1], [256, 1, 1], [2, 1, 1]));
    assert_eq!(raw.flags, cuabi::sys::CUABI_LAUNCH_COOPERATIVE | cuabi::sys::CUABI_LAUNCH_SYNCHRONIZE);
}

#[test]
fn launch_priority_and_programmatic_dependent_launch_set_the_headers_fields() {
    use cuabi::sys::{CUABI_LAUNCH_PRIORITY, CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT};
    let plain = cuabi::LaunchConfig::new();
    assert_eq!((plain.as_raw().priority, plain.as_raw().reserved), (0, 0));
    let urgent = plain.clone().priority(-2).programmatic_dependent(true).cooperative();
    let raw = urgent.as_raw();
    assert_eq!(raw.priority, -2);
    assert_eq!(
        raw.flags,
        CUABI_LAUNCH_PRIORITY | CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT | cuabi::sys::CUABI_LAUNCH_COOPERATIVE
    );
    let undone = urgent.programmatic_dependent(false);
    assert_eq!(undone.as_raw().flags, CUABI_LAUNCH_PRIORITY | cuabi::sys::CUABI_LAUNCH_COOPERATIVE);
    assert_eq!(undone.as_raw().priority, -2);
}

#[test]
fn device_attributes_need_a_gpu_and_agree_with_device_info() {
    use cuabi::DeviceAttribute;
    match cuabi::device_info(0) {
        Err(error) => {
            let refused = cuabi::device_attribute(0, DeviceAttribute::MULTIPROCESSOR_COUNT).unwrap_err();
            assert_eq!(refused.status(), error.status(), "{refused}");
            assert!(refused.message().contains("Fix:"), "{refused}");
        }
        Ok(info) => {
            let count = cuabi::device_attribute(0, DeviceAttribute::MULTIPROCESSOR_COUNT).unwrap();
            assert_eq!(count, info.multiprocessor_count);
            assert_eq!(cuabi::device_attribute(0, DeviceAttribute(16)).unwrap(), count);
        }
    }
}

#[test]
fn an_offline_module_has_no_globals_and_names_are_checked() {
    let module = Module::compile_offline(SOURCE, &offline_options()).unwrap();
    let error = module.global("bias").unwrap_err();
    assert_eq!(error.status(), Status::Unsupported, "{error}");
    assert!(error.message().contains("Fix:"), "{error}");
    let error = module.global("bi\0as").unwrap_err();
    assert_eq!(error.status(), Status::InvalidArgument);
    assert!(error.message().contains("NUL"), "{error}");
}

/// A C struct of the kind kernels take by value.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Params {
    scale: f32,
    count: u32,
    origin: [f64; 2],
}
unsafe impl cuabi::DeviceCopy for Params {}

#[test]
fn kernel_arguments_have_their_types_sizes() {
    use cuabi::KernelArg;
    assert_eq!(2.0f32.arg_size(), 4);
    assert_eq!(7u64.arg_size(), 8);
    assert_eq!(cuabi::DevicePtr(0x1000).arg_size(), 8);
    assert_eq!([1u32, 2, 3].arg_size(), 12);
    assert_eq!(Params::default().arg_size(), 24);
    let value = 5i32;
    assert_eq!(value.arg_ptr(), (&value as *const i32).cast());
}

#[test]
fn packed_arguments_are_checked_against_the_layout() {
    let layout = vec![
        Param { offset: 0, size: 4 },
        Param { offset: 8, size: 8 },
        Param { offset: 16, size: 8 },
        Param { offset: 24, size: 4 },
    ];
    let mut args = PackedArgs::new(layout.clone());
    assert_eq!(args.len(), 28);
    assert_eq!(args.params(), &layout[..]);
    args.set_all(&[&2.0f32, &cuabi::DevicePtr(1), &cuabi::DevicePtr(2), &4u32]).unwrap();
    let error = args.set(0, &2.0f64).unwrap_err();
    assert_eq!(error.status(), Status::ArgumentSize);
    assert!(error.message().contains("parameter 0") && error.message().contains("Fix:"), "{error}");
    assert_eq!(args.set(4, &1u32).unwrap_err().status(), Status::OutOfBounds);
    assert_eq!(args.set_all(&[&1.0f32]).unwrap_err().status(), Status::ArgumentCount);
    assert!(PackedArgs::new(Vec::new()).is_empty());
}

#[test]
fn memory_calls_refuse_forged_handles_and_unknown_values() {
    let api = cuabi::raw_api().unwrap();
    let forged_pool = 0x5eed_0000_0bad_f00d_usize as *mut cuabi::sys::cuabi_memory_pool;
    let forged_buffer = 0x5eed_0000_0bad_f00d_usize as *mut cuabi::sys::cuabi_buffer;
    let mut value = 0u64;
    // Safety: cuabi checks every handle against its table before touching anything.
    unsafe {
        assert_eq!(api.cuabi_memory_pool_trim.unwrap()(forged_pool, 0), cuabi::sys::CUABI_ERROR_INVALID_HANDLE);
        assert_eq!(
            api.cuabi_memory_pool_get_attribute.unwrap()(forged_pool, 0, &mut value),
            cuabi::sys::CUABI_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            api.cuabi_buffer_free_async.unwrap()(forged_buffer, std::ptr::null_mut()),
            cuabi::sys::CUABI_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            api.cuabi_buffer_advise.unwrap()(forged_buffer, 0, 64, 9, 0),
            cuabi::sys::CUABI_ERROR_INVALID_ARGUMENT
        );
        let message = std::ffi::CStr::from_ptr(api.cuabi_last_error_message.unwrap()()).to_string_lossy();
        assert!(message.contains("advice 9") && message.contains("Fix:"), "{message}");
    }
}

#[test]
fn conditions_are_8_byte_kernel_arguments_and_bad_conditional_calls_are_refused_first() {
    use cuabi::KernelArg;
    let condition = cuabi::Condition::from_value(0xfeed);
    assert_eq!(condition.value(), 0xfeed);
    assert_eq!(condition.arg_size(), 8);
    let api = cuabi::raw_api().unwrap();
    let begin = api.cuabi_graph_capture_conditional_begin.unwrap();
    // Safety: cuabi checks the type and body count before it looks at the (NULL) stream.
    let status = unsafe { begin(std::ptr::null_mut(), 1, cuabi::sys::CUABI_GRAPH_CONDITIONAL_WHILE, 2) };
    assert_eq!(status, Status::InvalidArgument.code());
    let status = unsafe { begin(std::ptr::null_mut(), 1, 0, 1) };
    assert_eq!(status, Status::InvalidArgument.code());
    let status = unsafe { begin(std::ptr::null_mut(), 1, cuabi::sys::CUABI_GRAPH_CONDITIONAL_WHILE, 1) };
    assert_eq!(status, Status::InvalidHandle.code());
}
