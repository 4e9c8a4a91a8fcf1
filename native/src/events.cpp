// Events: JSON lines on the real stdout; everything else that writes to stdout goes to stderr.

#include <cstdio>

#ifdef _WIN32
#include <io.h>
#define sd_stage_dup _dup
#define sd_stage_dup2 _dup2
#define sd_stage_fdopen _fdopen
#else
#include <unistd.h>
#define sd_stage_dup dup
#define sd_stage_dup2 dup2
#define sd_stage_fdopen fdopen
#endif

#include "sd_stage.hpp"

namespace stage {

void Events::open(bool jsonl) {
    jsonl_ = jsonl;
    std::fflush(stdout);
    // The library and ggml print progress and logs to stdout; the protocol reserves it for
    // events, so fd 1 becomes a copy of stderr and events go to a private copy of the old fd 1.
    int events_fd = sd_stage_dup(1);
    stdout_       = events_fd >= 0 ? sd_stage_fdopen(events_fd, "w") : nullptr;
    if (stdout_ != nullptr) {
        sd_stage_dup2(2, 1);
    }
    out_ = jsonl_ && stdout_ != nullptr ? stdout_ : stderr;
}

void Events::result(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    FILE* out = stdout_ != nullptr ? stdout_ : stdout;
    std::fputs((line + "\n").c_str(), out);
    std::fflush(out);
}

void Events::emit(const std::string& type, nlohmann::json fields) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (out_ == nullptr) {
        out_ = stderr;
    }
    if (jsonl_) {
        nlohmann::json event = {{"v", 1}, {"type", type}};
        event.update(fields);
        std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        std::fputs(line.c_str(), out_);
    } else {
        std::string line = "[sd-stage] " + type + " " + fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        std::fputs(line.c_str(), out_);
    }
    std::fflush(out_);
}

}  // namespace stage
