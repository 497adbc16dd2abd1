//! CUDA graphs: capture as a scope, replay, inventory, and updates in place.

use crate::buffer::Buffer;
use crate::error::{Error, Result, Status};
use crate::ffi::{call, defaults, destroy, fixed_text, raw, two_call_text};
use crate::graph_conditional::{Condition, ConditionalType};
use crate::launch::{with_table, Dim3, KernelArg, PackedArgs, Param};
use crate::stream::Stream;
use cuabi_sys as sys;
use std::marker::PhantomData;
use std::os::raw::c_void;

/// Which CUDA calls that are unsafe during a capture are refused, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureMode {
    /// Refused on every thread of the process.
    Global,
    /// Refused on the thread that began the capture (the usual choice).
    ThreadLocal,
    /// Never refused.
    Relaxed,
}

impl CaptureMode {
    fn code(self) -> i32 {
        match self {
            CaptureMode::Global => sys::CUABI_CAPTURE_MODE_GLOBAL,
            CaptureMode::ThreadLocal => sys::CUABI_CAPTURE_MODE_THREAD_LOCAL,
            CaptureMode::Relaxed => sys::CUABI_CAPTURE_MODE_RELAXED,
        }
    }
}

/// Whether a stream captures ([`Stream::capture_status`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CaptureStatus {
    /// The stream does not capture.
    None,
    /// The stream captures.
    Active,
    /// The capture was invalidated and still needs ending.
    Invalidated,
    /// A status this binding does not know.
    Unknown(i32),
}

/// Options for ending a capture ([`Capture::end`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphOptions {
    flags: u32,
}

impl GraphOptions {
    /// No flags: cuabi's defaults.
    pub fn new() -> GraphOptions {
        GraphOptions::default()
    }

    /// Memory allocated in the graph and not freed is freed before a relaunch.
    pub fn auto_free_on_launch(mut self) -> GraphOptions {
        self.flags |= sys::CUABI_GRAPH_AUTO_FREE_ON_LAUNCH;
        self
    }

    /// Kernel nodes run at their captured stream priorities.
    pub fn use_node_priority(mut self) -> GraphOptions {
        self.flags |= sys::CUABI_GRAPH_USE_NODE_PRIORITY;
        self
    }

    /// Upload the graph on the capturing stream right after instantiation.
    pub fn upload(mut self) -> GraphOptions {
        self.flags |= sys::CUABI_GRAPH_UPLOAD;
        self
    }
}

/// Whether a whole-graph update ([`Capture::end_update`]) may rebuild the executable when the new
/// capture cannot update it in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reinstantiate {
    /// Rebuild it (existing handles of the graph see the new executable).
    Allow,
    /// Fail with [`Status::GraphUpdate`] instead, leaving the graph unchanged.
    Forbid,
}

impl Stream {
    /// Begins capturing this stream: work enqueued on it is recorded, not run, until the returned
    /// scope ends it. Dropping the scope without ending it — an early return, `?`, a panic —
    /// aborts the capture, so the stream never stays capturing.
    ///
    /// [`Status::Capture`] when the stream already captures.
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<Capture<'_>> {
        call!(cuabi_graph_capture_begin(self.as_raw(), mode.code()))?;
        Ok(Capture { stream: self, open: true, thread: PhantomData })
    }

    /// Captures what `body` enqueues on this stream into a graph: begins, runs `body`, ends. When
    /// `body` fails (or panics) the capture is aborted and its error returned.
    ///
    /// ```no_run
    /// # fn demo(stream: &cuabi::Stream, kernel: &cuabi::Kernel, y: &cuabi::Buffer) -> cuabi::Result<()> {
    /// let config = cuabi::LaunchConfig::new().grid(4).block(256).stream(stream);
    /// let graph = stream.capture(cuabi::CaptureMode::ThreadLocal, &cuabi::GraphOptions::new(), |_| {
    ///     kernel.launch(&config, &[y, &1024u32])?;
    ///     kernel.launch(&config, &[y, &1024u32])
    /// })?;
    /// graph.launch(Some(stream))?;
    /// # Ok(()) }
    /// ```
    pub fn capture(
        &self,
        mode: CaptureMode,
        options: &GraphOptions,
        body: impl FnOnce(&Stream) -> Result<()>,
    ) -> Result<Graph> {
        let capture = self.begin_capture(mode)?;
        body(self)?;
        capture.end(options)
    }

    /// Whether the stream captures, whoever began the capture.
    pub fn capture_status(&self) -> Result<CaptureStatus> {
        let mut status = 0;
        call!(cuabi_graph_capture_get_status(self.as_raw(), &mut status))?;
        Ok(match status {
            sys::CUABI_CAPTURE_STATUS_NONE => CaptureStatus::None,
            sys::CUABI_CAPTURE_STATUS_ACTIVE => CaptureStatus::Active,
            sys::CUABI_CAPTURE_STATUS_INVALIDATED => CaptureStatus::Invalidated,
            other => CaptureStatus::Unknown(other),
        })
    }

    /// Ends and discards a capture cuabi began on this stream, if any (a [`Capture`] does this when
    /// dropped). [`Status::Capture`] for a capture other code began.
    pub fn abort_capture(&self) -> Result<()> {
        call!(cuabi_graph_capture_abort(self.as_raw()))
    }
}

