//! Raw declarations of `cuabi.h` and a loader for `libcuabi.so.1`.
//!
//! This is the unsafe layer under the [`cuabi`](../cuabi/index.html) crate; use that one unless you
//! need something it does not offer.
//!
//! - The types and `PFN_cuabi_*` function-pointer types are generated from the header by
//!   `scripts/bindgen.sh` (bindgen 0.60), which adds from the ABI model (`abi/cuabi_model.json`)
//!   each constant family as a type (`cuabi_graph_node_kind`), each constant typed by its family
//!   and the header's doc comment on every item; the file is committed as `src/bindings.rs`, and a
//!   test fails when it no longer matches what the script makes (regenerate it from the repository
//!   root: `scripts/regenerate.sh`, or `scripts/bindgen.sh > bindings/rust/cuabi-sys/src/bindings.rs`).
//! - [`Library`] loads the shared library with `dlopen` (declared here directly, no `libc` crate),
//!   looks up the one symbol `cuabi_get_proc_address`, and resolves every other function through it
//!   into an [`Api`] table. A function the loaded library lacks (an older 1.x) is `None` in the
//!   table and must be reported when called, never at load. The ABI major is checked at load.
//!
//! ```no_run
//! let library = unsafe { cuabi_sys::Library::open() }.expect("libcuabi.so.1");
//! let version = library.api().cuabi_version_number.expect("every 1.x has it");
//! println!("cuabi {}", unsafe { version() });
//! ```
#![warn(missing_docs)]

#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, missing_docs, deref_nullptr, clippy::all)]
mod bindings {
    include!("bindings.rs");
}
pub use bindings::*;

mod api;
mod loader;

pub use api::Api;
pub use loader::{Library, LoadError, LoadErrorKind, DEFAULT_LIBRARY, LIBRARY_ENV};
