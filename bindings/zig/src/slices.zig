//! What the calls that take host memory accept: a slice, or a pointer to an array, of any
//! element type.

/// `data` as a slice: slices pass through, pointers to arrays become slices.
pub fn asSlice(data: anytype) AsSlice(@TypeOf(data)) {
    return data;
}

/// The slice type of a slice or a pointer to an array.
pub fn AsSlice(comptime T: type) type {
    const info = @typeInfo(T);
    if (info == .pointer) switch (info.pointer.size) {
        .slice => return T,
        .one => if (@typeInfo(info.pointer.child) == .array) {
            const array = @typeInfo(info.pointer.child).array;
            return if (info.pointer.attrs.@"const") []const array.child else []array.child;
        },
        else => {},
    };
    @compileError("host memory is a slice or a pointer to an array, not " ++ @typeName(T));
}