/// A capture in progress on a stream ([`Stream::begin_capture`]). End it with [`Capture::end`] or
/// [`Capture::end_update`]; dropping it aborts the capture.
///
/// Not `Send`: a global or thread-local capture must end on the thread that began it.
#[must_use = "dropping a Capture aborts it; end it with Capture::end"]
#[derive(Debug)]
pub struct Capture<'s> {
    stream: &'s Stream,
    open: bool,
    thread: PhantomData<*const ()>,
}

impl<'s> Capture<'s> {
    /// The stream being captured.
    pub fn stream(&self) -> &'s Stream {
        self.stream
    }

    /// Ends the capture and instantiates it into a graph. On failure the capture is ended and
    /// discarded ([`Status::Capture`] when it was invalidated by a call not allowed while
    /// capturing, or forked streams never joined back).
    pub fn end(mut self, options: &GraphOptions) -> Result<Graph> {
        let mut raw_options: sys::cuabi_graph_options = defaults()?;
        raw_options.flags = options.flags;
        self.open = false; // from here cuabi ends the capture, whatever happens
        let mut raw = std::ptr::null_mut();
        call!(cuabi_graph_capture_end(self.stream.as_raw(), &raw_options, &mut raw))?;
        Ok(Graph { raw })
    }

    /// Ends the capture and updates `graph` from it: in place when the topology is the same,
    /// otherwise by re-instantiating when `reinstantiate` allows. The result says which, and why
    /// an in-place update was impossible. [`Status::GraphUpdate`] when it was impossible and
    /// re-instantiating was forbidden (the graph is unchanged).
    pub fn end_update(mut self, graph: &Graph, reinstantiate: Reinstantiate) -> Result<UpdateInfo> {
        let flags = match reinstantiate {
            Reinstantiate::Allow => sys::CUABI_GRAPH_UPDATE_DEFAULT,
            Reinstantiate::Forbid => sys::CUABI_GRAPH_UPDATE_NO_REINSTANTIATE,
        };
        let mut info: sys::cuabi_graph_update_info = defaults()?;
        self.open = false; // from here cuabi ends the capture, whatever happens
        call!(cuabi_graph_capture_end_update(self.stream.as_raw(), graph.raw, flags, &mut info))?;
        Ok(UpdateInfo::from_raw(&info))
    }

    /// Ends and discards the capture.
    pub fn abort(mut self) -> Result<()> {
        self.open = false;
        self.stream.abort_capture()
    }
}

impl Drop for Capture<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing to report from a drop: the stream no longer captures either way.
            let _ = self.stream.abort_capture();
        }
    }
}

/// A captured graph and its executable: replay it, inspect its nodes, update them in place.
///
/// A graph keeps alive its context, the kernels it launches, every buffer a captured cuabi
/// transfer touched, and every buffer given to [`Graph::retain_buffer`]. A buffer reached only
/// through a kernel argument is not known to cuabi: retain it, or keep it alive yourself.
///
/// `Send + Sync`: any thread may use a graph; cuabi serializes calls on one graph.
#[derive(Debug)]
pub struct Graph {
    raw: *mut sys::cuabi_graph,
}

unsafe impl Send for Graph {}
unsafe impl Sync for Graph {}

