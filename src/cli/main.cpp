// cuabi: the command-line tool. Subcommands live in their own files (cmd_*.cpp) and register in
// the table below.
#include <cstdio>
#include <cstring>

#include "cuabi/cuabi.h"

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--version") == 0) {
        std::printf("cuabi %u (ABI %u)\n", cuabi_version_number(), cuabi_abi_version());
        return 0;
    }
    std::fprintf(stderr, "cuabi: unknown command '%s'\n", argv[1]);
    return 2;
}
