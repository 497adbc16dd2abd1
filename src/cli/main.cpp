// cuabi: the command-line tool. main() only dispatches: each subcommand lives in its own
// cmd_<name>.cpp and registers itself with CUABI_CLI_COMMAND (command.hpp).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "command.hpp"
#include "cuabi/cuabi.h"

namespace cli {
namespace {

// A function-local static: registrations run during static initialization of other files, in
// an order C++ does not fix.
std::vector<const Command*>& registry() {
    static std::vector<const Command*> commands;
    return commands;
}

bool sorted = false;

}  // namespace

bool register_command(const Command* command) {
    registry().push_back(command);
    sorted = false;
    return true;
}

const Command* const* commands(size_t* out_count) {
    std::vector<const Command*>& all = registry();
    if (!sorted) {
        std::sort(all.begin(), all.end(),
                  [](const Command* a, const Command* b) { return std::strcmp(a->name, b->name) < 0; });
        sorted = true;
    }
    *out_count = all.size();
    return all.data();
}

const Command* find_command(const char* name) {
    for (const Command* command : registry())
        if (std::strcmp(command->name, name) == 0) return command;
    return nullptr;
}

}  // namespace cli

namespace {

void print_help(std::FILE* out) {
    std::fprintf(out, "usage: cuabi <command> [arguments]\n\ncommands:\n");
    size_t count = 0;
    const Command* const* all = cli::commands(&count);
    for (size_t i = 0; i < count; ++i) std::fprintf(out, "  %-28s %s\n", all[i]->usage, all[i]->summary);
    std::fprintf(out, "  %-28s %s\n  %-28s %s\n", "help", "show this list", "--version",
                 "show the library version");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0 ||
        std::strcmp(argv[1], "-h") == 0) {
        print_help(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        uint32_t version = cuabi_version_number();
        std::printf("cuabi %u.%u.%u (ABI %u)\n", version / 10000, version / 100 % 100, version % 100,
                    cuabi_abi_version());
        return 0;
    }
    // The tool is single-threaded and has made no CUDA call yet: the one safe moment to give the
    // driver its JIT cache, which cuabi never does behind a program's back.
    cuabi_cache_configure_driver_jit();
    const Command* command = cli::find_command(argv[1]);
    if (command == nullptr) {
        std::fprintf(stderr, "cuabi: unknown command '%s'\n\n", argv[1]);
        print_help(stderr);
        return 2;
    }
    return command->run(argc - 1, argv + 1);
}