impl Graph {
    pub(crate) fn from_owned(raw: *mut sys::cuabi_graph) -> Graph {
        Graph { raw }
    }

    /// Enqueues one replay on `stream` (any stream of the graph's context); `None` replays on the
    /// calling thread's per-thread stream and waits for it. Allocates nothing.
    #[inline]
    pub fn launch(&self, stream: Option<&Stream>) -> Result<()> {
        call!(cuabi_graph_launch(self.raw, Stream::raw_or_null(stream)))
    }

    /// Prepares the graph's device resources on `stream` ahead of its first launch.
    pub fn upload(&self, stream: Option<&Stream>) -> Result<()> {
        call!(cuabi_graph_upload(self.raw, Stream::raw_or_null(stream)))
    }

    /// Keeps `buffer`'s memory alive for as long as the graph lives: for buffers its kernels reach
    /// through arguments. The `Buffer` may be dropped right after.
    pub fn retain_buffer(&self, buffer: &Buffer) -> Result<()> {
        call!(cuabi_graph_retain_buffer(self.raw, buffer.as_raw()))
    }

    /// The underlying `CUgraph` and `CUgraphExec`, owned by the graph (valid until it dies or a
    /// whole-graph update re-instantiates it).
    pub fn native(&self) -> Result<(*mut c_void, *mut c_void)> {
        let (mut graph, mut exec) = (std::ptr::null_mut(), std::ptr::null_mut());
        call!(cuabi_graph_get_native(self.raw, &mut graph, &mut exec))?;
        Ok((graph, exec))
    }

    /// The number of nodes.
    pub fn node_count(&self) -> Result<usize> {
        let mut count = 0;
        call!(cuabi_graph_get_node_count(self.raw, &mut count))?;
        Ok(count)
    }

    /// Node `index`, numbered in capture order. [`Status::GraphNode`] for an index past the last.
    pub fn node_info(&self, index: usize) -> Result<NodeInfo> {
        let mut raw: sys::cuabi_graph_node_info = defaults()?;
        call!(cuabi_graph_get_node_info(self.raw, index, &mut raw))?;
        Ok(NodeInfo::from_raw(&raw))
    }

    /// Every node, in order.
    pub fn nodes(&self) -> Result<Vec<NodeInfo>> {
        (0..self.node_count()?).map(|index| self.node_info(index)).collect()
    }

    /// The name of kernel node `index`'s kernel: for a cuabi kernel the name or expression it was
    /// looked up by, otherwise the driver's (mangled) name.
    pub fn node_kernel_name(&self, index: usize) -> Result<String> {
        two_call_text(|text, capacity, size| {
            Ok(raw!(cuabi_graph_get_node_kernel_name(self.raw, index, text, capacity, size)))
        })
    }

    /// Where parameter `param` of kernel node `index` lies in its packed argument buffer.
    pub fn node_param_info(&self, index: usize, param: usize) -> Result<Param> {
        let (mut offset, mut size) = (0, 0);
        call!(cuabi_graph_get_node_param_info(self.raw, index, param, &mut offset, &mut size))?;
        Ok(Param { offset, size })
    }

    /// Every parameter's place for kernel node `index`: the layout [`PackedArgs`] uses.
    pub fn node_params(&self, index: usize) -> Result<Vec<Param>> {
        let Some(count) = self.node_info(index)?.param_count else {
            return Err(Error::binding(
                Status::Unsupported,
                format!(
                    "the driver cannot tell kernel node {index}'s parameter layout (cuFuncGetParamInfo needs CUDA 12.4). \
                     Fix: upgrade the NVIDIA driver"
                ),
            ));
        };
        (0..count as usize).map(|param| self.node_param_info(index, param)).collect()
    }

    /// Replaces every argument of kernel node `index` for later replays, checked as a launch checks
    /// them. Allocates nothing.
    pub fn update_kernel_args(&self, index: usize, args: &[&dyn KernelArg]) -> Result<()> {
        let status = with_table(args, |table, count| -> Result<sys::cuabi_status> {
            Ok(raw!(cuabi_graph_update_kernel_args(self.raw, index, table, count)))
        })?;
        crate::error::check(status)
    }

