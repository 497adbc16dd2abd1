#include "compile/image_verifier.hpp"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "cache/kernel_cache.hpp"
#include "compile/image.hpp"
#include "compile/verifier_protocol.hpp"
#include "compile/worker_protocol.hpp"
#include "core/child_process.hpp"
#include "core/environment.hpp"
#include "core/helper_executable.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {
namespace {

// A verdict carries a status, a message and each kernel's facts: far below this, whatever the
// image; a verifier claiming more is broken or lying, and is stopped rather than believed.
constexpr uint32_t kMaxVerdictBytes = 16u << 20;

constexpr char kVerifierName[] = "cuabi-image-verifier";
constexpr int64_t kDefaultDeadlineMs = 30000;
constexpr int kCrashGraceMs = 2000;

struct Remembered {
    Status status = CUABI_SUCCESS;
    int32_t cu_result = 0;
    std::string message;
};

struct VerdictKey {
    cache::Key content;
    int32_t ordinal;
    bool operator==(const VerdictKey& other) const { return content == other.content && ordinal == other.ordinal; }
};

struct VerdictKeyHash {
    size_t operator()(const VerdictKey& key) const {
        return static_cast<size_t>(key.content.low ^ (key.content.high * 31) ^ uint64_t(uint32_t(key.ordinal)));
    }
};

// The verifier of one process and the verdicts it gave. Trials run one at a time: untrusted loads
// are rare and the verifier's context is shared. After fork() a child makes its own and leaves the
// parent's alone (another thread may have held this mutex at the fork).
struct Verifier {
    explicit Verifier(pid_t process) : owner(process) {}
    const pid_t owner;
    std::mutex mutex;
    ChildProcess child;
    std::unordered_map<VerdictKey, Remembered, VerdictKeyHash> verdicts;
    std::atomic<uint64_t> trials{0};
};

std::atomic<Verifier*> current{nullptr};

Verifier& this_process_verifier() {
    pid_t me = getpid();
    Verifier* v = current.load(std::memory_order_acquire);
    while (v == nullptr || v->owner != me) {
        Verifier* fresh = new Verifier(me);  // a parent's, if any, is left as it is: never freed
        if (current.compare_exchange_strong(v, fresh, std::memory_order_acq_rel)) return *fresh;
        delete fresh;
    }
    return *v;
}

// How long one trial (with the verifier's start, when it needs one) may take.
// Read at every trial, so that a new value takes effect at once. A value it refuses is an
// environment problem; *problem says it ("" for none).
int64_t timeout_ms(std::string* problem = nullptr) {
    uint64_t value = 0;
    std::string refused;
    bool read = read_environment_number("CUABI_IMAGE_VERIFY_TIMEOUT_MS", 1, 3600000, &value, &refused);
    if (!refused.empty()) {
        refused += format("; %lld is used", static_cast<long long>(kDefaultDeadlineMs));
        record_environment_problem(refused);
    }
    if (problem != nullptr) *problem = refused;
    return read ? static_cast<int64_t>(value) : kDefaultDeadlineMs;
}

// Ends the verifier (v.mutex held) and says how it ended. One that closed its socket gets a moment
// to be reaped on its own, so that a crash is reported as its signal, not as the kill that follows.
std::string end_verifier(Verifier& v, bool kill_now) {
    return describe(end_child(&v.child, kill_now, kCrashGraceMs));
}

Status fail_start(const std::string& what) {
    return fail(CUABI_ERROR_UNSUPPORTED,
                "reinstall cuabi (cuabi-image-verifier belongs in <libdir>/cuabi/ beside libcuabi.so) or point "
                "CUABI_IMAGE_VERIFIER at it; or, if every image this program loads comes from a source you trust, "
                "set CUABI_IMAGE_VERIFY=none (or cuabi_context_options.image_verification)",
                "an image that cuabi did not compile cannot be verified before loading: the image verifier could "
                "not be started: %s",
                what.c_str());
}

// Starts the verifier (v.mutex held) and reads its hello.
Status start(Verifier& v, int64_t deadline) {
    std::string why;
    const std::string path = helper_executable(kVerifierName, "CUABI_IMAGE_VERIFIER", &why);
    if (path.empty()) return fail_start(why);
    if (!spawn_child(path, {}, &v.child, &why)) return fail_start(why);
    std::vector<uint8_t> frame;
    verifier::Hello hello;
    frames::Io got = frames::Io::Failed;
    bool decoded = false;
    try {  // a hello left unread would be taken for the first image's verdict
        got = frames::receive_frame(v.child.fd, &frame, deadline, worker::kMaxHelloBytes);
        decoded = got == frames::Io::Ok && verifier::decode(frame, &hello);
    } catch (const std::bad_alloc&) {
        end_verifier(v, true);
        throw;
    }
    if (!decoded) {
        std::string death = end_verifier(v, got == frames::Io::TimedOut || got == frames::Io::Ok);
        return fail_start(format("'%s' %s before it had loaded the CUDA driver", path.c_str(), death.c_str()));
    }
    if (hello.status != CUABI_SUCCESS) {
        end_verifier(v, false);  // it exits after saying why
        return fail_again(hello.status, hello.message);
    }
    return CUABI_SUCCESS;
}

Status remember(Verifier& v, const VerdictKey& key, Status status) {
    Remembered verdict;
    verdict.status = status;
    if (status != CUABI_SUCCESS) {
        verdict.message = last_error_message();
        verdict.cu_result = last_cu_result();
    }
    v.verdicts[key] = std::move(verdict);
    return status;
}

// One trial in the running verifier (v.mutex held): its verdict, or what became of it.
Status run_trial(Verifier& v, const verifier::Trial& trial, const cache::CachedImage& image, const char* source,
                 int64_t timeout, bool* out_decisive) {
    const int64_t deadline = frames::now_ms() + timeout;
    *out_decisive = true;
    std::vector<uint8_t> frame;
    frames::Io io = frames::send_frame(v.child.fd, verifier::encode(trial), deadline);
    if (io == frames::Io::Ok) {
        // An answer left unread would be taken for the next image's: without memory for it, the
        // verifier is stopped instead.
        try {
            io = frames::receive_frame(v.child.fd, &frame, deadline, kMaxVerdictBytes);
        } catch (const std::bad_alloc&) {
            end_verifier(v, true);
            throw;
        }
    }
    verifier::Verdict verdict;
    const bool answered = io == frames::Io::Ok;
    if (answered && verifier::decode(frame, &verdict)) {
        v.trials.fetch_add(1, std::memory_order_relaxed);
        if (verdict.status == CUABI_SUCCESS) return CUABI_SUCCESS;
        // Out of device memory says nothing about the image: tried again next time.
        *out_decisive = verdict.status != CUABI_ERROR_DEVICE_OUT_OF_MEMORY;
        return fail_again(verdict.status, verdict.message, verdict.cu_result);
    }
    const bool timed_out = io == frames::Io::TimedOut;
    std::string death = end_verifier(v, timed_out || io == frames::Io::Ok);
    v.trials.fetch_add(1, std::memory_order_relaxed);
    const std::string what =
        format("the %zu-byte %s from %s", image.image.size(), describe_image(image).c_str(), source);
    if (timed_out)
        return fail(CUABI_ERROR_INVALID_IMAGE,
                    "produce the image again from its source; if it is genuine and this large, raise "
                    "CUABI_IMAGE_VERIFY_TIMEOUT_MS",
                    "the CUDA driver was still loading %s in the image verifier when its %lld ms deadline passed; "
                    "the verifier was stopped and this process never loaded the image",
                    what.c_str(), static_cast<long long>(timeout));
    if (answered)
        return fail(CUABI_ERROR_INVALID_IMAGE,
                    "reinstall cuabi (cuabi-image-verifier must come from the same release as libcuabi.so)",
                    "the image verifier answered %zu bytes that are no verdict on %s, and was stopped (it %s); this "
                    "process never loaded the image",
                    frame.size(), what.c_str(), death.c_str());
    return fail(CUABI_ERROR_INVALID_IMAGE,
                "do not load this image: it crashes the CUDA driver's loader; produce it again from its source "
                "(nvcc, or cuabi_module_compile())",
                "the image verifier %s while the CUDA driver loaded %s; this process is unharmed and never loaded "
                "the image",
                death.c_str(), what.c_str());
}

}  // namespace

