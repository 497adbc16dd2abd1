// A minimal JSON writer for the CLI's --json output: objects, arrays, strings (escaped), numbers
// and booleans, written straight to a FILE*. Commas are placed by the writer, so call sites only
// say what they write.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

namespace cli {

class JsonWriter {
public:
    explicit JsonWriter(std::FILE* out) : out_(out) {}

    void begin_object(const char* key = nullptr) { open(key, '{'); }
    void end_object() { close('}'); }
    void begin_array(const char* key = nullptr) { open(key, '['); }
    void end_array() { close(']'); }

    void string(const char* key, const char* value) {
        start(key);
        write_string(value);
    }
    void number(const char* key, long long value) {
        start(key);
        std::fprintf(out_, "%lld", value);
    }
    void unsigned_number(const char* key, unsigned long long value) {
        start(key);
        std::fprintf(out_, "%llu", value);
    }
    void boolean(const char* key, bool value) {
        start(key);
        std::fputs(value ? "true" : "false", out_);
    }
    void null(const char* key) {
        start(key);
        std::fputs("null", out_);
    }
    // Ends the document with a newline.
    void finish() { std::fputc('\n', out_); }

private:
    // Writes the separator and, inside an object, the key.
    void start(const char* key) {
        if (!first_.empty()) {
            if (!first_.back()) std::fputc(',', out_);
            first_.back() = false;
        }
        if (key != nullptr) {
            write_string(key);
            std::fputc(':', out_);
        }
    }
    void open(const char* key, char bracket) {
        start(key);
        std::fputc(bracket, out_);
        first_.push_back(true);
    }
    void close(char bracket) {
        first_.pop_back();
        std::fputc(bracket, out_);
    }
    void write_string(const char* text) {
        std::fputc('"', out_);
        for (const unsigned char* c = reinterpret_cast<const unsigned char*>(text); *c != 0; ++c) {
            switch (*c) {
                case '"': std::fputs("\\\"", out_); break;
                case '\\': std::fputs("\\\\", out_); break;
                case '\n': std::fputs("\\n", out_); break;
                case '\r': std::fputs("\\r", out_); break;
                case '\t': std::fputs("\\t", out_); break;
                default:
                    if (*c < 0x20)
                        std::fprintf(out_, "\\u%04x", *c);
                    else
                        std::fputc(*c, out_);
            }
        }
        std::fputc('"', out_);
    }

    std::FILE* out_;
    std::vector<bool> first_;  // per open container: nothing written into it yet
};

}  // namespace cli
