// Numbers the cache reads from its environment variables. A malformed value leaves *value as it
// was (the default) and appends a sentence naming the variable and the value to *warnings -- said
// in the cache's degradation reason -- and to the process's environment problems (warn()).
#pragma once

#include <cstdint>
#include <string>

namespace cuabi {
namespace cache {

// "1073741824", "512M", "1G", "64KiB"... (binary multiples).
void read_size(const char* name, uint64_t* value, std::string* warnings);
void read_milliseconds(const char* name, uint32_t* value, std::string* warnings);

// Appends `sentence` ("CUABI_X='v' is ...; using ...") to *warnings and records it as an
// environment problem (core/environment.hpp). A cache setting that is refused fails no call: the
// cache works on with the default.
void warn(std::string* warnings, const std::string& sentence);

}  // namespace cache
}  // namespace cuabi
