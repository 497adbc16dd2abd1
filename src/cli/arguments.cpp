#include "arguments.hpp"

#include <cstdio>
#include <cstring>

namespace cli {

int usage_error(const char* command, const std::string& problem) {
    const Command* found = find_command(command);
    std::fprintf(stderr, "cuabi %s: %s\nusage: cuabi %s\n(`cuabi %s --help` lists every option)\n", command,
                 problem.c_str(), found != nullptr ? found->usage : command, command);
    return 2;
}

namespace {

// getopt's short-option string: ':' first, so that a missing value is told apart from an unknown
// option, then -h.
std::string short_options(const char* shorts) { return std::string(":") + shorts + "h"; }

std::vector<option> long_options(const option* longs) {
    std::vector<option> all;
    for (const option* entry = longs; entry != nullptr && entry->name != nullptr; ++entry) all.push_back(*entry);
    all.push_back({"help", no_argument, nullptr, 'h'});
    all.push_back({nullptr, 0, nullptr, 0});
    return all;
}

// The option getopt_long could not use, as the user typed it: a long one from argv, a short one
// from optopt (which, for a long option, holds its code instead).
std::string offending(int argc, char** argv) {
    const char* typed = optind - 1 < argc && optind >= 1 ? argv[optind - 1] : "";
    if (std::strncmp(typed, "--", 2) == 0) return std::string(typed, std::strcspn(typed, "="));
    return std::string("-") + static_cast<char>(optopt);
}

}  // namespace

void print_command_help(const Command& command) {
    std::printf("usage: cuabi %s\n\n%s.\n\n%s", command.usage, command.summary, command.help);
}

Parsed parse_options(const char* command, int argc, char** argv, const char* shorts, const option* longs,
                     const std::function<bool(int, const char*)>& take) {
    Parsed parsed;
    std::string short_string = short_options(shorts);
    std::vector<option> all = long_options(longs);
    optind = 0;  // 0, not 1: glibc starts afresh, as each subcommand parses its own argv
    opterr = 0;  // the messages below name the command
    int code = 0;
    while ((code = getopt_long(argc, argv, short_string.c_str(), all.data(), nullptr)) != -1) {
        if (code == 'h') {
            print_command_help(*find_command(command));
            parsed.proceed = false;
            return parsed;
        }
        bool accepted = false;
        if (code == '?')
            usage_error(command, "unknown option '" + offending(argc, argv) + "'");
        else if (code == ':')
            usage_error(command, "option '" + offending(argc, argv) + "' needs a value");
        else
            accepted = take(code, optarg);
        if (!accepted) {
            parsed.proceed = false;
            parsed.exit_code = 2;
            return parsed;
        }
    }
    for (int i = optind; i < argc; ++i) parsed.positional.push_back(argv[i]);
    return parsed;
}

int parse_json_only(const char* command, int argc, char** argv, bool* json) {
    const option options[] = {{"json", no_argument, nullptr, 'j'}, {}};
    Parsed parsed = parse_options(command, argc, argv, "", options, [json](int, const char*) { return *json = true; });
    if (!parsed.proceed) return parsed.exit_code;
    if (!parsed.positional.empty()) return usage_error(command, "unexpected argument '" + parsed.positional[0] + "'");
    return -1;
}

bool parse_number(const char* command, const char* argument, const char* text, uint64_t min, uint64_t max,
                  uint64_t* out) {
    uint64_t value = 0;
    bool digits = *text != '\0';
    for (const char* at = text; *at != '\0' && digits; ++at) {
        digits = *at >= '0' && *at <= '9' && value <= (UINT64_MAX - 9) / 10;
        value = value * 10 + static_cast<uint64_t>(*at - '0');
    }
    if (digits && value >= min && value <= max) {
        *out = value;
        return true;
    }
    std::fprintf(stderr, "cuabi %s: %s '%s' is not a whole number from %llu to %llu. Fix: pass %s N with N in that range\n",
                 command, argument, text, static_cast<unsigned long long>(min), static_cast<unsigned long long>(max),
                 argument);
    return false;
}

std::string read_text(const std::function<cuabi_status(char*, size_t, size_t*)>& read) {
    size_t size = 0;
    if (read(nullptr, 0, &size) != CUABI_SUCCESS || size == 0) return std::string();
    std::string text(size, '\0');
    if (read(&text[0], size, &size) != CUABI_SUCCESS) return std::string();
    text.resize(size - 1);  // size counts the NUL
    return text;
}

}  // namespace cli
