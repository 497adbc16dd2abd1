// The scenarios cuabi_nvtx_scenario runs (scenario.cpp dispatches). Each records a failure with
// expect() rather than stopping, so one run reports every unexpected status.
#pragma once

#include "cuabi/cuabi.h"

namespace scenario {

// Counts and prints a failure when `got` is not `want`.
void expect(cuabi_status got, cuabi_status want, const char* what);

// User ranges (scenario_user.cpp).
void user();
void misuse();
void domain_limit();

// cuabi's own phases (scenario_library.cpp). compile, compile-disk-hit, cache-prune and driver
// need no GPU;
// `launch` and `graph` print "no device: ..." and return when there is none.
void compile();
void compile_disk_hit();
void cache_prune();
void driver();
void launch();
void launch_batch();
void graph();

}  // namespace scenario
