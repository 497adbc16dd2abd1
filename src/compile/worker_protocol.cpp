#include "compile/worker_protocol.hpp"

#include <cstring>

namespace cuabi {
namespace worker {
namespace {

class Writer {
public:
    void u32(uint32_t value) {
        for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
    }
    void u64(uint64_t value) {
        for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
    }
    void data(const void* data, size_t size) {
        u64(size);
        const uint8_t* at = static_cast<const uint8_t*>(data);
        bytes_.insert(bytes_.end(), at, at + size);
    }
    void text(const std::string& value) { data(value.data(), value.size()); }
    void texts(const std::vector<std::string>& values) {
        u64(values.size());
        for (const std::string& value : values) text(value);
    }
    std::vector<uint8_t> take() { return std::move(bytes_); }

private:
    std::vector<uint8_t> bytes_;
};

// Reads fields in order; once anything is out of bounds every later read fails too.
class Reader {
public:
    explicit Reader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}
    bool ok() const { return ok_; }
    bool done() const { return ok_ && at_ == bytes_.size(); }

    uint32_t u32() {
        uint32_t value = 0;
        if (!take(4)) return 0;
        for (int i = 0; i < 4; ++i) value |= uint32_t(bytes_[at_ - 4 + i]) << (8 * i);
        return value;
    }
    uint64_t u64() {
        uint64_t value = 0;
        if (!take(8)) return 0;
        for (int i = 0; i < 8; ++i) value |= uint64_t(bytes_[at_ - 8 + i]) << (8 * i);
        return value;
    }
    std::string text() {
        uint64_t size = u64();
        if (!take(size)) return std::string();
        return std::string(reinterpret_cast<const char*>(bytes_.data() + at_ - size), size);
    }
    std::vector<uint8_t> data() {
        uint64_t size = u64();
        if (!take(size)) return {};
        return std::vector<uint8_t>(bytes_.data() + at_ - size, bytes_.data() + at_);
    }
    std::vector<std::string> texts() {
        uint64_t count = u64();
        std::vector<std::string> values;
        // Each string needs at least its 8-byte length: a count the frame cannot back is garbage.
        if (count > (bytes_.size() - at_) / 8) ok_ = false;
        for (uint64_t i = 0; ok_ && i < count; ++i) values.push_back(text());
        return values;
    }

private:
    bool take(uint64_t size) {
        if (!ok_ || size > bytes_.size() - at_) {
            ok_ = false;
            return false;
        }
        at_ += static_cast<size_t>(size);
        return true;
    }