namespace {

struct PolicySetting {
    int32_t policy = CUABI_IMAGE_VERIFY_UNTRUSTED;
    EnvironmentProblem* problem = nullptr;  // never freed: read at exit too
};

const PolicySetting& policy_from_environment() {
    static const PolicySetting setting = [] {
        PolicySetting s;
        const char* text = secure_getenv("CUABI_IMAGE_VERIFY");
        std::string problem;
        if (text != nullptr && strcmp(text, "all") == 0) s.policy = CUABI_IMAGE_VERIFY_ALL;
        else if (text != nullptr && strcmp(text, "none") == 0) s.policy = CUABI_IMAGE_VERIFY_NONE;
        else if (text != nullptr && *text != '\0' && strcmp(text, "untrusted") != 0)
            problem = format("CUABI_IMAGE_VERIFY='%s' is none of \"untrusted\", \"all\" and \"none\"; \"untrusted\" is "
                             "used", bounded(text, 40).c_str());  // the safe choice
        s.problem = new EnvironmentProblem(problem, "set CUABI_IMAGE_VERIFY to untrusted, all or none, or unset it");
        return s;
    }();
    return setting;
}

}  // namespace

int32_t image_verification_policy(int32_t requested) {
    return requested != CUABI_IMAGE_VERIFY_DEFAULT ? requested : policy_from_environment().policy;
}

