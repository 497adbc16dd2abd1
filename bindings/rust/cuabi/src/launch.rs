//! Launching: geometry, launch configs, typed kernel arguments in table and packed form.

use crate::buffer::{Buffer, DeviceCopy};
use crate::error::{Error, Result, Status};
use crate::ffi::defaults;
use crate::stream::Stream;
use cuabi_sys as sys;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::os::raw::c_void;

/// Three dimensions of a grid, block or cluster. `From` a `u32` (x), a pair, a triple or an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x
    pub x: u32,
    /// y
    pub y: u32,
    /// z
    pub z: u32,
}

impl Dim3 {
    /// The dimensions as cuabi's `uint32_t[3]`.
    pub fn to_array(self) -> [u32; 3] {
        [self.x, self.y, self.z]
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3 { x, y: 1, z: 1 }
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3 { x, y, z: 1 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3 { x, y, z }
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from([x, y, z]: [u32; 3]) -> Dim3 {
        Dim3 { x, y, z }
    }
}

/// How to launch a kernel: grid, block, cluster, dynamic shared memory, stream and flags. Build it
/// once and reuse it: launching reads it as is.
///
/// ```
/// # fn demo(stream: &cuabi::Stream) {
/// let config = cuabi::LaunchConfig::new().grid(4096).block(256).stream(stream);
/// # }
/// ```
///
/// Launch priority ([`LaunchConfig::priority`]) and programmatic dependent launch
/// ([`LaunchConfig::programmatic_dependent`]) need a 1.1 library.
///
/// Without [`LaunchConfig::stream`] a launch runs on the calling thread's per-thread stream and
/// waits for the kernel to finish.
pub struct LaunchConfig<'s> {
    raw: sys::cuabi_launch_config,
    stream: PhantomData<&'s Stream>,
}

impl Clone for LaunchConfig<'_> {
    fn clone(&self) -> Self {
        // Safety: the C struct is plain integers and one handle pointer (bindgen derives no Clone).
        LaunchConfig { raw: unsafe { std::ptr::read(&self.raw) }, stream: PhantomData }
    }
}

// The only pointer inside is the stream's handle, and `Stream` is `Sync`.
unsafe impl Send for LaunchConfig<'_> {}
unsafe impl Sync for LaunchConfig<'_> {}

impl LaunchConfig<'static> {
    /// One block of one thread, no cluster, no dynamic shared memory, no stream: the library's
    /// defaults (`cuabi_launch_config_init`).
    pub fn new() -> LaunchConfig<'static> {
        // Without a loadable library the launch fails with the load error anyway; the header's
        // CUABI_LAUNCH_CONFIG_INIT values keep the config usable until then.
        let raw = defaults().unwrap_or(sys::cuabi_launch_config {
            struct_size: std::mem::size_of::<sys::cuabi_launch_config>() as u32,
            flags: sys::CUABI_LAUNCH_DEFAULT,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            cluster: [0, 0, 0],
            shared_memory_bytes: 0,
            stream: std::ptr::null_mut(),
            priority: 0,
            reserved: 0,
        });
        LaunchConfig { raw, stream: PhantomData }
    }
}

impl Default for LaunchConfig<'static> {
    fn default() -> Self {
        LaunchConfig::new()
    }
}

impl<'s> LaunchConfig<'s> {
    /// Blocks in x, y, z (each at least 1).
    pub fn grid(mut self, grid: impl Into<Dim3>) -> Self {
        self.raw.grid = grid.into().to_array();
        self
    }

    /// Threads per block in x, y, z (each at least 1).
    pub fn block(mut self, block: impl Into<Dim3>) -> Self {
        self.raw.block = block.into().to_array();
        self
    }

    /// Blocks per thread block cluster (sm_90+); (0, 0, 0), the default, is no cluster.
    pub fn cluster(mut self, cluster: impl Into<Dim3>) -> Self {
        self.raw.cluster = cluster.into().to_array();
        self
    }

    /// Dynamic shared memory per block, in bytes; above 48 KiB cuabi opts the kernel in.
    pub fn shared_memory(mut self, bytes: u32) -> Self {
        self.raw.shared_memory_bytes = bytes;
        self
    }

