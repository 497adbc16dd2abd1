// Bad arguments to the "Several GPUs" entry points are refused with the right status and a message
// naming the values and the fix, before any device is reached. (Copies that need two live devices
// are in tests/gpu/peer_test.cpp.)
#include <gtest/gtest.h>

#include <cstdint>

#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace {

cuabi_context* const kNoContext = nullptr;
cuabi_buffer* const kNoBuffer = nullptr;

// A handle value that was never issued: the handle table refuses it without touching memory.
cuabi_context* made_up_context() { return reinterpret_cast<cuabi_context*>(uint64_t{1} << 56 | 4000001u); }

TEST(PeerApiArguments, NullOutParametersAreRefused) {
    EXPECT_FAILS_WITH(cuabi_context_can_access_peer(kNoContext, kNoContext, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_can_access is NULL");
    EXPECT_FAILS_WITH(cuabi_context_get_peer_access(kNoContext, kNoContext, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_enabled is NULL");
}

TEST(PeerApiArguments, NullOrMadeUpContextsAreRefusedNamingTheParameter) {
    uint32_t answer = 7;
    EXPECT_FAILS_WITH(cuabi_context_can_access_peer(kNoContext, kNoContext, &answer), CUABI_ERROR_INVALID_HANDLE,
                      "context");
    EXPECT_FAILS_WITH(cuabi_context_get_peer_access(made_up_context(), kNoContext, &answer),
                      CUABI_ERROR_INVALID_HANDLE, "context");
    EXPECT_FAILS_WITH(cuabi_context_enable_peer_access(kNoContext, made_up_context()), CUABI_ERROR_INVALID_HANDLE,
                      "context");
    EXPECT_FAILS_WITH(cuabi_context_disable_peer_access(made_up_context(), made_up_context()),
                      CUABI_ERROR_INVALID_HANDLE, "context");
    EXPECT_EQ(answer, 7u) << "an output is written only on success";
}

TEST(PeerApiArguments, CopyRefusesUnknownFlagsBeforeTheBuffers) {
    EXPECT_FAILS_WITH(cuabi_buffer_copy_peer(kNoBuffer, 0, kNoBuffer, 0, 16, 0x6u, nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "flags is 0x6; bits 0x6 are not defined");
}

TEST(PeerApiArguments, CopyRefusesNullBuffersNamingWhich) {
    EXPECT_FAILS_WITH(cuabi_buffer_copy_peer(kNoBuffer, 0, kNoBuffer, 0, 16, CUABI_PEER_COPY_STAGED, nullptr),
                      CUABI_ERROR_INVALID_HANDLE, "dst");
}

}  // namespace
