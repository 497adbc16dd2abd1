// A stand-in for cuabi-image-verifier (src/verifier/main.cpp) that speaks its protocol but
// behaves as $CUABI_STAND_IN_VERIFIER says, so that the host's side -- start, restart, deadline,
// the memo -- is tested without a GPU (tests/unit/image_verifier_test.cpp):
//
//   accept        every image loads
//   refuse        every image is refused as the driver refuses one (INVALID_IMAGE, CUresult 200)
//   crash         dies of SIGSEGV on the first image, as the driver's loader did
//   hang          never answers an image
//   garbage       answers an image with bytes that are no verdict
//   no-driver     says in its hello that the driver could not be loaded, then exits
//   exit-idle     accepts one image, then exits (a verifier that died between images)
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "compile/verifier_protocol.hpp"
#include "core/frame_io.hpp"

namespace io = cuabi::frames;
namespace protocol = cuabi::verifier;

int main() {
    const char* mode_text = getenv("CUABI_STAND_IN_VERIFIER");
    const std::string mode = mode_text != nullptr ? mode_text : "accept";
    constexpr int kSocket = 3;
    protocol::Hello hello;
    if (mode == "no-driver") {
        hello.status = CUABI_ERROR_DRIVER_NOT_FOUND;
        hello.message = "stand-in: libcuda.so.1 could not be loaded. Fix: install the NVIDIA driver.";
    }
    if (io::send_frame(kSocket, protocol::encode(hello), io::kNoDeadline) != io::Io::Ok || mode == "no-driver") return 0;
    for (;;) {
        std::vector<uint8_t> frame;
        if (io::receive_frame(kSocket, &frame, io::kNoDeadline, io::kMaxFrameBytes) != io::Io::Ok) return 0;
        protocol::Trial trial;
        if (!protocol::decode(frame, &trial)) return 4;
        if (mode == "crash") raise(SIGSEGV);
        if (mode == "hang") pause();
        if (mode == "garbage") {
            io::send_frame(kSocket, std::vector<uint8_t>(3, 0xee), io::kNoDeadline);
            continue;
        }
        protocol::Verdict verdict;
        if (mode == "refuse") {
            verdict.status = CUABI_ERROR_INVALID_IMAGE;
            verdict.cu_result = 200;
            verdict.message = "stand-in: cuModuleLoadDataEx refused the " + std::to_string(trial.image.size()) +
                              "-byte image. Fix: produce the image again.";
        }
        verdict.kernels = 1;
        if (io::send_frame(kSocket, protocol::encode(verdict), io::kNoDeadline) != io::Io::Ok) return 0;
        if (mode == "exit-idle") return 0;
    }
}