    /// Launch on `stream`, asynchronously.
    pub fn stream<'t>(self, stream: &'t Stream) -> LaunchConfig<'t> {
        let mut raw = self.raw;
        raw.stream = stream.as_raw();
        LaunchConfig { raw, stream: PhantomData }
    }

    /// A cooperative launch: every block resident at once, so the kernel may synchronize the grid.
    pub fn cooperative(mut self) -> Self {
        self.raw.flags |= sys::CUABI_LAUNCH_COOPERATIVE;
        self
    }

    /// Wait until the kernel has finished before the launch returns.
    pub fn synchronize(mut self) -> Self {
        self.raw.flags |= sys::CUABI_LAUNCH_SYNCHRONIZE;
        self
    }

    /// Run this launch at `priority` instead of its stream's (lower runs first, 0 is the default;
    /// clamped to the device's range as stream priorities are): urgent work overtakes queued bulk
    /// work of other streams without a stream of its own.
    pub fn priority(mut self, priority: i32) -> Self {
        self.raw.flags |= sys::CUABI_LAUNCH_PRIORITY;
        self.raw.priority = priority;
        self
    }

    /// Programmatic dependent launch (sm_90+): with `true` the kernel may start before the previous
    /// kernel on its stream has finished, and must wait for that kernel's results itself
    /// (`cudaGridDependencySynchronize()`, or PTX `griddepcontrol.wait`) before reading them; the
    /// previous kernel may signal early (`cudaTriggerProgrammaticLaunchCompletion()`). Hides launch
    /// latency between dependent kernels.
    pub fn programmatic_dependent(mut self, enabled: bool) -> Self {
        if enabled {
            self.raw.flags |= sys::CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT;
        } else {
            self.raw.flags &= !sys::CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT;
        }
        self
    }

    /// The C struct, for the raw API.
    pub fn as_raw(&self) -> &sys::cuabi_launch_config {
        &self.raw
    }
}

impl std::fmt::Debug for LaunchConfig<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchConfig")
            .field("grid", &self.raw.grid)
            .field("block", &self.raw.block)
            .field("cluster", &self.raw.cluster)
            .field("shared_memory_bytes", &self.raw.shared_memory_bytes)
            .field("flags", &self.raw.flags)
            .field("priority", &self.raw.priority)
            .field("stream", &self.raw.stream)
            .finish()
    }
}

/// A value that can be passed as one kernel argument: its bytes, which cuabi checks against the
/// size of the kernel's parameter before the driver sees them.
///
/// Implemented for every [`DeviceCopy`] type (integers, floats, [`DevicePtr`](crate::DevicePtr),
/// arrays, and your `#[repr(C)]` structs once you implement `DeviceCopy` for them) and for
/// [`Buffer`] (its device address, for a pointer parameter).
///
/// # Safety
/// [`KernelArg::arg_ptr`] must point at [`KernelArg::arg_size`] readable bytes that live as long
/// as `self`.
pub unsafe trait KernelArg {
    /// Where the argument's bytes are.
    fn arg_ptr(&self) -> *const c_void {
        (self as *const Self).cast()
    }

    /// How many bytes it has.
    fn arg_size(&self) -> usize {
        std::mem::size_of_val(self)
    }
}

unsafe impl<T: DeviceCopy> KernelArg for T {}

unsafe impl KernelArg for Buffer {
    fn arg_ptr(&self) -> *const c_void {
        (self.address_slot() as *const u64).cast()
    }

    fn arg_size(&self) -> usize {
        std::mem::size_of::<u64>()
    }
}

/// Arguments of up to this many parameters are tabled in the caller's stack frame.
const INLINE_ARGUMENTS: usize = 16;
/// cuabi's most table arguments; more go to the heap, for cuabi to refuse with its message.
const MAX_TABLE_ARGUMENTS: usize = 256;

/// Calls `call` with a `cuabi_kernel_arg` table of `args`, built without allocating for every
/// count cuabi accepts.
#[inline]
pub(crate) fn with_table<R>(args: &[&dyn KernelArg], call: impl FnOnce(*const sys::cuabi_kernel_arg, usize) -> R) -> R {
    if args.len() <= INLINE_ARGUMENTS {
        let mut table = [MaybeUninit::<sys::cuabi_kernel_arg>::uninit(); INLINE_ARGUMENTS];
        fill_table(&mut table, args);
        call(table.as_ptr().cast(), args.len())
    } else {
        with_large_table(args, call)
    }
}

#[inline(never)]
fn with_large_table<R>(args: &[&dyn KernelArg], call: impl FnOnce(*const sys::cuabi_kernel_arg, usize) -> R) -> R {
    if args.len() <= MAX_TABLE_ARGUMENTS {
        let mut table = [MaybeUninit::<sys::cuabi_kernel_arg>::uninit(); MAX_TABLE_ARGUMENTS];
        fill_table(&mut table, args);
        call(table.as_ptr().cast(), args.len())
    } else {
        let table: Vec<sys::cuabi_kernel_arg> = args.iter().map(|arg| raw_arg(*arg)).collect();
        call(table.as_ptr(), table.len())
    }
}

#[inline]
fn fill_table(table: &mut [MaybeUninit<sys::cuabi_kernel_arg>], args: &[&dyn KernelArg]) {
    for (slot, arg) in table.iter_mut().zip(args) {
        slot.write(raw_arg(*arg));
    }
}

