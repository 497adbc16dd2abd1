#include "compile/verifier_protocol.hpp"

namespace cuabi {
namespace verifier {
namespace {

void put_u32(std::vector<uint8_t>& out, uint32_t value) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void put_bytes(std::vector<uint8_t>& out, const void* data, size_t size) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(uint64_t{size} >> (8 * i)));
    const uint8_t* at = static_cast<const uint8_t*>(data);
    out.insert(out.end(), at, at + size);
}

// Reads fields in order; once anything is out of bounds every later read fails too.
class Reader {
public:
    explicit Reader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}
    bool done() const { return ok_ && at_ == bytes_.size(); }
    uint32_t u32() {
        if (!take(4)) return 0;
        uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value |= uint32_t(bytes_[at_ - 4 + i]) << (8 * i);
        return value;
    }
    // A byte string as [begin, end) of the frame; empty when out of bounds.
    std::pair<const uint8_t*, const uint8_t*> bytes() {
        if (!take(8)) return {nullptr, nullptr};
        uint64_t size = 0;
        for (int i = 0; i < 8; ++i) size |= uint64_t(bytes_[at_ - 8 + i]) << (8 * i);
        if (!take(size)) return {nullptr, nullptr};
        const uint8_t* end = bytes_.data() + at_;
        return {end - size, end};
    }
    std::string text() {
        auto range = bytes();
        return std::string(reinterpret_cast<const char*>(range.first), reinterpret_cast<const char*>(range.second));
    }

private:
    bool take(uint64_t size) {
        if (!ok_ || size > bytes_.size() - at_) return ok_ = false;
        at_ += static_cast<size_t>(size);
        return true;
    }
    const std::vector<uint8_t>& bytes_;
    size_t at_ = 0;
    bool ok_ = true;
};

}  // namespace

std::vector<uint8_t> encode(const Hello& hello) {
    std::vector<uint8_t> out;
    put_u32(out, hello.protocol);
    put_u32(out, static_cast<uint32_t>(hello.status));
    put_bytes(out, hello.message.data(), hello.message.size());
    return out;
}

std::vector<uint8_t> encode(const Trial& trial) {
    std::vector<uint8_t> out;
    out.reserve(trial.image.size() + 16);
    put_u32(out, static_cast<uint32_t>(trial.ordinal));
    put_bytes(out, trial.image.data(), trial.image.size());
    return out;
}

std::vector<uint8_t> encode(const Verdict& verdict) {
    std::vector<uint8_t> out;
    put_u32(out, static_cast<uint32_t>(verdict.status));
    put_u32(out, static_cast<uint32_t>(verdict.cu_result));
    put_u32(out, verdict.kernels);
    put_bytes(out, verdict.message.data(), verdict.message.size());
    return out;
}

bool decode(const std::vector<uint8_t>& bytes, Hello* out) {
    Reader r(bytes);
    out->protocol = r.u32();
    out->status = static_cast<Status>(r.u32());
    out->message = r.text();
    return r.done() && out->protocol == kProtocolVersion;
}

bool decode(const std::vector<uint8_t>& bytes, Trial* out) {
    Reader r(bytes);
    out->ordinal = static_cast<int32_t>(r.u32());
    auto image = r.bytes();
    out->image.assign(image.first, image.second);
    return r.done();
}

bool decode(const std::vector<uint8_t>& bytes, Verdict* out) {
    Reader r(bytes);
    out->status = static_cast<Status>(r.u32());
    out->cu_result = static_cast<int32_t>(r.u32());
    out->kernels = r.u32();
    out->message = r.text();
    return r.done();
}

}  // namespace verifier
}  // namespace cuabi