    /// Like [`Graph::update_kernel_args`], with the arguments in packed form
    /// ([`PackedArgs::for_graph_node`]).
    pub fn update_kernel_args_packed(&self, index: usize, args: &PackedArgs) -> Result<()> {
        call!(cuabi_graph_update_kernel_args_packed(self.raw, index, args.as_ptr(), args.len()))
    }

    /// Like [`Graph::update_kernel_args_packed`], with bytes laid out by the caller.
    pub fn update_kernel_args_packed_bytes(&self, index: usize, packed: &[u8]) -> Result<()> {
        call!(cuabi_graph_update_kernel_args_packed(self.raw, index, packed.as_ptr().cast(), packed.len()))
    }

    /// Changes kernel node `index`'s grid, block and dynamic shared memory for later replays,
    /// checked as a launch checks them.
    pub fn update_kernel_geometry(
        &self,
        index: usize,
        grid: impl Into<Dim3>,
        block: impl Into<Dim3>,
        shared_memory_bytes: u32,
    ) -> Result<()> {
        let (grid, block) = (grid.into().to_array(), block.into().to_array());
        call!(cuabi_graph_update_kernel_geometry(self.raw, index, grid.as_ptr(), block.as_ptr(), shared_memory_bytes))
    }

    /// Changes the value memset node `index` writes (it must fit the node's element size).
    pub fn update_memset_value(&self, index: usize, value: u32) -> Result<()> {
        call!(cuabi_graph_update_memset_value(self.raw, index, value))
    }

    /// Points memcpy node `index` at new end points for later replays, each checked against its
    /// buffer's bounds ([`Status::OutOfBounds`]); the graph keeps new buffers alive.
    ///
    /// ```no_run
    /// # fn demo(graph: &cuabi::Graph, other: &cuabi::Buffer, target: &cuabi::Buffer) -> cuabi::Result<()> {
    /// use cuabi::MemcpyEnd;
    /// // Node 0 was captured as a device-to-device copy; copy 4096 bytes of `other` instead.
    /// graph.update_memcpy(0, MemcpyEnd::buffer(target, 0), MemcpyEnd::buffer(other, 0), 4096)?;
    /// # Ok(()) }
    /// ```
    ///
    /// The direction (host to device, device to host, device to device) must be the captured
    /// node's, else [`Status::InvalidArgument`], as for size 0; [`Status::ContextMismatch`] for a
    /// buffer of another device, [`Status::GraphNode`] for a bad index or a node that is not a
    /// memcpy node, [`Status::GraphUpdate`] when the driver refuses (the node keeps its end
    /// points).
    pub fn update_memcpy(
        &self,
        index: usize,
        destination: MemcpyEnd<'_>,
        source: MemcpyEnd<'_>,
        size: usize,
    ) -> Result<()> {
        let params = memcpy_params(destination, source, size)?;
        call!(cuabi_graph_update_memcpy(self.raw, index, &params))
    }

    /// Turns node `index` off (`false`: replays skip it, its dependencies still order the nodes
    /// around it) or back on, for later replays. Only kernel, memcpy and memset nodes can be turned
    /// off: [`Status::GraphNode`] for other kinds and bad indexes. A whole-graph update that
    /// re-instantiates turns every node back on.
    pub fn set_node_enabled(&self, index: usize, enabled: bool) -> Result<()> {
        call!(cuabi_graph_set_node_enabled(self.raw, index, u32::from(enabled)))
    }

    /// Whether node `index` runs on replay. Errors as for [`Graph::set_node_enabled`].
    pub fn node_enabled(&self, index: usize) -> Result<bool> {
        let mut enabled = 0;
        call!(cuabi_graph_get_node_enabled(self.raw, index, &mut enabled))?;
        Ok(enabled != 0)
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_graph {
        self.raw
    }
}

/// One end of a memcpy node ([`Graph::update_memcpy`]): a range of a [`Buffer`] (safe: the graph
/// keeps the buffer alive), or host memory (`unsafe`: nothing keeps it alive).
#[derive(Clone, Copy, Debug)]
pub struct MemcpyEnd<'a> {
    buffer: Option<&'a Buffer>,
    offset: usize,
    host: *mut c_void,
}

