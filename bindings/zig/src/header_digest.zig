//! The digest that ties the committed translation (c.zig) to the header it was made from.
//!
//! Only what translate-C sees counts: comments are dropped and runs of white space become one
//! space, so editing the header's documentation does not call for a new translation, while any
//! change to a declaration, constant or macro does.

const std = @import("std");

/// The hex SHA-256 of `header` with comments removed and white space collapsed (a run with a line
/// break becomes one line break -- preprocessor lines end there -- any other run one space).
pub fn digest(header: []const u8) [64]u8 {
    var state: Normalizer = .{ .hash = .init(.{}) };
    var i: usize = 0;
    while (i < header.len) {
        const rest = header[i..];
        if (std.mem.startsWith(u8, rest, "/*")) {
            const end = std.mem.findPos(u8, header, i + 2, "*/") orelse header.len;
            i = @min(end + 2, header.len);
            state.gap(false);
        } else if (std.mem.startsWith(u8, rest, "//")) {
            i = std.mem.findScalarPos(u8, header, i, '\n') orelse header.len;
        } else if (rest[0] == '"' or rest[0] == '\'') {
            const end = quotedEnd(header, i);
            state.feed(header[i..end]);
            i = end;
        } else if (std.ascii.isWhitespace(rest[0])) {
            state.gap(rest[0] == '\n');
            i += 1;
        } else {
            state.feed(rest[0..1]);
            i += 1;
        }
    }
    var out: [32]u8 = undefined;
    state.hash.final(&out);
    return std.fmt.bytesToHex(out, .lower);
}

const Normalizer = struct {
    hash: std.crypto.hash.sha2.Sha256,
    started: bool = false,
    pending: enum { none, space, line } = .none,

    fn gap(self: *Normalizer, line_break: bool) void {
        if (line_break) self.pending = .line else if (self.pending == .none) self.pending = .space;
    }

    fn feed(self: *Normalizer, bytes: []const u8) void {
        if (self.started) switch (self.pending) {
            .none => {},
            .space => self.hash.update(" "),
            .line => self.hash.update("\n"),
        };
        self.started = true;
        self.pending = .none;
        self.hash.update(bytes);
    }
};

/// The index just past the string or character literal starting at `start` (escapes honoured).
fn quotedEnd(text: []const u8, start: usize) usize {
    const quote = text[start];
    var i = start + 1;
    while (i < text.len) : (i += 1) {
        if (text[i] == '\\') {
            i += 1;
        } else if (text[i] == quote or text[i] == '\n') {
            return i + 1;
        }
    }
    return text.len;
}
