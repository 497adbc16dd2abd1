// What every subcommand does with its arguments: getopt_long parsing with `--help`, values
// checked with messages that name the argument and the value, and the library's two-call strings.
#pragma once

#include <getopt.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "command.hpp"
#include "cuabi/cuabi.h"

namespace cli {

// How parse_options() ended: go on, or exit with `exit_code` (0 after --help, 2 after bad usage).
struct Parsed {
    bool proceed = true;
    int exit_code = 0;
    std::vector<std::string> positional;  // the arguments that are not options, in order
};

// getopt_long over the argv of the registered subcommand `command` (argv[0] is its name), options and operands in any order.
// `shorts` is getopt's short-option string without the leading ':'; `longs` ends with a zero
// entry; -h and --help are added. Each option goes to `take(code, value)` (value nullptr for a
// flag), which returns false after printing why its value is refused. An unknown option or a
// missing value prints the problem and the usage to stderr.
Parsed parse_options(const char* command, int argc, char** argv, const char* shorts, const option* longs,
                     const std::function<bool(int code, const char* value)>& take);

// `cuabi <command> --help`: the usage, the summary and the options, to stdout.
void print_command_help(const Command& command);

// For a command whose one option is --json and that takes no operand: -1 to go on, with *json
// set, else the exit status (after --help, or bad usage).
int parse_json_only(const char* command, int argc, char** argv, bool* json);

// Prints "cuabi <command>: <problem>" and the usage line to stderr; returns 2.
int usage_error(const char* command, const std::string& problem);

// A whole decimal number from `min` to `max`; otherwise false after printing, e.g.,
// "cuabi compile: --jobs 'abc' is not a whole number from 1 to 256. Fix: ...".
bool parse_number(const char* command, const char* argument, const char* text, uint64_t min, uint64_t max,
                  uint64_t* out);

// A two-call string getter's text, or "" when it fails: `read(buffer, capacity, &size)`.
std::string read_text(const std::function<cuabi_status(char*, size_t, size_t*)>& read);

}  // namespace cli