#[inline]
fn raw_arg(arg: &dyn KernelArg) -> sys::cuabi_kernel_arg {
    sys::cuabi_kernel_arg { value: arg.arg_ptr(), size: arg.arg_size() }
}

/// Where one parameter lies in a kernel's parameter buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// Byte offset.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
}

/// Kernel arguments in packed form: one buffer with each argument at its parameter's offset, as
/// [`Kernel::launch_packed`](crate::Kernel::launch_packed) and
/// [`Graph::update_kernel_args_packed`](crate::Graph::update_kernel_args_packed) take it. Build it
/// once from the kernel's layout and update values in place: launching it allocates nothing.
///
/// ```no_run
/// # fn demo(kernel: &cuabi::Kernel, x: &cuabi::Buffer, y: &cuabi::Buffer, config: &cuabi::LaunchConfig) -> cuabi::Result<()> {
/// let mut args = cuabi::PackedArgs::for_kernel(kernel)?;
/// args.set_all(&[&2.0f32, x, y, &1024u32])?;
/// kernel.launch_packed(config, &args)?;
/// args.set(0, &3.0f32)?;
/// kernel.launch_packed(config, &args)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct PackedArgs {
    // Bytes copied from arguments may include a struct's padding, which Rust does not let be read
    // as u8; only cuabi reads them.
    bytes: Vec<MaybeUninit<u8>>,
    params: Vec<Param>,
}

impl PackedArgs {
    /// Zeroed arguments for a parameter layout; the buffer ends where the last parameter ends.
    pub fn new(params: Vec<Param>) -> PackedArgs {
        let end = params.iter().map(|param| param.offset + param.size).max().unwrap_or(0);
        PackedArgs { bytes: vec![MaybeUninit::new(0); end], params }
    }

    /// Zeroed arguments laid out as `kernel`'s parameters ([`Kernel::params`](crate::Kernel::params)).
    pub fn for_kernel(kernel: &crate::Kernel) -> Result<PackedArgs> {
        Ok(PackedArgs::new(kernel.params()?))
    }

    /// Zeroed arguments laid out as kernel node `node`'s parameters
    /// ([`Graph::node_params`](crate::Graph::node_params)).
    pub fn for_graph_node(graph: &crate::Graph, node: usize) -> Result<PackedArgs> {
        Ok(PackedArgs::new(graph.node_params(node)?))
    }

    /// Puts `value` at parameter `index`'s offset. [`Status::OutOfBounds`] for an index past the
    /// last parameter, [`Status::ArgumentSize`] for a value of another size than the parameter.
    pub fn set(&mut self, index: usize, value: &dyn KernelArg) -> Result<&mut PackedArgs> {
        let Some(param) = self.params.get(index).copied() else {
            return Err(Error::binding(
                Status::OutOfBounds,
                format!(
                    "parameter {index} is past the last of the {} parameters. Fix: pass an index below {}",
                    self.params.len(),
                    self.params.len()
                ),
            ));
        };
        if value.arg_size() != param.size {
            return Err(Error::binding(
                Status::ArgumentSize,
                format!(
                    "the value for parameter {index} is {} bytes, but parameter {index} is {} bytes (at offset {}). \
                     Fix: pass a value of exactly {} bytes for parameter {index}",
                    value.arg_size(),
                    param.size,
                    param.offset,
                    param.size
                ),
            ));
        }
        // Safety: arg_ptr points at arg_size readable bytes (KernelArg's contract), and the
        // destination range lies within `bytes` (its length is the furthest parameter end).
        unsafe {
            std::ptr::copy_nonoverlapping(
                value.arg_ptr().cast::<MaybeUninit<u8>>(),
                self.bytes.as_mut_ptr().add(param.offset),
                param.size,
            );
        }
        Ok(self)
    }

    /// Puts every argument at its parameter, in order. [`Status::ArgumentCount`] when the count
    /// differs from the parameters'.
    pub fn set_all(&mut self, args: &[&dyn KernelArg]) -> Result<&mut PackedArgs> {
        if args.len() != self.params.len() {
            return Err(Error::binding(
                Status::ArgumentCount,
                format!(
                    "{} arguments for {} parameters. Fix: pass one argument per parameter, in declaration order",
                    args.len(),
                    self.params.len()
                ),
            ));
        }
        for (index, arg) in args.iter().enumerate() {
            self.set(index, *arg)?;
        }
        Ok(self)
    }

    /// The parameter layout.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The packed buffer's size in bytes (where the last parameter ends).
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the kernel takes no parameters.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The buffer, for cuabi.
    pub(crate) fn as_ptr(&self) -> *const c_void {
        self.bytes.as_ptr().cast()
    }
}
