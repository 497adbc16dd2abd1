package cuabi

import "strconv"

// String names the origin as the C header does without its prefix: "compiled", "memory-cache",
// "disk-cache", "image", or "ModuleOrigin(N)" for a value this package does not know.
func (o ModuleOrigin) String() string {
	switch o {
	case OriginCompiled:
		return "compiled"
	case OriginMemoryCache:
		return "memory-cache"
	case OriginDiskCache:
		return "disk-cache"
	case OriginImage:
		return "image"
	case OriginReadonlyCache:
		return "readonly-cache"
	}
	return "ModuleOrigin(" + strconv.Itoa(int(o)) + ")"
}
