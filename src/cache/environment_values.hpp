// Numbers the cache reads from its environment variables. A malformed value leaves *value as it
// was (the default) and appends a sentence naming the variable and the value to *warnings.
#pragma once

#include <cstdint>
#include <string>

namespace cuabi {
namespace cache {

// "1073741824", "512M", "1G", "64KiB"... (binary multiples).
void read_size(const char* name, uint64_t* value, std::string* warnings);
void read_milliseconds(const char* name, uint32_t* value, std::string* warnings);

}  // namespace cache
}  // namespace cuabi
