// What cuabi and its image verifier (compile/image_verifier.hpp) say to each other: frames
// (core/frame_io.hpp), each holding one message of fields in
// a fixed order (u32 little-endian, byte strings as a u64 length and the bytes).
//
//   verifier -> cuabi, once, after loading the driver:  Hello
//   cuabi    -> verifier, per image:                     Trial
//   verifier -> cuabi, per image:                        Verdict
//
// Decoding never trusts a length: a verifier that dies mid-message or sends garbage gives a
// decode failure, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace cuabi {
namespace verifier {

constexpr uint32_t kProtocolVersion = 1;

// The verifier's first words: whether it could load the CUDA driver, and if not why.
struct Hello {
    uint32_t protocol = kProtocolVersion;
    Status status = CUABI_SUCCESS;
    std::string message;
};

// One image to trial-load on device `ordinal` (the host's context's device).
struct Trial {
    int32_t ordinal = 0;
    std::vector<uint8_t> image;
};

// How the trial load went: CUABI_SUCCESS, or the driver's refusal (status, CUresult, message).
struct Verdict {
    Status status = CUABI_SUCCESS;
    int32_t cu_result = 0;
    uint32_t kernels = 0;  // kernels looked up
    std::string message;
};

std::vector<uint8_t> encode(const Hello& hello);
std::vector<uint8_t> encode(const Trial& trial);
std::vector<uint8_t> encode(const Verdict& verdict);
bool decode(const std::vector<uint8_t>& bytes, Hello* out);
bool decode(const std::vector<uint8_t>& bytes, Trial* out);
bool decode(const std::vector<uint8_t>& bytes, Verdict* out);

}  // namespace verifier
}  // namespace cuabi
