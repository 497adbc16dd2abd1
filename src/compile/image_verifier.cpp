#include "compile/image_verifier.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cache/kernel_cache.hpp"
#include "compile/image.hpp"
#include "compile/verifier_protocol.hpp"
#include "compile/worker_protocol.hpp"
#include "cuabi/cuabi.h"

extern char** environ;

namespace cuabi {
namespace {

constexpr char kVerifierName[] = "cuabi-image-verifier";
constexpr int kVerifierSocket = 3;  // the descriptor the verifier finds its socket on
constexpr int64_t kDefaultDeadlineMs = 30000;

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
    pid_t pid = -1;
    int fd = -1;
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
int64_t timeout_ms() {
    const char* text = secure_getenv("CUABI_IMAGE_VERIFY_TIMEOUT_MS");
    long long value = text != nullptr ? std::atoll(text) : 0;
    return value > 0 && value <= 3600000 ? value : kDefaultDeadlineMs;
}

// The verifier file must be as trustworthy as the library it serves.
std::string verifier_path(std::string* why) {
    const char* override_path = secure_getenv("CUABI_IMAGE_VERIFIER");
    std::string path;
    if (override_path != nullptr && *override_path != '\0') {
        path = override_path;
    } else {
        Dl_info self{};
        char resolved[4096];
        if (dladdr(reinterpret_cast<void*>(&verify_image), &self) == 0 || self.dli_fname == nullptr ||
            realpath(self.dli_fname, resolved) == nullptr) {
            *why = "the library could not find its own file to look beside it";
            return "";
        }
        std::string library = resolved;
        path = library.substr(0, library.rfind('/')) + "/cuabi/" + kVerifierName;
    }
    struct stat info;
    if (stat(path.c_str(), &info) != 0) *why = format("'%s' does not exist", path.c_str());
    else if (!S_ISREG(info.st_mode) || (info.st_mode & S_IXUSR) == 0)
        *why = format("'%s' is not an executable file", path.c_str());
    else if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 || (info.st_uid != 0 && info.st_uid != geteuid()))
        *why = format("'%s' may be changed by another user (mode %03o, owner uid %u)", path.c_str(),
                      static_cast<unsigned>(info.st_mode & 0777), static_cast<unsigned>(info.st_uid));
    return why->empty() ? path : "";
}

std::string death_of(int status) {
    if (WIFSIGNALED(status))
        return format("was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return format("exited with status %d", WEXITSTATUS(status));
    return "ended";
}

// Ends the verifier and says how it ended. One that closed its socket is given a moment to be
// reaped on its own, so that a crash is reported as its signal, not as the kill that follows.
std::string reap(Verifier& v, bool kill_now) {
    close(v.fd);
    int status = 0;
    pid_t got = 0;
    for (int waited_ms = 0;; waited_ms += 5) {
        got = waitpid(v.pid, &status, WNOHANG);
        if (got < 0 && errno == EINTR) continue;
        if (got != 0) break;
        if (kill_now || waited_ms >= 2000) {
            kill(v.pid, SIGKILL);
            while ((got = waitpid(v.pid, &status, 0)) < 0 && errno == EINTR) {
            }
            break;
        }
        usleep(5000);
    }
    const pid_t pid = v.pid;
    v.pid = -1;
    v.fd = -1;
    if (got != pid) return "ended (its exit status is unknown: this process does not keep its children's)";
    return death_of(status);
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

Status spawn(Verifier& v, const std::string& path) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return fail_start(strerror(errno));
    if (fds[1] == kVerifierSocket) {  // dup2 onto itself would keep close-on-exec
        int moved = fcntl(fds[1], F_DUPFD_CLOEXEC, kVerifierSocket + 1);
        close(fds[1]);
        fds[1] = moved;
    }
    std::string parent = std::to_string(getpid());
    std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>("--parent"),
                               const_cast<char*>(parent.c_str()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], kVerifierSocket);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);   // the host may block signals (Go does)
    posix_spawnattr_setsigdefault(&attributes, &all);  // and ignore some
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int spawned = posix_spawn(&pid, path.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        return fail_start(format("posix_spawn '%s': %s", path.c_str(), strerror(spawned)));
    }
    v.pid = pid;
    v.fd = fds[0];
    return CUABI_SUCCESS;
}

