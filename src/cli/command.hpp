// Subcommand registry of the `cuabi` tool. Each subcommand lives in its own cmd_<name>.cpp and
// registers itself at static-initialization time:
//
//   static int run_info(int argc, char** argv);   // argv[0] is the subcommand's name
//   CUABI_CLI_COMMAND(info, "info", "info [--json]", "show the library, driver and devices", kInfoHelp, run_info)
//
// `run` returns the process exit status: 0 success, 1 failure, 2 bad usage. Subcommands use only
// the public header cuabi/cuabi.h.
#pragma once

#include <cstddef>

struct Command {
    const char* name;     // what the user types: "info"
    const char* usage;    // arguments, e.g. "info [--json]"
    const char* summary;  // one line for `cuabi --help`
    const char* help;     // the options, one per line, for `cuabi <name> --help`
    int (*run)(int argc, char** argv);
};

namespace cli {

// Adds a command to the registry; returns true so it can initialize a static. Called only by
// CUABI_CLI_COMMAND.
bool register_command(const Command* command);

// Every registered command, sorted by name.
const Command* const* commands(size_t* out_count);

// The command called `name`, or nullptr.
const Command* find_command(const char* name);

}  // namespace cli

#define CUABI_CLI_COMMAND(ident, name, usage, summary, help, fn)                              \
    namespace {                                                                               \
    const Command cuabi_cli_command_##ident = {name, usage, summary, help, fn};               \
    const bool cuabi_cli_registered_##ident = ::cli::register_command(&cuabi_cli_command_##ident); \
    }
