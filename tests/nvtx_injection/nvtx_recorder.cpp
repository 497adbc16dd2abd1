// A minimal NVTX tool: the injection library Nsight would be, reduced to writing down every call.
//
// NVTX v3 is header-only. At its first call in a process it reads NVTX_INJECTION64_PATH, dlopens
// that library, and calls its InitializeInjectionNvtx2 with a function that hands out NVTX's
// tables of function pointers; the tool overwrites the entries it implements (here: everything a
// range or domain uses) and NVTX calls them from then on. Each event becomes one line of the file
// named by CUABI_NVTX_RECORD (see record.hpp for the format and the parser).
// A tool declares the NVTX types without carrying an NVTX implementation of its own.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

// Handles given out to NVTX's callers. Never freed: NVTX handles live until the process exits.
struct Domain {
    std::string name;
};
struct RegisteredString {
    std::string text;
};

struct Recorder {
    std::mutex mutex;
    FILE* file = nullptr;
    std::atomic<uint64_t> next_range_id{1};
};

Recorder& recorder() {
    static Recorder* instance = new Recorder();  // never destroyed: NVTX calls may come during exit
    return *instance;
}

// Tabs, newlines and backslashes are escaped so every event stays one tab-separated line.
std::string escaped(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\t') out += "\\t";
        else if (c == '\n') out += "\\n";
        else if (c == '\\') out += "\\\\";
        else out += c;
    }
    return out;
}

std::string domain_name(nvtxDomainHandle_t domain) {
    return domain == nullptr ? std::string() : reinterpret_cast<Domain*>(domain)->name;
}

// thread \t event \t domain \t message \t category \t message-type \t range-id
void record(const char* event, nvtxDomainHandle_t domain, const std::string& message, uint32_t category,
            const char* message_type, uint64_t range_id) {
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.file == nullptr) return;
    std::fprintf(r.file, "%ld\t%s\t%s\t%s\t%u\t%s\t%llu\n", static_cast<long>(syscall(SYS_gettid)), event,
                 escaped(domain_name(domain)).c_str(), escaped(message).c_str(), category, message_type,
                 static_cast<unsigned long long>(range_id));
    std::fflush(r.file);
}

void record_attributes(const char* event, nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes,
                       uint64_t range_id) {
    if (attributes == nullptr) return record(event, domain, "", 0, "none", range_id);
    switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return record(event, domain, attributes->message.ascii ? attributes->message.ascii : "(null)",
                      attributes->category, "ascii", range_id);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return record(event, domain,
                      attributes->message.registered
                          ? reinterpret_cast<const RegisteredString*>(attributes->message.registered)->text
                          : "(null)",
                      attributes->category, "registered", range_id);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return record(event, domain, "(unicode)", attributes->category, "unicode", range_id);
    default:
        return record(event, domain, "", attributes->category, "unknown", range_id);
    }
}

thread_local int push_depth = 0;

// --- the CORE2 (domain) entry points ---------------------------------------------------------
nvtxDomainHandle_t domain_create(const char* name) {
    auto* domain = new Domain{name ? name : ""};
    nvtxDomainHandle_t handle = reinterpret_cast<nvtxDomainHandle_t>(domain);
    record("domain_create", handle, domain->name, 0, "ascii", 0);
    return handle;
}
void domain_destroy(nvtxDomainHandle_t domain) { record("domain_destroy", domain, "", 0, "none", 0); }
nvtxStringHandle_t register_string(nvtxDomainHandle_t domain, const char* text) {
    auto* registered = new RegisteredString{text ? text : ""};
    record("register_string", domain, registered->text, 0, "ascii", 0);
    return reinterpret_cast<nvtxStringHandle_t>(registered);
}
void name_category(nvtxDomainHandle_t domain, uint32_t category, const char* name) {
    record("name_category", domain, name ? name : "", category, "ascii", 0);
}
int domain_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
    record_attributes("push", domain, attributes, 0);
    return push_depth++;
}
int domain_pop(nvtxDomainHandle_t domain) {
    record("pop", domain, "", 0, "none", 0);
    return push_depth > 0 ? --push_depth : -1;
}
nvtxRangeId_t domain_start(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
    uint64_t id = recorder().next_range_id++;
    record_attributes("start", domain, attributes, id);
    return id;
}
void domain_end(nvtxDomainHandle_t domain, nvtxRangeId_t id) { record("end", domain, "", 0, "none", id); }
void domain_mark(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
    record_attributes("mark", domain, attributes, 0);
}

// --- the CORE (default domain) entry points -------------------------------------------------
int push_ex(const nvtxEventAttributes_t* attributes) { return domain_push(nullptr, attributes); }
int push_a(const char* message) {
    record("push", nullptr, message ? message : "(null)", 0, "ascii", 0);
    return push_depth++;
}
int pop() { return domain_pop(nullptr); }
nvtxRangeId_t start_ex(const nvtxEventAttributes_t* attributes) { return domain_start(nullptr, attributes); }
nvtxRangeId_t start_a(const char* message) {
    uint64_t id = recorder().next_range_id++;
    record("start", nullptr, message ? message : "(null)", 0, "ascii", id);
    return id;
}
void end(nvtxRangeId_t id) { domain_end(nullptr, id); }
void mark_ex(const nvtxEventAttributes_t* attributes) { domain_mark(nullptr, attributes); }
void mark_a(const char* message) { record("mark", nullptr, message ? message : "(null)", 0, "ascii", 0); }

template <typename F>
void install(NvtxFunctionTable table, unsigned int size, unsigned int slot, F* function) {
    if (slot < size && table[slot] != nullptr) *table[slot] = reinterpret_cast<NvtxFunctionPointer>(function);
}

bool install_tables(NvtxGetExportTableFunc_t get_export_table) {
    auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
    if (callbacks == nullptr || callbacks->GetModuleFunctionTable == nullptr) return false;
    NvtxFunctionTable core2 = nullptr, core = nullptr;
    unsigned int core2_size = 0, core_size = 0;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size)) return false;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size)) return false;
    install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, &domain_create);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainDestroy, &domain_destroy);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, &register_string);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainNameCategoryA, &name_category);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, &domain_push);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, &domain_pop);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeStartEx, &domain_start);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainRangeEnd, &domain_end);
    install(core2, core2_size, NVTX_CBID_CORE2_DomainMarkEx, &domain_mark);
    install(core, core_size, NVTX_CBID_CORE_RangePushEx, &push_ex);
    install(core, core_size, NVTX_CBID_CORE_RangePushA, &push_a);
    install(core, core_size, NVTX_CBID_CORE_RangePop, &pop);
    install(core, core_size, NVTX_CBID_CORE_RangeStartEx, &start_ex);
    install(core, core_size, NVTX_CBID_CORE_RangeStartA, &start_a);
    install(core, core_size, NVTX_CBID_CORE_RangeEnd, &end);
    install(core, core_size, NVTX_CBID_CORE_MarkEx, &mark_ex);
    install(core, core_size, NVTX_CBID_CORE_MarkA, &mark_a);
    return true;
}

}  // namespace

// Called once by each copy of NVTX in the process (every shared object that includes the NVTX
// headers has its own). Returns 0 to decline, which turns that copy's NVTX calls into no-ops.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
    Recorder& r = recorder();
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        if (r.file == nullptr) {
            const char* path = std::getenv("CUABI_NVTX_RECORD");
            if (path == nullptr || (r.file = std::fopen(path, "a")) == nullptr) return 0;
        }
    }
    return install_tables(get_export_table) ? 1 : 0;
}
