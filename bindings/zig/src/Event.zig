//! An event: a marker in a stream, to wait for or to time between. Thread-safe.

const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const Library = @import("Library.zig");
const Context = @import("Context.zig");
const Stream = @import("Stream.zig");

const Event = @This();
const Error = errors.Error;

/// The library the event came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_event,

/// Creates an event on `context`.
pub fn create(context: Context, options: types.EventOptions) Error!Event {
    const raw: c.cuabi_event_options = .{ .struct_size = @sizeOf(c.cuabi_event_options), .flags = @bitCast(options.flags) };
    var handle: ?*c.cuabi_event = null;
    try context.lib.call("cuabi_event_create", .{ context.handle, &raw, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Destroys the event. Harmless to repeat.
pub fn deinit(self: Event) void {
    if (self.lib.dispatch.cuabi_event_destroy) |destroy| destroy(self.handle);
}

/// Records the event at the current end of `stream`; null records on the calling thread's
/// per-thread stream, where synchronous (null-stream) work runs.
pub fn record(self: Event, stream: ?Stream) Error!void {
    return self.lib.call("cuabi_event_record", .{ self.handle, if (stream) |s| s.handle else null });
}

/// Waits until the event has completed.
pub fn synchronize(self: Event) Error!void {
    return self.lib.call("cuabi_event_synchronize", .{self.handle});
}

/// Whether the event has completed.
pub fn isDone(self: Event) Error!bool {
    return self.lib.callDone("cuabi_event_query", .{self.handle});
}

/// Milliseconds from `start` to `end`, both completed (resolution about 0.5 us).
/// `error.NotReady` when one has not completed yet.
pub fn elapsedMs(start: Event, end: Event) Error!f32 {
    var out: f32 = 0;
    try start.lib.call("cuabi_event_get_elapsed_ms", .{ start.handle, end.handle, &out });
    return out;
}