impl<'a> MemcpyEnd<'a> {
    /// `buffer` from byte `offset` on.
    pub fn buffer(buffer: &'a Buffer, offset: usize) -> MemcpyEnd<'a> {
        MemcpyEnd { buffer: Some(buffer), offset, host: std::ptr::null_mut() }
    }

    /// Host memory at `data` (e.g. a [`HostMemory`](crate::HostMemory)'s `as_ptr()`, or
    /// `as_mut_ptr()` for a destination).
    ///
    /// # Safety
    /// The memory must hold the node's size in bytes and stay allocated for as long as the graph
    /// may replay (every replay reads or writes it again); as a destination, nothing else may read
    /// or write it while a replay runs.
    pub unsafe fn host<T>(data: *const T) -> MemcpyEnd<'static> {
        MemcpyEnd { buffer: None, offset: 0, host: data.cast_mut().cast() }
    }
}

/// The C params of a memcpy update: exactly one end point per side, as MemcpyEnd guarantees.
fn memcpy_params(
    destination: MemcpyEnd<'_>,
    source: MemcpyEnd<'_>,
    size: usize,
) -> Result<sys::cuabi_graph_memcpy_params> {
    let mut params: sys::cuabi_graph_memcpy_params = defaults()?;
    set_memcpy_ends(&mut params, destination, source, size);
    Ok(params)
}

fn set_memcpy_ends(
    params: &mut sys::cuabi_graph_memcpy_params,
    destination: MemcpyEnd<'_>,
    source: MemcpyEnd<'_>,
    size: usize,
) {
    params.dst_buffer = destination.buffer.map_or(std::ptr::null_mut(), Buffer::as_raw);
    params.dst_host = destination.host;
    params.dst_offset = destination.offset as u64;
    params.src_buffer = source.buffer.map_or(std::ptr::null_mut(), Buffer::as_raw);
    params.src_host = source.host.cast_const();
    params.src_offset = source.offset as u64;
    params.size = size as u64;
}

impl Drop for Graph {
    /// Releases the handle. The graph dies with its last handle and graph-cache entry; replays
    /// still running finish first.
    fn drop(&mut self) {
        destroy!(cuabi_graph_destroy(self.raw));
    }
}

/// What a graph node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)] // the names say it; the header lists them
pub enum NodeKind {
    Other,
    Kernel,
    Memcpy,
    Memset,
    Host,
    ChildGraph,
    Empty,
    EventWait,
    EventRecord,
    ExtSemaphoreSignal,
    ExtSemaphoreWait,
    MemAlloc,
    MemFree,
    BatchMemOp,
    Conditional,
    /// A kind this binding does not know.
    Unknown(i32),
}

impl NodeKind {
    fn from_code(code: sys::cuabi_graph_node_kind) -> NodeKind {
        match code {
            sys::CUABI_GRAPH_NODE_OTHER => NodeKind::Other,
            sys::CUABI_GRAPH_NODE_KERNEL => NodeKind::Kernel,
            sys::CUABI_GRAPH_NODE_MEMCPY => NodeKind::Memcpy,
            sys::CUABI_GRAPH_NODE_MEMSET => NodeKind::Memset,
            sys::CUABI_GRAPH_NODE_HOST => NodeKind::Host,
            sys::CUABI_GRAPH_NODE_CHILD_GRAPH => NodeKind::ChildGraph,
            sys::CUABI_GRAPH_NODE_EMPTY => NodeKind::Empty,
            sys::CUABI_GRAPH_NODE_EVENT_WAIT => NodeKind::EventWait,
            sys::CUABI_GRAPH_NODE_EVENT_RECORD => NodeKind::EventRecord,
            sys::CUABI_GRAPH_NODE_EXT_SEMAPHORE_SIGNAL => NodeKind::ExtSemaphoreSignal,
            sys::CUABI_GRAPH_NODE_EXT_SEMAPHORE_WAIT => NodeKind::ExtSemaphoreWait,
            sys::CUABI_GRAPH_NODE_MEM_ALLOC => NodeKind::MemAlloc,
            sys::CUABI_GRAPH_NODE_MEM_FREE => NodeKind::MemFree,
            sys::CUABI_GRAPH_NODE_BATCH_MEM_OP => NodeKind::BatchMemOp,
            sys::CUABI_GRAPH_NODE_CONDITIONAL => NodeKind::Conditional,
            other => NodeKind::Unknown(other),
        }
    }
}

