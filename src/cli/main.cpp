// cuabi: the command-line tool. main() only dispatches: each subcommand lives in its own
// cmd_<name>.cpp and registers itself with CUABI_CLI_COMMAND (command.hpp).
#include <getopt.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "arguments.hpp"
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
    std::fprintf(out, "usage: cuabi [--help | --version] <command> [arguments]\n\ncommands:\n");
    size_t count = 0;
    const Command* const* all = cli::commands(&count);
    for (size_t i = 0; i < count; ++i) std::fprintf(out, "  %-10s %s\n", all[i]->name, all[i]->summary);
    std::fprintf(out, "  %-10s %s\n\n", "help", "this list; `cuabi help <command>` shows that command's options");
    std::fprintf(out, "options:\n  -h, --help     this list\n  -V, --version  the library version\n\n"
                      "`cuabi <command> --help` shows a command's arguments and options.\n");
}

int print_version() {
    uint32_t version = cuabi_version_number();
    std::printf("cuabi %u.%u.%u (ABI %u)\n", version / 10000, version / 100 % 100, version % 100, cuabi_abi_version());
    return 0;
}

// `cuabi help [command]`.
int help(int argc, char** argv) {
    if (argc < 2) {
        print_help(stdout);
        return 0;
    }
    const Command* command = cli::find_command(argv[1]);
    if (command == nullptr) {
        std::fprintf(stderr, "cuabi help: unknown command '%s'\n\n", argv[1]);
        print_help(stderr);
        return 2;
    }
    cli::print_command_help(*command);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    // '+': the first operand is the command, and everything after it is the command's own.
    const option options[] = {{"help", no_argument, nullptr, 'h'}, {"version", no_argument, nullptr, 'V'}, {}};
    opterr = 0;
    int code = getopt_long(argc, argv, "+hV", options, nullptr);
    if (code == 'h') {
        print_help(stdout);
        return 0;
    }
    if (code == 'V') return print_version();
    if (code == '?') {
        std::fprintf(stderr, "cuabi: unknown option '%s'\n\n", argv[optind - 1]);
        print_help(stderr);
        return 2;
    }
    if (optind >= argc) {
        print_help(stderr);
        return 2;
    }
    char** command_argv = argv + optind;
    int command_argc = argc - optind;
    if (std::strcmp(command_argv[0], "help") == 0) return help(command_argc, command_argv);
    const Command* command = cli::find_command(command_argv[0]);
    if (command == nullptr) {
        std::fprintf(stderr, "cuabi: unknown command '%s'\n\n", command_argv[0]);
        print_help(stderr);
        return 2;
    }
    // The tool is single-threaded and has made no CUDA call yet: the one safe moment to give the
    // driver its JIT cache, which cuabi never does behind a program's back.
    cuabi_cache_configure_driver_jit();
    return command->run(command_argc, command_argv);
}
