// For a helper process that cuabi starts (the compile worker): a thread that ends the process
// with _exit() as soon as the process that started it is gone -- its socket hangs up, or this
// process has been given another parent -- or the job in progress has run past its budget,
// whatever the main thread is doing meanwhile (blocked inside NVRTC on a FIFO, say). Reading the
// socket between jobs would notice a dead parent only after the job; a parent-death signal fires
// when the parent's starting *thread* ends, not the process.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace cuabi {
namespace parent_watchdog {

// Exit statuses, so that whoever reaps the process can tell why it ended.
constexpr int kParentGone = 0;
constexpr int kBudgetSpent = 124;

// Starts the watchdog over `socket` (the connection to the parent) and `parent`. False when no
// thread could be started.
bool start(int socket, pid_t parent);

// The job that starts now may take `budget_ms` (0: no limit); end_job() when it is done.
void begin_job(uint64_t budget_ms);
void end_job();

}  // namespace parent_watchdog
}  // namespace cuabi
