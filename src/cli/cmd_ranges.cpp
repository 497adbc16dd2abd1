// `cuabi ranges [--json]`: the catalog of the NVTX ranges cuabi marks, with whether
// they are on in this environment -- what to look for in Nsight, and what to filter on.
#include <cstdio>
#include <cstring>

#include "arguments.hpp"
#include "command.hpp"
#include "cuabi/cuabi.h"
#include "json.hpp"

namespace {

struct Entry {
    const char* name;
    const char* description;
};

int print_text(size_t count) {
    std::printf("NVTX domain \"cuabi\": ranges %s%s\n\n", cuabi_range_get_enabled() ? "on" : "off (CUABI_NVTX=0)",
                cuabi_range_get_profiler_attached() ? ", profiler attached" : "");
    for (size_t i = 0; i < count; ++i) {
        Entry entry{};
        if (cuabi_range_get_catalog_entry(i, &entry.name, &entry.description) != CUABI_SUCCESS) {
            std::fprintf(stderr, "cuabi ranges: %s\n", cuabi_last_error_message());
            return 1;
        }
        std::printf("  %-28s %s\n", entry.name, entry.description);
    }
    return 0;
}

int print_json(size_t count) {
    cli::JsonWriter json(stdout);
    json.begin_object();
    json.string("domain", "cuabi");
    json.boolean("enabled", cuabi_range_get_enabled() != 0);
    json.boolean("profiler_attached", cuabi_range_get_profiler_attached() != 0);
    json.begin_array("ranges");
    for (size_t i = 0; i < count; ++i) {
        Entry entry{};
        if (cuabi_range_get_catalog_entry(i, &entry.name, &entry.description) != CUABI_SUCCESS) {
            std::fprintf(stderr, "cuabi ranges: %s\n", cuabi_last_error_message());
            return 1;
        }
        json.begin_object();
        json.string("name", entry.name);
        json.string("description", entry.description);
        json.end_object();
    }
    json.end_array();
    json.end_object();
    json.finish();
    return 0;
}

int run_ranges(int argc, char** argv) {
    bool as_json = false;
    int exit_code = cli::parse_json_only("ranges", argc, argv, &as_json);
    if (exit_code >= 0) return exit_code;
    size_t count = 0;
    if (cuabi_range_get_catalog_count(&count) != CUABI_SUCCESS) {
        std::fprintf(stderr, "cuabi ranges: %s\n", cuabi_last_error_message());
        return 1;
    }
    return as_json ? print_json(count) : print_text(count);
}

}  // namespace

CUABI_CLI_COMMAND(ranges, "ranges", "ranges [--json]", "list the NVTX ranges cuabi marks (see docs/profiling.md)",
                  "options:\n"
                  "  --json       the catalog as one JSON object\n"
                  "  -h, --help   this text\n",
                  run_ranges)