/// One node of a graph ([`Graph::node_info`]). Fields that do not apply to the node's kind are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeInfo {
    /// What the node is.
    pub kind: NodeKind,
    /// Kernel nodes: the graph's own handle of the cuabi kernel it launches (not the handle it was
    /// launched with; the same on every call), or NULL when the kernel did not come from cuabi.
    /// Borrowed from the graph, for the raw API (e.g. `cuabi_kernel_get_attributes`): never
    /// destroy it.
    pub kernel: *mut sys::cuabi_kernel,
    /// Kernel nodes: the grid.
    pub grid: Dim3,
    /// Kernel nodes: the block.
    pub block: Dim3,
    /// Kernel nodes: dynamic shared memory per block.
    pub shared_memory_bytes: u32,
    /// Kernel nodes: the parameter count, `None` when the driver cannot tell (before CUDA 12.4).
    pub param_count: Option<u32>,
    /// Kernel nodes: the size of the packed argument buffer.
    pub param_bytes: u64,
    /// Memset nodes: the value written.
    pub memset_value: u32,
    /// Memset nodes: the element size, 1, 2 or 4 bytes.
    pub memset_element_size: u32,
    /// Conditional nodes cuabi added: what the node does with its bodies (`None` for other nodes).
    pub conditional_type: Option<ConditionalType>,
    /// Conditional nodes: how many body graphs it has.
    pub conditional_body_count: u32,
    /// Conditional nodes: the condition it tests.
    pub condition: Option<Condition>,
    /// Conditional nodes: the nodes in its bodies, nested bodies included.
    pub conditional_body_nodes: u64,
}

impl NodeInfo {
    fn from_raw(raw: &sys::cuabi_graph_node_info) -> NodeInfo {
        NodeInfo {
            kind: NodeKind::from_code(raw.kind),
            kernel: raw.kernel,
            grid: raw.grid.into(),
            block: raw.block.into(),
            shared_memory_bytes: raw.shared_memory_bytes,
            param_count: (raw.param_count != sys::CUABI_GRAPH_PARAM_COUNT_UNKNOWN).then_some(raw.param_count),
            param_bytes: raw.param_bytes,
            memset_value: raw.memset_value,
            memset_element_size: raw.memset_element_size,
            conditional_type: (raw.conditional_type != 0).then(|| ConditionalType::from_code(raw.conditional_type)),
            conditional_body_count: raw.conditional_body_count,
            condition: (raw.conditional_type != 0).then(|| Condition::from_value(raw.condition)),
            conditional_body_nodes: raw.conditional_body_nodes,
        }
    }
}

/// What a whole-graph update did ([`Capture::end_update`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpdateInfo {
    /// Whether the executable could not be updated in place and was rebuilt.
    pub reinstantiated: bool,
    /// The driver's `CUgraphExecUpdateResult` (0 when updated in place, or when cuabi refused first).
    pub driver_result: i32,
    /// The node of the new capture the refusal is about, if one is named.
    pub error_node: Option<u64>,
    /// Why it was not updated in place; empty when it was.
    pub reason: String,
}

impl UpdateInfo {
    fn from_raw(raw: &sys::cuabi_graph_update_info) -> UpdateInfo {
        UpdateInfo {
            reinstantiated: raw.reinstantiated != 0,
            driver_result: raw.driver_result,
            error_node: (raw.has_error_node != 0).then_some(raw.error_node_index),
            reason: fixed_text(&raw.reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memcpy_ends_fill_exactly_one_field_per_side() {
        let source = [1u32, 2, 3];
        let mut destination = [0u32; 3];
        // Safety: the params are only inspected, never given to cuabi.
        let (host_in, host_out) =
            unsafe { (MemcpyEnd::host(source.as_ptr()), MemcpyEnd::host(destination.as_mut_ptr())) };
        let mut params: sys::cuabi_graph_memcpy_params = unsafe { std::mem::zeroed() };
        set_memcpy_ends(&mut params, host_out, host_in, 12);
        assert!(params.dst_buffer.is_null() && params.src_buffer.is_null());
        assert_eq!(params.dst_host, destination.as_mut_ptr().cast());
        assert_eq!(params.src_host, source.as_ptr().cast());
        assert_eq!((params.dst_offset, params.src_offset, params.size), (0, 0, 12));
    }
}
