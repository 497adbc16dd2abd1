#include "device/buffer_directory.hpp"

#include <map>
#include <mutex>

#include "device/buffer.hpp"

namespace cuabi {
namespace buffer_directory {
namespace {

struct Listed {
    const Buffer* buffer;
    std::weak_ptr<const Buffer> alive;
};

struct Directory {
    std::mutex mutex;
    std::map<uint64_t, Listed> by_address;
};

Directory& directory() {
    static Directory* instance = new Directory();  // never destroyed: buffers may die in static destructors
    return *instance;
}

}  // namespace

void add(const std::shared_ptr<const Buffer>& buffer) {
    Directory& d = directory();
    std::lock_guard<std::mutex> lock(d.mutex);
    d.by_address[buffer->address()] = Listed{buffer.get(), buffer};
}

void remove(const Buffer* buffer) noexcept {
    Directory& d = directory();
    std::lock_guard<std::mutex> lock(d.mutex);
    auto found = d.by_address.find(buffer->address());
    if (found != d.by_address.end() && found->second.buffer == buffer) d.by_address.erase(found);
}

std::shared_ptr<const Buffer> find(CUcontext context, uint64_t address) {
    Directory& d = directory();
    std::lock_guard<std::mutex> lock(d.mutex);
    auto after = d.by_address.upper_bound(address);
    if (after == d.by_address.begin()) return nullptr;
    const Listed& candidate = std::prev(after)->second;
    std::shared_ptr<const Buffer> buffer = candidate.alive.lock();  // null once its destructor runs
    if (buffer == nullptr || address - buffer->address() >= buffer->size() ||
        buffer->context().cu_context() != context)
        return nullptr;
    return buffer;
}

}  // namespace buffer_directory
}  // namespace cuabi