// Starts the verifier (v.mutex held) and reads its hello.
Status start(Verifier& v, int64_t deadline) {
    std::string why;
    std::string path = verifier_path(&why);
    if (path.empty()) return fail_start(why);
    Status status = spawn(v, path);
    if (status != CUABI_SUCCESS) return status;
    std::vector<uint8_t> frame;
    verifier::Hello hello;
    worker::Io got = worker::receive_frame(v.fd, &frame, deadline);
    if (got != worker::Io::Ok || !verifier::decode(frame, &hello)) {
        std::string death = reap(v, got == worker::Io::TimedOut || got == worker::Io::Ok);
        return fail_start(format("'%s' %s before it had loaded the CUDA driver", path.c_str(), death.c_str()));
    }
    if (hello.status != CUABI_SUCCESS) {
        reap(v, false);  // it exits after saying why
        return fail_again(hello.status, hello.message);
    }
    return CUABI_SUCCESS;
}

// A verifier that died between trials (killed, out of memory) is reaped here, so that the next
// image starts a new one instead of being blamed for the death.
void reap_if_dead(Verifier& v) {
    if (v.pid < 0) return;
    int status = 0;
    pid_t got = waitpid(v.pid, &status, WNOHANG);
    if (got == v.pid || (got < 0 && errno == ECHILD)) {
        close(v.fd);
        v.pid = -1;
        v.fd = -1;
    }
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
    const int64_t deadline = worker::now_ms() + timeout;
    *out_decisive = true;
    std::vector<uint8_t> frame;
    worker::Io io = worker::send_frame(v.fd, verifier::encode(trial), deadline);
    if (io == worker::Io::Ok) io = worker::receive_frame(v.fd, &frame, deadline);
    verifier::Verdict verdict;
    const bool answered = io == worker::Io::Ok;
    if (answered && verifier::decode(frame, &verdict)) {
        v.trials.fetch_add(1, std::memory_order_relaxed);
        if (verdict.status == CUABI_SUCCESS) return CUABI_SUCCESS;
        // Out of device memory says nothing about the image: tried again next time.
        *out_decisive = verdict.status != CUABI_ERROR_DEVICE_OUT_OF_MEMORY;
        return fail_again(verdict.status, verdict.message, verdict.cu_result);
    }
    const bool timed_out = io == worker::Io::TimedOut;
    std::string death = reap(v, timed_out || io == worker::Io::Ok);
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

int32_t image_verification_policy(int32_t requested) {
    if (requested != CUABI_IMAGE_VERIFY_DEFAULT) return requested;
    static const int32_t from_environment = [] {
        const char* text = secure_getenv("CUABI_IMAGE_VERIFY");
        if (text == nullptr) return int32_t{CUABI_IMAGE_VERIFY_UNTRUSTED};
        if (strcmp(text, "all") == 0) return int32_t{CUABI_IMAGE_VERIFY_ALL};
        if (strcmp(text, "none") == 0) return int32_t{CUABI_IMAGE_VERIFY_NONE};
        return int32_t{CUABI_IMAGE_VERIFY_UNTRUSTED};  // "untrusted", and anything unknown: the safe choice
    }();
    return from_environment;
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
    const int64_t timeout = timeout_ms();
    reap_if_dead(v);
    if (v.pid < 0) {
        Status status = start(v, worker::now_ms() + timeout);
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
    return v.pid >= 0;
}

uint64_t image_trial_loads() { return this_process_verifier().trials.load(std::memory_order_relaxed); }

void stop_image_verifier() {
    Verifier& v = this_process_verifier();
    std::lock_guard<std::mutex> lock(v.mutex);
    if (v.pid >= 0) reap(v, true);
}

void forget_image_verdicts() {
    Verifier& v = this_process_verifier();
    std::lock_guard<std::mutex> lock(v.mutex);
    v.verdicts.clear();
}

}  // namespace cuabi