// A refused timeout fails the first trial that reads it, once per value.
Status report_trial_environment() {
    static std::mutex mutex;
    static std::string* reported = new std::string();  // never freed: read at exit too
    std::string problem;
    timeout_ms(&problem);
    std::lock_guard<std::mutex> lock(mutex);
    if (problem.empty() || problem == *reported) return CUABI_SUCCESS;
    *reported = problem;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "set CUABI_IMAGE_VERIFY_TIMEOUT_MS to a number of milliseconds, or unset it",
                "%s (reported once; later calls use that)", problem.c_str());
}

Status report_verification_environment(int32_t requested) {
    if (requested == CUABI_IMAGE_VERIFY_DEFAULT)
        if (Status refused = policy_from_environment().problem->report_once()) return refused;
    return CUABI_SUCCESS;
}

void read_verification_environment() {
    policy_from_environment();
    timeout_ms();
}

bool must_verify(int32_t policy, bool trusted_source) {
    if (policy == CUABI_IMAGE_VERIFY_NONE) return false;
    return policy == CUABI_IMAGE_VERIFY_ALL || !trusted_source;
}

Status verify_image(const VerifiedOn& device, const cache::Key& content, const cache::CachedImage& image,
                    const char* source) {
    Verifier& v = this_process_verifier();
    const int32_t ordinal = device.ordinal;
    const VerdictKey key{content, ordinal};
    std::lock_guard<std::mutex> lock(v.mutex);
    auto known = v.verdicts.find(key);
    if (known != v.verdicts.end()) {
        if (known->second.status == CUABI_SUCCESS) return CUABI_SUCCESS;
        return fail_again(known->second.status, known->second.message, known->second.cu_result);
    }
    cache::KeyBuilder builder;
    builder.add("verified image", &content, sizeof content);
    builder.add("on", device.identity.data(), device.identity.size());
    const cache::Key verdict_key = builder.finish();
    cache::Layer layer = cache::Layer::None;
    cache::KernelCache& cache = cache::KernelCache::instance();
    std::shared_ptr<const cache::CachedImage> proof = cache.lookup(verdict_key, nullptr, &layer);
    // Only a proof this machine wrote counts: one from a read-only layer, a bundle or a remote
    // is the claim of whoever filled it.
    if (proof != nullptr && !proof->untrusted && proof->image == image.image) return remember(v, key, CUABI_SUCCESS);
    // Only a trial reads the deadline: a load the memo answers pays for no environment lookup.
    if (Status refused = report_trial_environment()) return refused;
    const int64_t timeout = timeout_ms();
    // One that died or was stopped between trials (killed, out of memory, SIGSTOP) is replaced:
    // the next image is not blamed.
    ChildEnding ending;
    if (v.child.running()) {
        ChildHealth health = check_idle_child(&v.child, &ending);
        if (health != ChildHealth::Ready) end_verifier(v, health == ChildHealth::Stopped);
    }
    if (!v.child.running()) {
        Status status = start(v, frames::now_ms() + timeout);
        if (status != CUABI_SUCCESS) return status;
    }
    verifier::Trial trial;
    trial.ordinal = ordinal;
    trial.image = image.image;
    bool decisive = true;
    Status status = run_trial(v, trial, image, source, timeout, &decisive);
    if (status == CUABI_SUCCESS) {
        auto proven = std::make_shared<cache::CachedImage>(image);
        proven->untrusted = false;  // the verdict is this process's own
        cache.store(verdict_key, std::move(proven), nullptr);
    }
    return decisive ? remember(v, key, status) : status;
}

bool image_verifier_running() {
    Verifier& v = this_process_verifier();
    std::lock_guard<std::mutex> lock(v.mutex);
    return v.child.running();
}

uint64_t image_trial_loads() { return this_process_verifier().trials.load(std::memory_order_relaxed); }

void stop_image_verifier() {
    Verifier& v = this_process_verifier();
    std::lock_guard<std::mutex> lock(v.mutex);
    if (v.child.running()) end_verifier(v, true);
}

void forget_image_verdicts() {
    Verifier& v = this_process_verifier();
    std::lock_guard<std::mutex> lock(v.mutex);
    v.verdicts.clear();
}

}  // namespace cuabi
