//! Batched launches without a GPU: the empty batch, the limit, and the error's shape.

#[test]
fn an_empty_batch_launches_nothing() {
    cuabi::launch_batch(&[]).unwrap();
}

#[test]
fn the_batch_limit_is_the_headers() {
    assert_eq!(cuabi::MAX_BATCH_ITEMS, cuabi::sys::CUABI_LAUNCH_BATCH_MAX_ITEMS as usize);
    assert_eq!(std::mem::size_of::<cuabi::LaunchItem<'_>>(), std::mem::size_of::<cuabi::sys::cuabi_launch_item>());
}

/// A raw item naming no kernel: the library refuses item 0 and names it; the safe wrapper reports
/// the index with the library's error.
#[test]
fn a_refused_item_is_named_by_index() {
    let api = cuabi::raw_api().unwrap();
    let item = cuabi::sys::cuabi_launch_item {
        kernel: std::ptr::null_mut(),
        config: std::ptr::null(),
        args: std::ptr::null(),
        arg_count: 0,
        packed: std::ptr::null(),
        packed_size: 0,
    };
    let mut submitted = 99usize;
    let status = unsafe { (api.cuabi_launch_batch.unwrap())(&item, 1, &mut submitted) };
    assert_eq!(status, cuabi::sys::CUABI_ERROR_INVALID_HANDLE);
    assert_eq!(submitted, 0);
    let message = unsafe { std::ffi::CStr::from_ptr((api.cuabi_last_error_message.unwrap())()) };
    assert!(message.to_str().unwrap().starts_with("cuabi_launch_batch item 0 of 1: "), "{message:?}");
}
