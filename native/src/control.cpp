// Control: stdin commands, end of stdin and SIGINT, in every stage (native/PROTOCOL.md, Events).
//
// A stop request (suspend, cancel, end of input on a pipe, SIGINT) is acted on at once while
// the stage is Busy (a model load, an encode or decode: phases that write nothing, so leaving
// loses nothing and no file is half written), else at the next gate: between diffusion steps
// (after the step's checkpoint) or between the phases of a stage (then without output).

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <sys/stat.h>
#endif

#include "sd_stage.hpp"

namespace stage {
namespace {

std::atomic<int> g_sigint_count{0};
std::atomic<bool> g_busy{false};

extern "C" void on_sigint(int) {
    if (g_busy.load() || g_sigint_count.fetch_add(1) >= 1) {
        std::_Exit(EXIT_SUSPENDED);  // nothing is being written; the last checkpoint stays valid
    }
    std::signal(SIGINT, on_sigint);
}

// End of input means "the front end is gone" only when stdin is a pipe or a socket; a terminal,
// /dev/null or a file (someone running the engine by hand or from a script) is not a front end.
bool stdin_is_front_end() {
#ifdef _WIN32
    return GetFileType(GetStdHandle(STD_INPUT_HANDLE)) == FILE_TYPE_PIPE;  // anonymous and named pipes
#else
    struct stat st;
    return fstat(0, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
#endif
}

#ifdef SD_STAGE_TEST_HOOKS
// SD_STAGE_TEST_PAUSE_AT_STEP=k (a test build; PROTOCOL.md, "Test hooks"): the gate after step
// k's checkpoint pauses as a "pause" command read then would, once per process.
bool pause_hook_fires(int step) {
    static bool fired = false;
    const char* value = std::getenv("SD_STAGE_TEST_PAUSE_AT_STEP");
    if (fired || value == nullptr || *value == '\0' || std::atoi(value) != step) {
        return false;
    }
    fired = true;
    return true;
}
#else
bool pause_hook_fires(int) {
    return false;
}
#endif

int exit_code_for(const std::string& reason) {
    return reason == "cancelled" ? EXIT_CANCELLED : EXIT_SUSPENDED;
}

}  // namespace

void Control::start(Events* events) {
    events_ = events;
    std::signal(SIGINT, on_sigint);
    std::thread([this] { read_stdin(); }).detach();
}

void Control::read_stdin() {
    std::string line;
    while (std::getline(std::cin, line)) {
        nlohmann::json cmd = nlohmann::json::parse(line, nullptr, false);
        if (!cmd.is_object() || !cmd.contains("cmd") || !cmd["cmd"].is_string()) {
            continue;  // not a command: ignore rather than die on a stray line
        }
        std::string name = cmd["cmd"];
        std::lock_guard<std::mutex> lock(mutex_);
        if (name == "pause") {
            paused_ = true;
        } else if (name == "resume") {
            paused_ = false;
        } else if (name == "suspend") {
            request_stop("suspended");
        } else if (name == "cancel") {
            request_stop("cancelled");
        }
        changed_.notify_all();
    }
    if (stdin_is_front_end()) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::fprintf(stderr, "sd-stage: end of input (the front end is gone): suspending\n");
        paused_ = false;
        request_stop("suspended");
        changed_.notify_all();
    }
}

void Control::request_stop(const std::string& reason) {
    if (reason == "cancelled" || stop_.empty()) {
        stop_ = reason;
    }
    if (busy_) {
        // A model load, encode or decode: nothing is being written, so leave now.
        int step = last_step_.load();
        if (step >= 0) {
            events_->emit("stopped", {{"reason", stop_}, {"step", step}});
        }
        std::fprintf(stderr, "sd-stage: %s (no output written)\n", stop_.c_str());
        std::fflush(stderr);
        std::_Exit(exit_code_for(stop_));
    }
}

void Control::poll_sigint() {
    if (g_sigint_count.load() > 0 && stop_.empty()) {
        stop_ = "suspended";
    }
}

std::string Control::checkpoint_gate(int step) {
    std::unique_lock<std::mutex> lock(mutex_);
    last_step_.store(step);
    poll_sigint();
    if (pause_hook_fires(step)) {
        paused_ = true;
    }
    if (paused_ && stop_.empty()) {
        events_->emit("paused", {{"step", step}});
        while (paused_ && stop_.empty()) {
            changed_.wait_for(lock, std::chrono::milliseconds(200));
            poll_sigint();
        }
        if (stop_.empty()) {
            events_->emit("resumed", {{"step", step}});
        }
    }
    return stop_;
}

void Control::gate() {
    std::lock_guard<std::mutex> lock(mutex_);
    poll_sigint();
    if (!stop_.empty()) {
        throw StageStopped(stop_);
    }
}

Control::Busy::Busy(Control& control) : control_(control) {
    std::lock_guard<std::mutex> lock(control_.mutex_);
    control_.poll_sigint();
    if (!control_.stop_.empty()) {
        throw StageStopped(control_.stop_);
    }
    control_.busy_ = true;
    g_busy.store(true);
}

Control::Busy::~Busy() {
    std::lock_guard<std::mutex> lock(control_.mutex_);
    control_.busy_ = false;
    g_busy.store(false);
}

}  // namespace stage