    const std::vector<uint8_t>& bytes_;
    size_t at_ = 0;
    bool ok_ = true;
};

void write_image(Writer& w, const cache::CachedImage& image) {
    w.data(image.image.data(), image.image.size());
    w.u32(image.image_kind);
    w.text(image.target);
    w.u64(image.lowered_names.size());
    for (const auto& name : image.lowered_names) {
        w.text(name.first);
        w.text(name.second);
    }
    w.text(image.log);
    w.u32(image.nvrtc_version);
}

void read_image(Reader& r, cache::CachedImage* out) {
    out->image = r.data();
    out->image_kind = r.u32();
    out->target = r.text();
    uint64_t count = r.u64();
    for (uint64_t i = 0; r.ok() && i < count; ++i) {
        std::string expression = r.text();
        std::string lowered = r.text();
        if (r.ok()) out->lowered_names.emplace_back(std::move(expression), std::move(lowered));
    }
    out->log = r.text();
    out->nvrtc_version = r.u32();
}

// What the worker can report: run_nvrtc()'s statuses, its own failures and loading NVRTC's.
bool worker_can_report(uint32_t status) {
    switch (static_cast<Status>(status)) {
        case CUABI_SUCCESS:
        case CUABI_ERROR_COMPILE:
        case CUABI_ERROR_INVALID_ARGUMENT:
        case CUABI_ERROR_NVRTC:
        case CUABI_ERROR_NVRTC_NOT_FOUND:
        case CUABI_ERROR_LINK:
        case CUABI_ERROR_NVJITLINK_NOT_FOUND:
        case CUABI_ERROR_OUT_OF_HOST_MEMORY:
        case CUABI_ERROR_INTERNAL:
            return true;
        default:
            return false;
    }
}

}  // namespace

std::vector<uint8_t> encode(const Hello& hello) {
    Writer w;
    w.u32(hello.protocol);
    w.u32(static_cast<uint32_t>(hello.status));
    w.text(hello.message);
    w.u32(static_cast<uint32_t>(hello.facts.major));
    w.u32(static_cast<uint32_t>(hello.facts.minor));
    w.u64(hello.facts.supported_archs.size());
    for (int arch : hello.facts.supported_archs) w.u32(static_cast<uint32_t>(arch));
    w.text(hello.facts.path);
    w.text(hello.facts.build_id);
    w.u64(hello.facts.identity);
    w.text(hello.pch_problem);
    return w.take();
}

bool decode(const std::vector<uint8_t>& bytes, Hello* out, uint32_t* status_out) {
    Reader r(bytes);
    out->protocol = r.u32();
    const uint32_t status = r.u32();
    if (status_out != nullptr) *status_out = status;
    out->status = static_cast<Status>(status);
    out->message = r.text();
    out->facts.major = static_cast<int>(r.u32());
    out->facts.minor = static_cast<int>(r.u32());
    uint64_t archs = r.u64();
    for (uint64_t i = 0; r.ok() && i < archs && i < 1024; ++i) out->facts.supported_archs.push_back(static_cast<int>(r.u32()));
    out->facts.path = r.text();
    out->facts.build_id = r.text();
    out->facts.identity = r.u64();
    out->pch_problem = r.text();
    return r.done() && archs < 1024 && out->protocol == kProtocolVersion && worker_can_report(status);
}

std::vector<uint8_t> encode(const Job& compile) {
    const NvrtcJob& job = compile.job;
    Writer w;
    w.text(job.source);
    w.text(job.program_name);
    w.texts(job.flags);
    w.texts(job.header_names);
    w.texts(job.header_sources);
    w.texts(job.name_expressions);
    w.text(job.target);
    w.u32(job.ptx ? 1 : 0);
    w.u32(job.ltoir ? 1 : 0);
    w.texts(job.include_dirs);
    w.text(job.toolkit_note);
    w.u64(compile.budget_ms);
    w.text(compile.pch_key);
    w.text(compile.pch_cache_directory);
    return w.take();
}

bool decode(const std::vector<uint8_t>& bytes, Job* compile) {
    NvrtcJob* out = &compile->job;
    Reader r(bytes);
    out->source = r.text();
    out->program_name = r.text();
    out->flags = r.texts();
    out->header_names = r.texts();
    out->header_sources = r.texts();
    out->name_expressions = r.texts();
    out->target = r.text();
    out->ptx = r.u32() != 0;
    out->ltoir = r.u32() != 0;
    out->include_dirs = r.texts();
    out->toolkit_note = r.text();
    compile->budget_ms = r.u64();
    compile->pch_key = r.text();
    compile->pch_cache_directory = r.text();
    return r.done() && out->header_names.size() == out->header_sources.size();
}

std::vector<uint8_t> encode(const LinkRequest& link) {
    const LinkJob& job = link.job;
    Writer w;
    w.texts(job.options);
    w.u64(job.inputs.size());
    for (const LinkJobInput& input : job.inputs) {
        w.u32(input.kind);
        w.text(input.name);
        w.data(input.bytes.data(), input.bytes.size());
    }
    w.text(job.target);
    w.u32(job.ptx ? 1 : 0);
    w.u32(job.min_version);
    w.u64(link.budget_ms);
    return w.take();
}

bool decode(const std::vector<uint8_t>& bytes, LinkRequest* link) {
    LinkJob* out = &link->job;
    Reader r(bytes);
    out->options = r.texts();
    uint64_t count = r.u64();
    // Each input needs at least its kind and two lengths: a count the frame cannot back is garbage.
    if (count > bytes.size() / 20) return false;
    for (uint64_t i = 0; r.ok() && i < count; ++i) {
        LinkJobInput input;
        input.kind = r.u32();
        input.name = r.text();
        input.bytes = r.data();
        out->inputs.push_back(std::move(input));
    }
    out->target = r.text();
    out->ptx = r.u32() != 0;
    out->min_version = r.u32();
    link->budget_ms = r.u64();
    return r.done();
}

std::vector<uint8_t> encode(const Outcome& outcome) {
    Writer w;
    w.u32(static_cast<uint32_t>(outcome.status));
    w.text(outcome.message);
    w.u32(static_cast<uint32_t>(outcome.nvrtc_result));
    w.text(outcome.log);
    write_image(w, outcome.image);
    w.u32(static_cast<uint32_t>(outcome.pch.event));
    w.u64(outcome.pch.refused);
    w.text(outcome.pch.note);
    return w.take();
}

bool decode(const std::vector<uint8_t>& bytes, Outcome* out, uint32_t* status_out) {
    Reader r(bytes);
    const uint32_t status = r.u32();
    if (status_out != nullptr) *status_out = status;
    out->status = static_cast<Status>(status);
    out->message = r.text();
    out->nvrtc_result = static_cast<int32_t>(r.u32());
    out->log = r.text();
    read_image(r, &out->image);
    const uint32_t event = r.u32();
    out->pch.event = static_cast<PchEvent>(event);
    out->pch.refused = r.u64();
    out->pch.note = r.text();
    return r.done() && worker_can_report(status) && event <= static_cast<uint32_t>(PchEvent::NotCreated);
}

}  // namespace worker
}  // namespace cuabi
